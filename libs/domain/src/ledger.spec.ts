import fc from 'fast-check';
import {
  adjustmentPosting,
  isBalanced,
  owedToStore,
  refundPosting,
  releaseLines,
  salePosting,
  type LedgerLine,
} from './ledger';

const owner = { mode: 'test', merchantId: 'm-1', storeId: 's-1', currency: 'JPY' };
const availableOn = new Date('2026-12-08T15:00:00Z');
const sum = (lines: LedgerLine[], kind: string) =>
  lines.filter((l) => l.account.kind === kind).reduce((total, l) => total + l.amount, 0n);

describe('ledger postings', () => {
  it('a sale: the processor holds the gross, the store is owed gross less fee from availableOn, the platform earns the fee', () => {
    const posting = salePosting({
      ...owner,
      chargeId: 'c-1',
      grossAmount: 1000n,
      feeAmount: 36n,
      feeRatePpm: 36_000,
      feeFlatAmount: null,
      availableOn,
    });
    expect(posting).toMatchObject({
      kind: 'sale',
      sourceType: 'charge',
      sourceId: 'c-1',
      amount: 1000n,
      feeAmount: 36n,
    });
    expect(sum(posting.lines, 'processor_clearing')).toBe(1000n);
    expect(owedToStore(sum(posting.lines, 'store_pending'))).toBe(964n);
    expect(sum(posting.lines, 'platform_fee_revenue')).toBe(-36n);
    expect(posting.lines.filter((l) => l.account.kind === 'store_pending').map((l) => l.availableOn)).toEqual(
      [availableOn, availableOn],
    );
    expect(isBalanced(posting.lines)).toBe(true);
  });

  it('a sale without a fee has no fee lines', () => {
    const posting = salePosting({
      ...owner,
      chargeId: 'c',
      grossAmount: 500n,
      feeAmount: 0n,
      feeRatePpm: 0,
      feeFlatAmount: null,
      availableOn,
    });
    expect(posting.lines.map((l) => l.account.kind)).toEqual(['processor_clearing', 'store_pending']);
  });

  it('a refund comes out of the available balance and keeps the fee', () => {
    const posting = refundPosting({ ...owner, refundId: 'r-1', amount: 400n });
    expect(posting).toMatchObject({ kind: 'refund', sourceType: 'refund', amount: -400n, feeAmount: 0n });
    expect(owedToStore(sum(posting.lines, 'store_available'))).toBe(-400n);
    expect(sum(posting.lines, 'processor_clearing')).toBe(-400n);
    expect(sum(posting.lines, 'platform_fee_revenue')).toBe(0n);
  });

  it('an adjustment moves the available balance against the platform’s adjustments, with its reason', () => {
    const posting = adjustmentPosting({
      ...owner,
      adjustmentId: 'a-1',
      amount: -250n,
      note: 'chargeback fee',
    });
    expect(owedToStore(sum(posting.lines, 'store_available'))).toBe(-250n);
    expect(sum(posting.lines, 'platform_adjustments')).toBe(-250n);
    expect(() => adjustmentPosting({ ...owner, adjustmentId: 'a', amount: 1n, note: ' ' })).toThrow(
      RangeError,
    );
    expect(() => adjustmentPosting({ ...owner, adjustmentId: 'a', amount: 0n, note: 'x' })).toThrow(
      RangeError,
    );
  });

  it('a release moves what matured from pending to available, and nothing when nothing matured', () => {
    const lines = releaseLines(owner, -964n, availableOn);
    expect(owedToStore(sum(lines, 'store_pending'))).toBe(-964n);
    expect(owedToStore(sum(lines, 'store_available'))).toBe(964n);
    expect(lines.find((l) => l.account.kind === 'store_pending')?.availableOn).toEqual(availableOn);
    expect(releaseLines(owner, 0n, availableOn)).toEqual([]);
  });

  it('refuses a sale of nothing, a fee above the gross, a refund of nothing', () => {
    const sale = { ...owner, chargeId: 'c', feeRatePpm: null, feeFlatAmount: null, availableOn };
    expect(() => salePosting({ ...sale, grossAmount: 0n, feeAmount: 0n })).toThrow(RangeError);
    expect(() => salePosting({ ...sale, grossAmount: 10n, feeAmount: 11n })).toThrow(RangeError);
    expect(() => refundPosting({ ...owner, refundId: 'r', amount: 0n })).toThrow(RangeError);
  });

  it('every posting balances, whatever its amounts (property)', () => {
    const amount = fc.bigInt({ min: 1n, max: 9_999_999_999n });
    fc.assert(
      fc.property(
        amount,
        fc.double({ min: 0, max: 1, noNaN: true }),
        amount,
        amount,
        fc.boolean(),
        (gross, share, refund, adjust, credit) => {
          const fee = BigInt(Math.floor(Number(gross) * share));
          const postings = [
            salePosting({
              ...owner,
              chargeId: 'c',
              grossAmount: gross,
              feeAmount: fee > gross ? gross : fee,
              feeRatePpm: null,
              feeFlatAmount: null,
              availableOn,
            }),
            refundPosting({ ...owner, refundId: 'r', amount: refund }),
            adjustmentPosting({ ...owner, adjustmentId: 'a', amount: credit ? adjust : -adjust, note: 'n' }),
          ];
          const release = releaseLines(owner, -(gross - fee), availableOn);
          return postings.every((p) => isBalanced(p.lines)) && (release.length === 0 || isBalanced(release));
        },
      ),
    );
  });
});
