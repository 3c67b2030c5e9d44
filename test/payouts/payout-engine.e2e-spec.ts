// The payout engine (issue 31; docs/ledger.md, "Payouts"; decision 0038): on each merchant's payout
// day, what became available and was not paid yet becomes one transfer to the currency's primary
// verified bank account, at or above min_transfer_payout, its ledger rows recorded as covered; a
// negative balance is carried forward, never paid. Two engines of their own pools race for the same
// payout days and make each transfer once. The real gateway (bank accounts through the SDK), the
// real Postgres; the clock is the engine's input.
import { randomUUID } from 'node:crypto';
import { BankAccountType, LedgerOrigin, TransferStatus } from 'univapay-node';
import { Registry } from 'prom-client';
import { LedgerRepository, PayoutsRepository, PrismaService, type PostingRequest } from '@kessai/db';
import { owedToStore, refundPosting, salePosting } from '@kessai/domain';
import { lastPayoutDay } from '@kessai/schedule';
import { CapturedLog, sdkError, sdkFor, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { LedgerMetrics } from '../../apps/ledger-service/src/ledger-metrics';
import { PayoutEngine } from '../../apps/ledger-service/src/payout-engine';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: {}, indebted: {}, small: {}, unbanked: {}, idle: {} },
});
type Name = keyof typeof suite.merchants;

const WEEKLY = { period: 'weekly', day_of_week: 'friday' } as const;
const DAY = 86_400_000;
// the engine's clock: a week ahead, so that every fact posted now is before the payout day it owes
const at = new Date(Date.now() + 8 * DAY);
const payoutDay = lastPayoutDay({ ...WEEKLY, day_of_month: 1 }, 'Asia/Tokyo', at);
const nextWeek = new Date(at.getTime() + 7 * DAY);
const matured = new Date(Date.now() - 3_600_000);
const later = new Date(payoutDay.startsAt.getTime() + 30 * DAY);

let prismas: PrismaService[];
let ledger: LedgerRepository;
let engines: PayoutEngine[];
const log = new CapturedLog();

function engineOf(prisma: PrismaService) {
  const ledgerOf = new LedgerRepository(prisma);
  return new PayoutEngine(
    new PayoutsRepository(prisma, ledgerOf),
    new LedgerMetrics(new Registry()),
    log.logger('ledger-service'),
    suite.env.config,
  );
}

const owner = (name: Name) => ({
  mode: 'test',
  merchantId: suite.merchants[name].merchant.id,
  storeId: suite.merchants[name].store.id,
  currency: 'JPY',
});
const sdkOf = async (name: Name) =>
  sdkFor(suite.url, await suite.env.merchantToken(suite.merchants[name], 'test'));

const sale = (name: Name, gross: bigint, fee: bigint, availableOn = matured): PostingRequest => ({
  posting: salePosting({
    ...owner(name),
    chargeId: randomUUID(),
    grossAmount: gross,
    feeAmount: fee,
    feeRatePpm: null,
    feeFlatAmount: null,
    availableOn,
  }),
  createdBy: 'test',
  causeEventId: null,
});
const refund = (name: Name, amount: bigint): PostingRequest => ({
  posting: refundPosting({ ...owner(name), refundId: randomUUID(), amount }),
  createdBy: 'test',
  causeEventId: null,
});

async function postAndRelease(requests: PostingRequest[]) {
  await ledger.post(requests);
  while ((await ledger.release(100)) > 0);
}

async function available(name: Name) {
  const account = await suite.env.prisma.ledgerAccount.findFirst({
    where: { storeId: suite.merchants[name].store.id, kind: 'store_available', mode: 'test' },
  });
  return owedToStore(account?.balance ?? 0n);
}

const transfersOf = (name: Name) =>
  suite.env.prisma.transfer.findMany({
    where: { merchantId: suite.merchants[name].merchant.id },
    include: { ledgers: true, statusChanges: true },
    orderBy: { payoutDay: 'asc' },
  });
const runsOf = (name: Name) =>
  suite.env.prisma.payoutRun.findMany({
    where: { merchantId: suite.merchants[name].merchant.id },
    orderBy: { payoutDay: 'asc' },
  });

beforeAll(async () => {
  for (const name of Object.keys(suite.merchants) as Name[]) {
    const minimum = name === 'small' ? { amount: 5000, currency: 'JPY' } : { amount: 0, currency: 'JPY' };
    await suite.cli(
      'merchant:configure',
      '--merchant',
      suite.merchants[name].merchant.id,
      '--set',
      JSON.stringify({ transfer_schedule: WEEKLY, min_transfer_payout: minimum }),
    );
    if (name === 'unbanked') continue;
    const sdk = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants[name], 'test'));
    await sdk.bankAccounts.create({
      accountNumber: String(1_000_000 + Object.keys(suite.merchants).indexOf(name)),
      country: 'JP',
      currency: 'JPY',
      holderName: `${name} KK`,
      bankName: 'Mizuho Bank',
      branchName: 'Shibuya',
      accountType: BankAccountType.CHECKING,
    });
  }
  prismas = [new PrismaService(suite.env.config), new PrismaService(suite.env.config)];
  suite.cleanup(() => Promise.all(prismas.map((prisma) => prisma.onModuleDestroy())));
  ledger = new LedgerRepository(prismas[0]);
  engines = prismas.map(engineOf);
}, 60_000);

describe('the payout engine', () => {
  it('pays each book once per payout day, whatever the number of engines racing for it', async () => {
    await postAndRelease([
      sale('shop', 10_000n, 360n),
      sale('shop', 5_000n, 180n),
      refund('shop', 1_000n),
      // pending past the payout day: not paid on it
      sale('shop', 7_000n, 252n, later),
      sale('indebted', 2_000n, 0n),
      refund('indebted', 5_000n),
      sale('small', 3_000n, 0n),
      sale('unbanked', 4_000n, 0n),
    ]);
    expect(await available('shop')).toBe(9_640n + 4_820n - 1_000n);

    // two engines at once, then one again: one run per book and day
    const created = (await Promise.all(engines.map((engine) => engine.runOnce(at)))).flat();
    expect(await engines[0].runOnce(at)).toEqual([]);
    expect(created).toHaveLength(1);

    const [transfer] = await transfersOf('shop');
    expect(transfer).toMatchObject({
      id: created[0],
      amount: 13_460n,
      currency: 'JPY',
      mode: 'test',
      status: 'approved',
      startedBy: 'payout-schedule',
      periodTo: payoutDay.startsAt,
    });
    expect(transfer.payoutDay.toISOString().slice(0, 10)).toBe(payoutDay.day);
    expect(transfer.periodFrom.getTime()).toBe(payoutDay.startsAt.getTime() - 7 * DAY);
    expect(transfer.bankAccountId).toBe(
      (
        await suite.env.prisma.bankAccount.findFirstOrThrow({
          where: { merchantId: suite.merchants.shop.merchant.id },
        })
      ).id,
    );
    // covered: the two matured sales and the refund, not the pending sale
    expect(transfer.ledgers).toHaveLength(3);
    expect(transfer.statusChanges).toEqual([
      expect.objectContaining({
        oldStatus: 'created',
        newStatus: 'approved',
        merchantId: transfer.merchantId,
      }),
    ]);
    // its money left the store's available balance for the payouts in transit
    expect(await available('shop')).toBe(0n);
    const payout = await suite.env.prisma.ledgerTransaction.findFirstOrThrow({
      where: { kind: 'payout', sourceId: transfer.id },
      include: { entries: { include: { account: true } } },
    });
    expect(
      payout.entries
        .map((e) => [e.account.kind, e.amount])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    ).toEqual([
      ['payouts_in_transit', -13_460n],
      ['store_available', 13_460n],
    ]);

    // the others: carried forward, each for its reason, once
    expect(await transfersOf('indebted')).toEqual([]);
    expect(await transfersOf('small')).toEqual([]);
    expect(await transfersOf('unbanked')).toEqual([]);
    const outcome = async (name: Name) => (await runsOf(name)).map((r) => [r.outcome, r.amount]);
    expect(await outcome('indebted')).toEqual([['nothing_to_pay', -3_000n]]);
    expect(await outcome('small')).toEqual([['below_minimum', 3_000n]]);
    expect(await outcome('unbanked')).toEqual([['no_bank_account', 4_000n]]);
    expect(await outcome('shop')).toEqual([['transfer', 13_460n]]);
    // no facts, no book: nothing run
    expect(await outcome('idle')).toEqual([]);
    expect(await available('indebted')).toBe(-3_000n);

    const books = await ledger.verify();
    expect(books).toMatchObject({
      unbalancedTransactions: 0,
      emptyTransactions: 0,
      unbalancedBooks: 0,
      wrongBalances: 0,
      wrongMaturities: 0,
    });
  });

  it('carries a negative balance forward and pays it off from the next sales, never paying it out', async () => {
    await postAndRelease([sale('indebted', 10_000n, 0n), sale('small', 2_500n, 0n)]);
    const created = (await Promise.all(engines.map((engine) => engine.runOnce(nextWeek)))).flat();
    expect(created).toHaveLength(2);

    // 2,000 − 5,000 carried, then 10,000: 7,000, covering all three
    const [indebted] = await transfersOf('indebted');
    expect(indebted).toMatchObject({ amount: 7_000n, status: 'approved' });
    expect(indebted.ledgers).toHaveLength(3);
    expect(await available('indebted')).toBe(0n);
    // below the minimum last week, 5,500 now: both sales in one transfer
    const [small] = await transfersOf('small');
    expect(small).toMatchObject({ amount: 5_500n });
    expect(small.ledgers).toHaveLength(2);
    // what was paid last week is not paid again; the shop's pending sale is not due yet
    expect((await transfersOf('shop')).map((t) => t.amount)).toEqual([13_460n]);
    expect((await runsOf('shop')).map((r) => r.outcome)).toEqual(['transfer', 'nothing_to_pay']);
  });

  it('answers the merchant’s transfers and their ledgers through the SDK, field by field', async () => {
    const shop = await sdkOf('shop');
    const [row] = await transfersOf('shop');
    const list = await shop.transfers.list();
    expect(list).toEqual({ items: [expect.objectContaining({ id: row.id })], hasMore: false, totalHits: 1 });
    const transfer = await shop.transfers.get(row.id);
    expect(transfer).toEqual({
      id: row.id,
      merchantId: suite.merchants.shop.merchant.id,
      bankAccountId: row.bankAccountId,
      amount: 13_460,
      currency: 'JPY',
      amountFormatted: 13_460,
      status: TransferStatus.APPROVED,
      metadata: {},
      startedBy: 'payout-schedule',
      createdOn: row.createdOn.toISOString(),
      from: row.periodFrom.toISOString(),
      to: row.periodTo.toISOString(),
      mode: 'test',
    });
    expect(list.items[0]).toEqual({ ...transfer, merchantName: suite.merchants.shop.merchant.name });
    expect((await shop.transfers.list({ status: TransferStatus.PAID })).items).toEqual([]);

    const changes = await shop.transfers.statusChanges(row.id);
    expect(changes.items).toEqual([
      {
        id: expect.any(String),
        merchantId: suite.merchants.shop.merchant.id,
        transferId: row.id,
        oldStatus: TransferStatus.CREATED,
        newStatus: TransferStatus.APPROVED,
        reason: 'test mode: approved at creation',
        createdOn: expect.any(String),
      },
    ]);

    const ledgers = await shop.ledgers.list(row.id);
    expect(ledgers.hasMore).toBe(false);
    expect(ledgers.items.map((l) => [l.origin, l.amount]).sort()).toEqual(
      [
        [LedgerOrigin.CHARGE, 9_640],
        [LedgerOrigin.CHARGE, 4_820],
        [LedgerOrigin.REFUND, -1_000],
      ].sort(),
    );
    const first = ledgers.items.find((l) => l.amount === 9_640)!;
    expect(first).toEqual({
      id: expect.any(String),
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      transferId: row.id,
      amount: 9_640,
      currency: 'JPY',
      amountFormatted: 9_640,
      percentFee: 0,
      flatFee: 0,
      flatFeeCurrency: 'JPY',
      flatFeeFormatted: 0,
      exchangeRate: 1,
      origin: LedgerOrigin.CHARGE,
      createdOn: expect.any(String),
    });
    expect(await shop.ledgers.get(first.id)).toEqual(first);
    // the pending sale: a ledger of the merchant's that no transfer pays yet
    const pendingRow = await suite.env.prisma.ledgerTransaction.findFirstOrThrow({
      where: { storeId: suite.merchants.shop.store.id, kind: 'sale', availableOn: later },
    });
    const pending = await shop.ledgers.get(pendingRow.id);
    expect(pending).toMatchObject({ amount: 7_000 - 252, origin: LedgerOrigin.CHARGE });
    expect(pending).not.toHaveProperty('transferId');

    // another merchant's transfer and ledger are unknown; a store credential may not read them
    const other = await sdkOf('indebted');
    expect(await sdkError(other.transfers.get(row.id))).toMatchObject({ httpCode: 404 });
    expect(await sdkError(other.ledgers.get(first.id))).toMatchObject({ httpCode: 404 });
    expect(await sdkError(other.ledgers.list(row.id))).toMatchObject({ httpCode: 404 });
    expect(await sdkError(shop.transfers.get('not-a-uuid'))).toMatchObject({ httpCode: 404 });
    expect(await sdkError(suite.sdk.shop.transfers.list())).toMatchObject({
      code: 'INVALID_PERMISSIONS',
      httpCode: 403,
    });
  });

  it('is held by the database: one transfer per payout day, and what a transfer covers is append-only', async () => {
    const [transfer] = await transfersOf('shop');
    const { id, createdOn, updatedOn, ...copy } = transfer;
    void id;
    void createdOn;
    void updatedOn;
    await expect(
      suite.env.prisma.transfer.create({
        data: { ...copy, ledgers: undefined, statusChanges: undefined, metadata: {} },
      }),
    ).rejects.toThrow(/Unique constraint/);
    await expect(
      suite.env.prisma.$executeRawUnsafe(`DELETE FROM transfer_ledgers WHERE transfer_id = '${transfer.id}'`),
    ).rejects.toThrow(/append-only/);
    await expect(
      suite.env.prisma.$executeRawUnsafe(`UPDATE transfers SET amount = 1 WHERE id = '${transfer.id}'`),
    ).rejects.toThrow(/fixed/);
    await expect(
      suite.env.prisma.$executeRawUnsafe(
        `DELETE FROM transfer_status_changes WHERE transfer_id = '${transfer.id}'`,
      ),
    ).rejects.toThrow(/append-only/);
  });

  it('lets the operator approve a live transfer (its account verified) and cancel one, its money available again', async () => {
    // a live book: the account verified by the operator, a live sale, a live payout day
    const live = sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.idle, 'live'));
    const account = await live.bankAccounts.create({
      accountNumber: '5550001',
      country: 'JP',
      currency: 'JPY',
      holderName: 'Idle KK',
      bankName: 'Mizuho Bank',
      accountType: BankAccountType.CHECKING,
    });
    await ledger.post([
      { ...sale('idle', 9_000n, 0n), posting: { ...sale('idle', 9_000n, 0n).posting, mode: 'live' } },
    ]);
    while ((await ledger.release(100)) > 0);
    await engines[0].runOnce(at);
    expect(await transfersOf('idle')).toEqual([]); // the account is not verified yet: carried forward
    await suite.cli('bank-account:verify', '--id', account.id, '--status', 'verified');
    await engines[0].runOnce(nextWeek);
    const [created] = await transfersOf('idle');
    expect(created).toMatchObject({ mode: 'live', status: 'created', amount: 9_000n });
    // live transfers wait for the operator; test ones were approved at creation
    const listed = (await suite.cli('transfer:list', '--merchant', suite.merchants.idle.merchant.id)) as {
      id: string;
      status: string;
    }[];
    expect(listed).toEqual([expect.objectContaining({ id: created.id, status: 'created' })]);
    const approved = await suite.cli('transfer:approve', '--id', created.id, '--by', 'ops-alice');
    expect(approved).toMatchObject({ id: created.id, status: 'approved' });
    await expect(suite.cli('transfer:approve', '--id', created.id, '--by', 'ops-alice')).rejects.toThrow(
      /approved/,
    );
    const [shopTransfer] = await transfersOf('shop');
    await expect(suite.cli('transfer:approve', '--id', shopTransfer.id, '--by', 'ops-alice')).rejects.toThrow(
      /approved at creation/,
    );
    expect((await transfersOf('idle'))[0].statusChanges).toEqual([
      expect.objectContaining({
        oldStatus: 'created',
        newStatus: 'approved',
        createdBy: 'operator:ops-alice',
      }),
    ]);

    // a cancel gives the money back; the next payout day pays the same ledgers again
    await suite.cli(
      'transfer:cancel',
      '--id',
      shopTransfer.id,
      '--by',
      'ops-alice',
      '--reason',
      'merchant under review',
    );
    expect(await available('shop')).toBe(13_460n);
    await expect(
      suite.cli('transfer:cancel', '--id', shopTransfer.id, '--by', 'ops-alice', '--reason', 'again'),
    ).rejects.toThrow(/canceled/);
    await engines[1].runOnce(new Date(nextWeek.getTime() + 7 * DAY));
    const shop = await transfersOf('shop');
    expect(shop.map((t) => [t.status, t.amount])).toEqual([
      ['canceled', 13_460n],
      ['approved', 13_460n],
    ]);
    expect(shop[1].ledgers.map((l) => l.ledgerTransactionId).sort()).toEqual(
      shop[0].ledgers.map((l) => l.ledgerTransactionId).sort(),
    );
    expect(await available('shop')).toBe(0n);
    expect(await ledger.verify()).toMatchObject({
      unbalancedTransactions: 0,
      unbalancedBooks: 0,
      wrongBalances: 0,
    });
  });
});
