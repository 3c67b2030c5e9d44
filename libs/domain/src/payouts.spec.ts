import {
  canChangeTransfer,
  decidePayout,
  FINAL_TRANSFER_STATUSES,
  payoutPosting,
  payoutReturnedPosting,
  type UncoveredLedger,
} from '.';

const row = (id: string, storeId: string, net: bigint): UncoveredLedger => ({ id, storeId, net });
const input = (uncovered: UncoveredLedger[], extra: Partial<Parameters<typeof decidePayout>[0]> = {}) => ({
  currency: 'JPY',
  uncovered,
  minimum: { amount: 0, currency: 'JPY' },
  bankAccountId: 'bank',
  ...extra,
});

describe('decidePayout', () => {
  it('pays what is owed, netted across the stores, and covers every row it read', () => {
    expect(decidePayout(input([row('b', 's2', -400n), row('a', 's1', 964n), row('c', 's1', 36n)]))).toEqual({
      outcome: 'transfer',
      amount: 600n,
      bankAccountId: 'bank',
      stores: [
        { storeId: 's1', amount: 1000n },
        { storeId: 's2', amount: -400n },
      ],
      ledgerIds: ['a', 'b', 'c'],
    });
  });

  it('carries forward a balance that is not positive, below the minimum of its currency, or without a bank account', () => {
    expect(decidePayout(input([row('a', 's', 100n), row('b', 's', -300n)]))).toEqual({
      outcome: 'nothing_to_pay',
      amount: -200n,
    });
    expect(decidePayout(input([]))).toEqual({ outcome: 'nothing_to_pay', amount: 0n });
    const minimum = { amount: 5000, currency: 'JPY' };
    expect(decidePayout(input([row('a', 's', 4999n)], { minimum }))).toEqual({
      outcome: 'below_minimum',
      amount: 4999n,
    });
    expect(decidePayout(input([row('a', 's', 5000n)], { minimum })).outcome).toBe('transfer');
    // another currency's minimum does not bind this one
    expect(decidePayout(input([row('a', 's', 1n)], { minimum, currency: 'USD' })).outcome).toBe('transfer');
    expect(decidePayout(input([row('a', 's', 10n)], { bankAccountId: null }))).toEqual({
      outcome: 'no_bank_account',
      amount: 10n,
    });
  });
});

describe('payout postings', () => {
  const fact = {
    transferId: 't',
    mode: 'test',
    merchantId: 'm',
    currency: 'JPY',
    stores: [
      { storeId: 's1', amount: 1000n },
      { storeId: 's2', amount: -400n },
    ],
  };

  it('moves each store’s part of the payout from its available balance to the payouts in transit', () => {
    const posting = payoutPosting(fact);
    expect(posting).toMatchObject({ kind: 'payout', sourceType: 'transfer', sourceId: 't', amount: 600n });
    expect(posting.lines.map((l) => [l.account.kind, l.amount])).toEqual([
      ['store_available', 1000n],
      ['store_available', -400n],
      ['payouts_in_transit', -600n],
    ]);
    expect(() => payoutPosting({ ...fact, stores: [{ storeId: 's', amount: -1n }] })).toThrow(RangeError);
  });

  it('returns a failed or canceled payout exactly', () => {
    const returned = payoutReturnedPosting(fact);
    expect(returned.kind).toBe('payout_returned');
    expect(returned.lines.map((l) => l.amount)).toEqual([-1000n, 400n, 600n]);
  });
});

describe('transfer statuses', () => {
  it('move created → approved → processing → paid | failed, and cancel before processing', () => {
    expect(canChangeTransfer('created', 'approved')).toBe(true);
    expect(canChangeTransfer('approved', 'processing')).toBe(true);
    expect(canChangeTransfer('processing', 'paid')).toBe(true);
    expect(canChangeTransfer('processing', 'failed')).toBe(true);
    expect(canChangeTransfer('approved', 'canceled')).toBe(true);
    expect(canChangeTransfer('processing', 'canceled')).toBe(false);
    expect(canChangeTransfer('paid', 'failed')).toBe(false);
    expect(canChangeTransfer('created', 'processing')).toBe(false);
  });

  it('end at paid, failed and canceled: the statuses transfer_finalized announces', () => {
    expect(FINAL_TRANSFER_STATUSES).toEqual(['paid', 'failed', 'canceled']);
  });
});
