// Paying a transfer (issue 31; docs/ledger.md, "Paying a transfer"): the sender hands approved
// transfers to the simulator's test bank, which pays them or fails them (an account closed) and
// says so in a signed notice to the gateway; a paid transfer's money leaves transit, a failed one's
// returns to the balance and is paid on the next payout day, to the account the merchant gives.
// The real gateway (callbacks, the SDK), the simulator's bank over HTTP, the real Postgres; the
// engine's clock is its input.
import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { BankAccountType, TransferStatus } from 'univapay-node';
import { LedgerRepository, PayoutsRepository, PrismaService } from '@kessai/db';
import { owedToStore } from '@kessai/domain';
import { signProcessorCallback } from '@kessai/processor';
import { CapturedLog, eventually, maturedSale, sdkFor, settledTransfer, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { LedgerMetrics } from '../../apps/ledger-service/src/ledger-metrics';
import { PayoutEngine } from '../../apps/ledger-service/src/payout-engine';
import { PayoutSender } from '../../apps/ledger-service/src/payout-sender';

const suite = useSuite({
  simulator: (callbackSecret) =>
    startProcessorSimulator({ latencyMs: 0, callbackSecret, callbackRetryBaseDelayMs: 100 }),
  callbacks: true,
  gateway: createGatewayApp,
  merchants: { paid: {}, closed: {} },
});
type Name = keyof typeof suite.merchants;

const DAY = 86_400_000;
const week = (n: number) => new Date(Date.now() + (8 + 7 * n) * DAY);
let prisma: PrismaService;
let ledger: LedgerRepository;
let engine: PayoutEngine;
let sender: PayoutSender;
const log = new CapturedLog();

const sdkOf = async (name: Name) =>
  sdkFor(suite.url, await suite.env.merchantToken(suite.merchants[name], 'test'));
const account = (name: Name, accountNumber: string, primary = false) =>
  sdkOf(name).then((sdk) =>
    sdk.bankAccounts.create({
      accountNumber,
      country: 'JP',
      currency: 'JPY',
      holderName: `${name} KK`,
      bankName: 'Mizuho Bank',
      accountType: BankAccountType.CHECKING,
      primary,
    }),
  );

const sale = (name: Name, gross: bigint) => maturedSale(suite.merchants[name], gross);

async function available(name: Name) {
  const row = await suite.env.prisma.ledgerAccount.findFirst({
    where: { storeId: suite.merchants[name].store.id, kind: 'store_available' },
  });
  return owedToStore(row?.balance ?? 0n);
}
const platform = async (kind: 'payouts_in_transit' | 'processor_clearing') =>
  (await suite.env.prisma.ledgerAccount.findFirstOrThrow({ where: { kind, mode: 'test', currency: 'JPY' } }))
    .balance;

const transferOf = (name: Name, at: Date) =>
  eventually(
    async () => {
      const rows = await suite.env.prisma.transfer.findMany({
        where: { merchantId: suite.merchants[name].merchant.id },
        orderBy: { payoutDay: 'desc' },
      });
      return rows[0] && rows[0].periodTo < at ? rows[0] : null;
    },
    { what: `${name}'s transfer` },
  );
const settled = (id: string, status: 'paid' | 'failed') => settledTransfer(suite.env, id, status);

beforeAll(async () => {
  for (const name of ['paid', 'closed'] as const)
    await suite.cli(
      'merchant:configure',
      '--merchant',
      suite.merchants[name].merchant.id,
      '--set',
      JSON.stringify({ transfer_schedule: { period: 'weekly', day_of_week: 'monday' } }),
    );
  await account('paid', '1234567');
  await account('closed', '7650000');
  prisma = new PrismaService(suite.env.config);
  suite.cleanup(() => prisma.onModuleDestroy());
  ledger = new LedgerRepository(prisma);
  const payouts = new PayoutsRepository(prisma, ledger);
  const config = { ...suite.env.config, PROCESSOR_CALLBACK_BASE_URL: suite.url };
  engine = new PayoutEngine(payouts, new LedgerMetrics(new Registry()), log.logger('ledger-service'), config);
  sender = new PayoutSender(payouts, log.logger('ledger-service'), config);
}, 60_000);

describe('paying a transfer at the bank', () => {
  it('pays one, fails the other and returns its money, then pays that on the next payout day', async () => {
    await ledger.post([sale('paid', 8_000n), sale('closed', 6_000n)]);
    while ((await ledger.release(100)) > 0);
    const clearing = await platform('processor_clearing');
    await engine.runOnce(week(0));
    const [paid, closed] = [await transferOf('paid', week(0)), await transferOf('closed', week(0))];
    expect(await sender.sendOnce()).toBe(2);
    // nothing left to send: both are processing or settled already
    expect(await sender.sendOnce()).toBe(0);

    await settled(paid.id, 'paid');
    const failed = await settled(closed.id, 'failed');
    expect(failed).toMatchObject({ errorCode: 'ACCOUNT_CLOSED' });
    const sdk = await sdkOf('closed');
    expect(
      (await sdk.transfers.statusChanges(closed.id, { cursorDirection: 'asc' } as never)).items.map((c) => [
        c.oldStatus,
        c.newStatus,
      ]),
    ).toEqual([
      [TransferStatus.CREATED, TransferStatus.APPROVED],
      [TransferStatus.APPROVED, TransferStatus.PROCESSING],
      [TransferStatus.PROCESSING, TransferStatus.FAILED],
    ]);
    expect(await sdk.transfers.get(closed.id)).toMatchObject({
      status: TransferStatus.FAILED,
      errorCode: 'ACCOUNT_CLOSED',
    });

    // paid: out of transit and out of what the processor holds; failed: back to the store
    expect(await available('paid')).toBe(0n);
    expect(await available('closed')).toBe(6_000n);
    expect(await platform('payouts_in_transit')).toBe(0n);
    expect(await platform('processor_clearing')).toBe(clearing - 8_000n);

    // the merchant gives another account; the next payout day pays the returned money to it
    const fresh = await account('closed', '7651234', true);
    await engine.runOnce(week(1));
    const retried = await transferOf('closed', week(1));
    expect(retried).toMatchObject({ amount: 6_000n, bankAccountId: fresh.id });
    expect(retried.id).not.toBe(closed.id);
    await sender.sendOnce();
    await settled(retried.id, 'paid');
    expect(await available('closed')).toBe(0n);
    const covered = await suite.env.prisma.transferLedger.findMany({
      where: { transferId: { in: [closed.id, retried.id] } },
    });
    // the same sale, covered by the failed transfer and then by the one that paid it
    expect(new Set(covered.map((c) => c.ledgerTransactionId)).size).toBe(1);
    expect(covered).toHaveLength(2);
    expect(await ledger.verify()).toMatchObject({
      unbalancedTransactions: 0,
      unbalancedBooks: 0,
      wrongBalances: 0,
    });
  });

  it('refuses a notice that is not signed by the bank, and takes a repeated one as a repeat', async () => {
    const response = await fetch(`${suite.url}/processor/callbacks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-processor-signature': 't=1,v1=' + '0'.repeat(64) },
      body: JSON.stringify({
        id: 'x',
        event: 'payout',
        payout_id: 'p',
        reference: randomUUID(),
        status: 'failed',
        error_code: null,
        amount: 1,
        currency: 'JPY',
        occurred_on: new Date().toISOString(),
      }),
    });
    expect(response.status).toBe(401);
    // the bank's notice again (a retry): a repeat, nothing changes
    const paid = await suite.env.prisma.transfer.findFirstOrThrow({
      where: { merchantId: suite.merchants.paid.merchant.id },
      include: { statusChanges: true },
    });
    const again = JSON.stringify({
      id: randomUUID(),
      event: 'payout',
      payout_id: 'po_again',
      reference: paid.id,
      status: 'paid',
      error_code: null,
      amount: Number(paid.amount),
      currency: 'JPY',
      occurred_on: new Date().toISOString(),
    });
    const repeated = await fetch(`${suite.url}/processor/callbacks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-processor-signature': signProcessorCallback(again, suite.env.config.PROCESSOR_CALLBACK_SECRET),
      },
      body: again,
    });
    expect(repeated.status).toBeLessThan(300);
    const after = await suite.env.prisma.transfer.findUniqueOrThrow({
      where: { id: paid.id },
      include: { statusChanges: true },
    });
    expect(after.statusChanges).toHaveLength(paid.statusChanges.length);
    expect(
      await suite.env.prisma.ledgerTransaction.count({ where: { sourceId: paid.id, kind: 'payout_paid' } }),
    ).toBe(1);
    const stats = suite.simulator.stats();
    const payoutNotices = stats.callbacks.filter((c) => c.event === 'payout');
    expect(payoutNotices.length).toBeGreaterThanOrEqual(3);
    expect(payoutNotices.every((c) => c.delivered)).toBe(true);
  });
});
