// A merchant's month (issue 31, "Done when"): real charges, a partial capture, a refund, a bank
// transfer paid by a deposit and an operator's adjustment, posted by the ledger's poster, then four
// weekly payout days driven by the payout engine's clock (its input): a negative first week carried
// forward, a payout paid, one failed at the bank (an account closed) and its money paid again the
// next week to a new account. Every transfer's amount is checked against the table below, computed
// by hand. The real gateway (the SDK, the bank's and the processor's signed notices), charge-service
// and refund-cancel-service processes, the simulator's processor and test bank over HTTP, Postgres.
//
// 3.6 % fee on everything; weekly payouts on Monday (Tokyo). Each batch of sales gets its own
// wait_period (P1D, P8D, P15D, P22D) so that it becomes available in its own week.
//
// | payout day | becomes owed                                   | net     | transfer                        |
// | ---------- | ---------------------------------------------- | ------- | ------------------------------- |
// | week 0     | sale 1,000 − 36 = 964; refund −3,000; adj. +500 | −1,536  | none: negative, carried forward |
// | week 1     | sale 10,000 − 360 = 9,640; capture 3,000 − 108  | 10,996  | 10,996, paid                    |
// |            | = 2,892; carried −1,536                        |         |                                 |
// | week 2     | deposit 7,000 − 252 = 6,748                    | 6,748   | 6,748, failed (account closed)  |
// | week 3     | sale 2,000 − 72 = 1,928; returned 6,748        | 8,676   | 8,676, paid to the new account  |
import { Registry } from 'prom-client';
import { BankAccountType, PaymentType, TransferStatus } from 'univapay-node';
import { LedgerRepository, PayoutsRepository, PrismaService } from '@kessai/db';
import {
  APPROVED_TEST_CARD,
  CapturedLog,
  eventually,
  sdkCardToken,
  sdkFor,
  settledTransfer,
  useSuite,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { LedgerMetrics } from '../../apps/ledger-service/src/ledger-metrics';
import { LedgerPoster } from '../../apps/ledger-service/src/ledger-poster';
import { PayoutEngine } from '../../apps/ledger-service/src/payout-engine';
import { PayoutSender } from '../../apps/ledger-service/src/payout-sender';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '2000' },
  simulator: (callbackSecret) =>
    startProcessorSimulator({ latencyMs: 0, callbackSecret, callbackRetryBaseDelayMs: 100 }),
  callbacks: true,
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'month' } },
  workers: ['charge-service', 'refund-cancel-service'],
  workerVariables: { PROCESSOR_TIMEOUT_MS: '1000' },
});

const DAY = 86_400_000;
let prisma: PrismaService;
let poster: LedgerPoster;
let engine: PayoutEngine;
let sender: PayoutSender;
const log = new CapturedLog();
type Any = any;

const storeId = () => suite.merchants.shop.store.id;
const merchantId = () => suite.merchants.shop.merchant.id;
const sdk = () => suite.sdk.shop;
const merchantSdk = async () =>
  sdkFor(suite.url, await suite.env.merchantToken(suite.merchants.shop, 'test'));

const configure = (settings: Record<string, unknown>) =>
  suite.cli('merchant:configure', '--merchant', merchantId(), '--set', JSON.stringify(settings));

async function cardCharge(amount: number, capture = true): Promise<Any> {
  const token = await sdkCardToken(sdk(), { cardNumber: APPROVED_TEST_CARD });
  const created = await sdk().charges.create({
    transactionTokenId: token.id,
    amount,
    currency: 'JPY',
    capture,
  });
  const done: Any = await sdk().charges.poll(storeId(), created.id);
  expect(done.status).toBe(capture ? 'successful' : 'authorized');
  return done;
}

/** A bank-transfer charge, paid by a transfer into its virtual account at the simulator's bank. */
async function depositCharge(amount: number): Promise<Any> {
  const token: Any = await sdk().transactionTokens.create({
    paymentType: PaymentType.BANK_TRANSFER,
    type: 'one_time',
    email: 'buyer@example.test',
    data: { brand: 'bank_test_brand' },
  } as Any);
  const created: Any = await sdk().charges.create({ transactionTokenId: token.id, amount, currency: 'JPY' });
  expect((await sdk().charges.poll(storeId(), created.id)).status).toBe('awaiting');
  const instructions = await suite.api.shop.request(
    `/stores/${storeId()}/charges/${created.id}/issuer_token`,
  );
  const accountNumber = (instructions.body as { payload: { account_number: string } }).payload.account_number;
  const paid = await fetch(`${suite.simulator.url}/bank/transfers`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account_number: accountNumber, amount }),
  });
  expect(paid.status).toBe(200);
  return eventually(
    async () => {
      const charge: Any = await sdk().charges.get(storeId(), created.id);
      return charge.status === 'successful' ? charge : null;
    },
    { timeoutMs: 20_000, what: `deposit charge ${created.id} paid` },
  );
}

/** Runs the poster until the ledger rows of these sources exist; resolves to the sales' available_on. */
async function posted(sourceIds: string[]): Promise<Date> {
  const rows = await eventually(
    async () => {
      await poster.postOnce();
      const found = await suite.env.prisma.ledgerTransaction.findMany({
        where: { sourceId: { in: sourceIds } },
      });
      return found.length === sourceIds.length ? found : null;
    },
    { timeoutMs: 20_000, what: `the postings of ${sourceIds.length} facts` },
  );
  return rows.find((row) => row.availableOn !== null)?.availableOn ?? new Date();
}

async function account(accountNumber: string, primary: boolean) {
  return (await merchantSdk()).bankAccounts.create({
    accountNumber,
    country: 'JP',
    currency: 'JPY',
    holderName: 'Month KK',
    bankName: 'Mizuho Bank',
    accountType: BankAccountType.CHECKING,
    primary,
  });
}

/**
 * The payout day of a batch available at `available`: the engine's clock six and a half days after
 * it, whose latest Monday is at or after the batch's day and before the next batch's (a week later).
 */
async function payoutWeek(available: Date) {
  const ids = await engine.runOnce(new Date(available.getTime() + 6.5 * DAY));
  const run = await suite.env.prisma.payoutRun.findFirstOrThrow({
    where: { merchantId: merchantId() },
    orderBy: { payoutDay: 'desc' },
  });
  return { ids, run };
}

const settled = (id: string, status: 'paid' | 'failed') => settledTransfer(suite.env, id, status);

beforeAll(async () => {
  await configure({
    percent_fee: 3.6,
    wait_period: 'P1D',
    transfer_schedule: { period: 'weekly', day_of_week: 'monday' },
  });
  await account('1234567', true);
  prisma = new PrismaService(suite.env.config);
  suite.cleanup(() => prisma.onModuleDestroy());
  const ledger = new LedgerRepository(prisma);
  const payouts = new PayoutsRepository(prisma, ledger);
  const metrics = new LedgerMetrics(new Registry());
  const config = { ...suite.env.config, PROCESSOR_CALLBACK_BASE_URL: suite.url };
  poster = new LedgerPoster(ledger, metrics, log.logger('ledger-service'), config);
  engine = new PayoutEngine(payouts, metrics, log.logger('ledger-service'), config);
  sender = new PayoutSender(payouts, log.logger('ledger-service'), config);
}, 60_000);

describe("a merchant's month of payouts", () => {
  it('pays what the hand-computed table says, week by week', async () => {
    // batch 0 (available after a day): a sale of 1,000
    const small = await cardCharge(1000);
    const week0 = await posted([small.id]);

    // batch 1 (after 8 days): a sale of 10,000 and an authorization of 5,000 captured at 3,000
    await configure({ wait_period: 'P8D' });
    const big = await cardCharge(10_000);
    const held = await cardCharge(5000, false);
    await sdk().captures.create(storeId(), held.id, { amount: 3000, currency: 'JPY' });
    await eventually(
      async () => ((await sdk().charges.get(storeId(), held.id)) as Any).status === 'successful' || null,
      { timeoutMs: 20_000, what: 'the capture' },
    );
    const week1 = await posted([big.id, held.id]);
    // a refund of 3,000 of the big sale and the operator's +500, both owed from now (week 0)
    const refund: Any = await sdk().refunds.create(storeId(), big.id, { amount: 3000, currency: 'JPY' });
    expect((await sdk().refunds.poll(storeId(), big.id, refund.id)).status).toBe('successful');
    const adjusted = await suite.cli(
      'ledger:adjust',
      '--store',
      storeId(),
      '--amount',
      '500',
      '--currency',
      'JPY',
      '--reason',
      'goodwill for a late delivery',
      '--by',
      'ops',
    );
    await posted([refund.id]);

    // batch 2 (after 15 days): a bank transfer paid by a deposit of 7,000
    await configure({ wait_period: 'P15D' });
    const deposit = await depositCharge(7000);
    const week2 = await posted([deposit.id]);

    // batch 3 (after 22 days): a sale of 2,000
    await configure({ wait_period: 'P22D' });
    const last = await cardCharge(2000);
    const week3 = await posted([last.id]);
    expect([week1, week2, week3].map((at) => (at.getTime() - week0.getTime()) / DAY)).toEqual([7, 14, 21]);

    // week 0: 964 − 3,000 + 500 = −1,536: nothing paid, carried forward
    const first = await payoutWeek(week0);
    expect(first.ids).toEqual([]);
    expect(first.run).toMatchObject({ outcome: 'nothing_to_pay', amount: -1536n, transferId: null });

    // week 1: −1,536 + 9,640 + 2,892 = 10,996, paid
    const second = await payoutWeek(week1);
    expect(second.run).toMatchObject({ outcome: 'transfer', amount: 10_996n });
    expect(await sender.sendOnce()).toBe(1);
    const paid = await settled(second.run.transferId!, 'paid');
    expect(paid.amount).toBe(10_996n);

    // week 2: 6,748 to an account the bank finds closed: failed, its money back
    const closed = await account('7650000', true);
    const third = await payoutWeek(week2);
    expect(third.run).toMatchObject({ outcome: 'transfer', amount: 6748n });
    expect(await sender.sendOnce()).toBe(1);
    const failed = await settled(third.run.transferId!, 'failed');
    expect(failed).toMatchObject({ amount: 6748n, bankAccountId: closed.id, errorCode: 'ACCOUNT_CLOSED' });

    // week 3: 1,928 + the returned 6,748 = 8,676, paid to the new primary account
    const fresh = await account('7651234', true);
    const fourth = await payoutWeek(week3);
    expect(fourth.run).toMatchObject({ outcome: 'transfer', amount: 8676n });
    expect(await sender.sendOnce()).toBe(1);
    expect(await settled(fourth.run.transferId!, 'paid')).toMatchObject({
      amount: 8676n,
      bankAccountId: fresh.id,
    });

    // through the SDK: the three transfers, newest first, and the ledgers each pays
    const merchant = await merchantSdk();
    const transfers = (await merchant.transfers.list()).items;
    expect(transfers.map((t) => [t.amount, t.status])).toEqual([
      [8676, TransferStatus.PAID],
      [6748, TransferStatus.FAILED],
      [10_996, TransferStatus.PAID],
    ]);
    const ledgersOf = async (transferId: string) =>
      (await merchant.ledgers.list(transferId, { limit: 100 })).items
        .map((l) => l.amount)
        .sort((a, b) => a - b);
    expect(await ledgersOf(paid.id)).toEqual([-3000, 500, 964, 2892, 9640]);
    expect(await ledgersOf(failed.id)).toEqual([6748]);
    expect(await ledgersOf(fourth.run.transferId!)).toEqual([1928, 6748]);
    expect(adjusted).toBeTruthy();
    // nothing owed is left, and the books verify
    expect(await suite.cli('ledger:verify')).toMatchObject({ ok: true });
  }, 180_000);
});
