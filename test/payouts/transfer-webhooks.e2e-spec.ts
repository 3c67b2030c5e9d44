// Transfer webhooks (issue 31; docs/ledger.md, "Transfer webhooks"; decision 0052): every status
// change of a merchant's transfer is announced once to its merchant-level webhooks, written through
// the outbox with the change itself and delivered signed like every event: transfer_created when it
// is made, transfer_updated when approved or sent to the bank, transfer_finalized when paid, failed
// or canceled. The real gateway (the webhook through the SDK, the bank's signed notices), the
// simulator's test bank over HTTP, a webhook-service process over BullMQ, Postgres and Redis, a local
// receiver verified with the `standardwebhooks` package; the payout engine's clock is its input.
import { Registry } from 'prom-client';
import { BankAccountType, TransferStatus, WebHookTrigger } from 'univapay-node';
import { LedgerRepository, PayoutsRepository, PrismaService } from '@kessai/db';
import {
  CapturedLog,
  eventually,
  maturedSale,
  sdkFor,
  useSuite,
  verifiedWebhook,
  WebhookReceiver,
} from '@kessai/testing';
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
  merchants: { paid: {}, closed: {}, canceled: {} },
  workers: ['webhook-service'],
  workerVariables: { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_JITTER: '0' },
});
type Name = keyof typeof suite.merchants;

const TRIGGERS = [
  WebHookTrigger.TRANSFER_CREATED,
  WebHookTrigger.TRANSFER_UPDATED,
  WebHookTrigger.TRANSFER_FINALIZED,
];
const DAY = 86_400_000;
const payoutAt = new Date(Date.now() + 8 * DAY);
let receiver: WebhookReceiver;
let ledger: LedgerRepository;
let engine: PayoutEngine;
let sender: PayoutSender;
const secrets = {} as Record<Name, string>;
const log = new CapturedLog();

const sdkOf = async (name: Name) =>
  sdkFor(suite.url, await suite.env.merchantToken(suite.merchants[name], 'test'));

const sale = (name: Name, gross: bigint) => maturedSale(suite.merchants[name], gross);

const transferOf = async (name: Name) =>
  suite.env.prisma.transfer.findFirstOrThrow({ where: { merchantId: suite.merchants[name].merchant.id } });

/** What the receiver got on a merchant's path: each delivery verified, as [event, transfer, status]. */
const announced = (name: Name) =>
  receiver.of(`/${name}`).map((request) => {
    const delivery = verifiedWebhook(secrets[name], request);
    return { id: delivery.id, event: delivery.event, data: delivery.data };
  });

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
  for (const name of Object.keys(suite.merchants) as Name[]) {
    await suite.cli(
      'merchant:configure',
      '--merchant',
      suite.merchants[name].merchant.id,
      '--set',
      JSON.stringify({ transfer_schedule: { period: 'weekly', day_of_week: 'monday' } }),
    );
    const sdk = await sdkOf(name);
    await sdk.bankAccounts.create({
      // the test bank fails a payout to a number ending 0000 (an account closed)
      accountNumber: name === 'closed' ? '7650000' : '1234567',
      country: 'JP',
      currency: 'JPY',
      holderName: `${name} KK`,
      bankName: 'Mizuho Bank',
      accountType: BankAccountType.CHECKING,
    });
    // the merchant's own webhook (no store): the merchant-level triggers
    const webhook: { signingSecret: string } = (await sdk.webHooks.create({
      triggers: TRIGGERS,
      url: `${receiver.url}/${name}`,
    })) as never;
    secrets[name] = webhook.signingSecret;
  }
  const prisma = new PrismaService(suite.env.config);
  suite.cleanup(() => prisma.onModuleDestroy());
  ledger = new LedgerRepository(prisma);
  const payouts = new PayoutsRepository(prisma, ledger);
  const config = { ...suite.env.config, PROCESSOR_CALLBACK_BASE_URL: suite.url };
  engine = new PayoutEngine(payouts, new LedgerMetrics(new Registry()), log.logger('ledger-service'), config);
  sender = new PayoutSender(payouts, log.logger('ledger-service'), config);
}, 60_000);

describe('transfer webhooks', () => {
  it("announces each change of a transfer's status once, signed, to the merchant's own webhook", async () => {
    await ledger.post([sale('paid', 8_000n), sale('closed', 6_000n), sale('canceled', 3_000n)]);
    while ((await ledger.release(100)) > 0);
    await engine.runOnce(payoutAt);
    const [paid, closed, canceled] = await Promise.all([
      transferOf('paid'),
      transferOf('closed'),
      transferOf('canceled'),
    ]);
    // canceled by the operator before it is sent; the others sent, one paid and one failed by the bank
    await suite.cli('transfer:cancel', '--id', canceled.id, '--by', 'ops', '--reason', 'held');
    expect(await sender.sendOnce()).toBe(2);

    const expected: Record<Name, [string, string][]> = {
      paid: [
        ['transfer_created', paid.id],
        ['transfer_updated', paid.id],
        ['transfer_updated', paid.id],
        ['transfer_finalized', paid.id],
      ],
      closed: [
        ['transfer_created', closed.id],
        ['transfer_updated', closed.id],
        ['transfer_updated', closed.id],
        ['transfer_finalized', closed.id],
      ],
      canceled: [
        ['transfer_created', canceled.id],
        ['transfer_updated', canceled.id],
        ['transfer_finalized', canceled.id],
      ],
    };
    for (const name of Object.keys(expected) as Name[])
      await eventually(() => announced(name).length >= expected[name].length || null, {
        timeoutMs: 20_000,
        what: `${name}'s transfer events`,
      });
    // every event delivered by webhook-service is settled: none waits for a try
    await eventually(
      async () =>
        (await suite.env.prisma.webhookDelivery.count({ where: { status: { not: 'delivered' } } })) === 0 ||
        null,
      { what: 'the deliveries to settle' },
    );

    for (const name of Object.keys(expected) as Name[]) {
      const got = announced(name);
      // once each: as many deliveries as the outbox holds events of the transfer, each its own
      const events = await suite.env.prisma.outboxEvent.findMany({
        where: { aggregateId: expected[name][0][1] },
        orderBy: { sequence: 'asc' },
      });
      expect(events.map((e) => [e.eventType, e.aggregateId])).toEqual(expected[name]);
      expect(new Set(got.map((d) => d.id)).size).toBe(got.length);
      expect(got.map((d) => [d.event, d.data.id]).sort()).toEqual([...expected[name]].sort());
      // the events' own record of the change: the status moved to
      expect(events.map((e) => (e.payload as { status: string }).status)).toEqual(
        name === 'canceled'
          ? ['created', 'approved', 'canceled']
          : ['created', 'approved', 'processing', name === 'paid' ? 'paid' : 'failed'],
      );
    }
    // the data is the Transfer as GET /transfers/{id} answers it; finalized shows the end
    const finalOf = (name: Name) => announced(name).find((d) => d.event === 'transfer_finalized')!.data;
    expect(finalOf('paid')).toMatchObject({ id: paid.id, status: TransferStatus.PAID, amount: 8000 });
    expect(finalOf('closed')).toMatchObject({
      id: closed.id,
      status: TransferStatus.FAILED,
      error_code: 'ACCOUNT_CLOSED',
    });
    expect(finalOf('canceled')).toMatchObject({ id: canceled.id, status: TransferStatus.CANCELED });
    // one merchant's transfers never reach another's webhook
    expect(announced('paid').every((d) => d.data.merchant_id === suite.merchants.paid.merchant.id)).toBe(
      true,
    );
  }, 90_000);
});
