import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents } from 'bullmq';
import { CardNumber, SensitiveCardData } from '@kessai/cards';
import {
  CAPTURE_REQUESTED,
  CHARGE_FINISHED,
  CHARGE_REQUESTED,
  CHARGE_UPDATED,
  CHARGES_QUEUE,
} from '@kessai/contracts';
import { CapturesRepository, ConsoleAuditRepository, type Prisma } from '@kessai/db';
import { HttpPaymentProcessor } from '@kessai/processor';
import { bullOptions, startWorkerService, type RunningWorkerService } from '@kessai/runtime';
import {
  insertCardToken,
  insertPendingCharge,
  useSuite,
  waitForChargeStatus,
  type PendingChargeOptions,
} from '@kessai/testing';
import { PendingCvvStore } from '@kessai/vault';
import { ChargesProcessor } from '../../apps/charge-service/src/charges.processor';
import { ChargeServiceModule } from '../../apps/charge-service/src/charge-service.module';
import { processorCallbackUrl } from '@kessai/processor';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { operationStats } from '../../apps/processor-simulator/src/simulator-state';

const suite = useSuite({
  simulator: (callbackSecret) =>
    startProcessorSimulator({
      latencyMs: 0,
      timeoutHoldMs: 5_000,
      // one more 503 than PROCESSOR_MAX_ATTEMPTS: the 5xx card outlasts the first job's retries
      unavailableAttempts: 5,
      callbackMaxAttempts: 1,
      callbackTimeoutMs: 200,
      callbackSecret,
    }),
  variables: {
    PROCESSOR_TIMEOUT_MS: '300',
    PROCESSOR_MAX_ATTEMPTS: '4',
    CHARGE_SWEEP_INTERVAL_MS: '100',
    CHARGE_JOB_LOCK_MS: '2000',
  },
  merchants: { shop: { label: 'charges' } },
});
let service: RunningWorkerService;
let queue: Queue;
let queueEvents: QueueEvents;
let cvvs: PendingCvvStore;
let merchantId: string;
let storeId: string;

beforeAll(async () => {
  ({
    merchant: { id: merchantId },
    store: { id: storeId },
  } = suite.merchants.shop);
  queue = new Queue(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  queueEvents = new QueueEvents(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => queueEvents.close());
  await queueEvents.waitUntilReady();
  // stopped before the queue is emptied and closed
  service = await startWorkerService({
    name: 'charge-service',
    config: suite.env.config,
    healthPort: 0,
    imports: [ChargeServiceModule],
    processors: [ChargesProcessor],
  });
  suite.cleanup(() => service.stop());
  cvvs = service.app.get(PendingCvvStore);
}, 60_000);

async function cardToken(number: string, cvv: string | null = '123'): Promise<string> {
  const id = await insertCardToken(
    suite.env,
    { merchantId, storeId },
    { cardNumber: number, type: 'recurring' },
  );
  if (cvv) await cvvs.put(id, cvv);
  return id;
}

async function token(paymentType: 'qr_scan' | 'online', data: Prisma.InputJsonObject): Promise<string> {
  const row = await suite.env.prisma.transactionToken.create({
    data: { merchantId, storeId, mode: 'test', type: 'one_time', paymentType, data },
  });
  return row.id;
}

/** A pending charge and its charge_requested command, as the gateway writes them. */
function createCharge(tokenId: string, options: PendingChargeOptions = {}): Promise<string> {
  return insertPendingCharge(suite.env, { merchantId, storeId }, tokenId, options);
}

/** What the gateway records when the processor posts a notice about the charge. */
async function noticeReceived(chargeId: string) {
  await suite.env.prisma.outboxEvent.create({
    data: {
      merchantId,
      storeId,
      aggregateType: 'charge',
      aggregateId: chargeId,
      eventType: 'processor_notice_received',
      payload: { charge_id: chargeId },
    },
  });
}

function waitForStatus(chargeId: string, status: string, timeoutMs = 15_000) {
  return waitForChargeStatus(suite.env, chargeId, status, { timeoutMs });
}

function events(chargeId: string, eventType: string) {
  return suite.env.prisma.outboxEvent.findMany({ where: { aggregateId: chargeId, eventType } });
}

function executions(chargeId: string, operation: 'authorize' | 'create_operator_payment' = 'authorize') {
  return operationStats(suite.simulator.stats(), operation, chargeId).executions;
}

describe('charge processing', () => {
  it('approves a card: successful with charged_*, one execution, one charge_finished, CVV gone', async () => {
    const tokenId = await cardToken('4242424242424242');
    const id = await createCharge(tokenId, { amount: 4200 });
    const charge = await waitForStatus(id, 'successful');
    expect(charge).toMatchObject({
      chargedAmount: 4200n,
      chargedCurrency: 'JPY',
      errorCode: null,
      processorReference: expect.stringMatching(/^sim_pay_/) as string,
    });
    expect(executions(id)).toBe(1);
    const finished = await events(id, CHARGE_FINISHED);
    expect(finished).toHaveLength(1);
    expect(finished[0].payload).toEqual({ charge_id: id, store_id: storeId, status: 'successful' });
    // the CVV served its one authorization
    expect(await cvvs.take(tokenId)).toBeNull();
  });

  it.each([
    ['4111111111111111', 306, 'CARD_REJECTED'],
    ['4000000000009995', 330, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
    ['4000000000000069', 304, 'CARD_EXPIRED'],
    ['4000000000000127', 305, 'CARD_CVV_INVALID'],
  ])('declines card %s: failed with the payment error %i', async (number, code, message) => {
    const id = await createCharge(await cardToken(number));
    const charge = await waitForStatus(id, 'failed');
    expect(charge).toMatchObject({ errorCode: code, errorMessage: message, chargedAmount: null });
    expect(executions(id)).toBe(1);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('timeout card: the retry finds the approval, executed once', async () => {
    const id = await createCharge(await cardToken('4000000000000408'));
    await waitForStatus(id, 'successful');
    const stats = operationStats(suite.simulator.stats(), 'authorize', id);
    expect(stats.executions).toBe(1);
    expect(stats.requests).toBeGreaterThan(1);
  });

  it('5xx card past the batch job retries: handed to a job of its own, successful, executed once', async () => {
    const id = await createCharge(await cardToken('4000000000040503'));
    await waitForStatus(id, 'successful');
    // 4 attempts in the batch job (all 503), then its own job: a 5th 503 and the approval
    expect(operationStats(suite.simulator.stats(), 'authorize', id)).toMatchObject({
      requests: 6,
      executions: 1,
    });
    const own = await queue.getJob(`process_charge.${id}.retry`);
    expect(own?.data).toMatchObject({ aggregateId: id, eventType: CHARGE_REQUESTED });
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('one process_charges job: every pending charge recorded once, final ones and repeats left alone', async () => {
    const approved = await createCharge(await cardToken('4242424242424242'), { requested: false });
    const declined = await createCharge(await cardToken('4111111111111111'), { requested: false });
    const live = await createCharge(await cardToken('4242424242424242'), { mode: 'live', requested: false });
    const done = await createCharge(await cardToken('4242424242424242'), { requested: false });
    await suite.env.prisma.charge.update({ where: { id: done }, data: { status: 'failed', errorCode: 306 } });
    const cause = randomUUID();
    await suite.env.prisma.outboxEvent.create({
      data: {
        id: cause,
        merchantId,
        aggregateType: 'charge',
        aggregateId: approved,
        eventType: CHARGE_REQUESTED,
        correlationId: 'req-batch',
        publishedOn: new Date(), // this test publishes it itself
      },
    });
    const event = (chargeId: string, eventId = randomUUID()) => ({
      eventId,
      eventType: CHARGE_REQUESTED,
      aggregateId: chargeId,
    });
    const job = await queue.add(
      'process_charges',
      { events: [event(approved, cause), event(declined), event(live), event(done), event(approved)] },
      { jobId: `batch-test.${approved}` },
    );
    await job.waitUntilFinished(queueEvents, 15_000);

    await waitForStatus(approved, 'successful');
    await waitForStatus(declined, 'failed');
    expect(await waitForStatus(live, 'error')).toMatchObject({ errorCode: 309 });
    expect(await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: done } })).toMatchObject({
      status: 'failed',
      errorCode: 306,
    });
    expect([executions(approved), executions(declined), executions(live), executions(done)]).toEqual([
      1, 1, 0, 0,
    ]);
    const finished = await events(approved, CHARGE_FINISHED);
    expect(finished).toHaveLength(1);
    expect(finished[0]?.correlationId).toBe('req-batch');
    for (const id of [declined, live]) expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
    expect(await events(done, CHARGE_FINISHED)).toHaveLength(0);
    // not a charge this service finished: out of the suite's final count
    await suite.env.prisma.charge.delete({ where: { id: done } });
  });

  it('3-D Secure: awaiting with the issuer page, authenticated, reconciled to successful', async () => {
    const id = await createCharge(await cardToken('4000000000003220'), {
      threeDs: { mode: 'normal', redirect_endpoint: 'https://shop.example/back' },
    });
    const awaiting = await waitForStatus(id, 'awaiting');
    const issuer = awaiting.threeDsIssuerToken as { issuer_token: string; call_method: string };
    expect(issuer).toMatchObject({ call_method: 'http_get', payment_type: 'card' });
    expect(issuer.issuer_token).toMatch(/\/3ds\/sim_pay_/);
    expect(awaiting.expiresOn!.getTime()).toBeGreaterThan(Date.now());
    expect(await events(id, CHARGE_UPDATED)).toHaveLength(1);

    const page = await fetch(issuer.issuer_token, {
      method: 'POST',
      body: new URLSearchParams({ result: 'authenticated' }),
      redirect: 'manual',
    });
    expect(page.status).toBe(303);
    await noticeReceived(id);
    const charge = await waitForStatus(id, 'successful');
    expect(charge.chargedAmount).toBe(1000n);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
    expect(executions(id)).toBe(1);
  });

  it.each([
    ['280000000000000001', 'successful', null],
    ['280000000000000002', 'failed', 340],
    ['280000000000000003', 'failed', 330],
    ['280000000000000004', 'failed', 323],
    ['999', 'failed', 322],
  ])('qr_scan code %s: %s', async (code, status, errorCode) => {
    const id = await createCharge(await token('qr_scan', { brand: null, scanned_qr: code }));
    const charge = await waitForStatus(id, status);
    expect(charge.errorCode).toBe(errorCode);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('online: awaiting with the payment URL, paid at the operator, reconciled to successful', async () => {
    const tokenId = await token('online', { brand: 'pay_pay_online', call_method: 'http_get' });
    const id = await createCharge(tokenId, { redirect: { endpoint: 'https://shop.example/done' } });
    const awaiting = await waitForStatus(id, 'awaiting');
    const issuer = awaiting.issuerToken as { issuer_token: string; call_method: string };
    expect(issuer).toMatchObject({ call_method: 'http_get', payment_type: 'online' });
    expect(issuer.issuer_token).toMatch(/\/operator\/pay\/sim_op_/);

    const paid = await fetch(issuer.issuer_token, { method: 'POST', redirect: 'manual' });
    expect(paid.status).toBe(303);
    await noticeReceived(id);
    const charge = await waitForStatus(id, 'successful');
    expect(charge.chargedAmount).toBe(1000n);
    expect(executions(id, 'create_operator_payment')).toBe(1);
    expect(await events(id, CHARGE_UPDATED)).toHaveLength(1);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('online, unpaid past its expiry: voided and failed 327 by the sweeper', async () => {
    const id = await createCharge(
      await token('online', { brand: 'pay_pay_online', call_method: 'http_get' }),
    );
    await waitForStatus(id, 'awaiting');
    await suite.env.prisma.charge.update({
      where: { id },
      data: { expiresOn: new Date(Date.now() - 1_000) },
    });
    const charge = await waitForStatus(id, 'failed');
    expect(charge).toMatchObject({ errorCode: 327, errorMessage: 'CONFIRMATION_PERIOD_EXPIRED' });
    expect(operationStats(suite.simulator.stats(), 'void', `expiry-${id}`).executions).toBe(1);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('3-D Secure never completed: failed 358 once expired', async () => {
    const id = await createCharge(await cardToken('4000000000003220'));
    await waitForStatus(id, 'awaiting');
    await suite.env.prisma.charge.update({
      where: { id },
      data: { expiresOn: new Date(Date.now() - 1_000) },
    });
    const charge = await waitForStatus(id, 'failed');
    expect(charge).toMatchObject({ errorCode: 358, errorMessage: 'THREE_DS_COULD_NOT_BE_COMPLETED' });
  });

  it('a live charge without a live processor ends in error 309, never reaching anyone', async () => {
    const id = await createCharge(await cardToken('4242424242424242'), { mode: 'live' });
    const charge = await waitForStatus(id, 'error');
    expect(charge).toMatchObject({ errorCode: 309, errorMessage: 'PROCESSING_ERROR' });
    expect(charge.errorDetail).toMatch(/no live processor/);
    expect(operationStats(suite.simulator.stats(), 'authorize', id).requests).toBe(0);
  });

  it('capture=false: authorized with charge_updated, then a partial capture makes it successful', async () => {
    const id = await createCharge(await cardToken('5555555555554444'), { amount: 5000, capture: false });
    const authorized = await waitForStatus(id, 'authorized');
    expect(authorized).toMatchObject({ captureStatus: 'authorized', chargedAmount: null });
    expect(await events(id, CHARGE_UPDATED)).toHaveLength(1);

    const captures = new CapturesRepository(suite.env.prisma, new ConsoleAuditRepository(suite.env.prisma));
    const requested = await captures.requestCapture({ chargeId: id, amount: 3000n, currency: 'JPY' });
    expect(requested.outcome).toBe('created');
    const charge = await waitForStatus(id, 'successful');
    expect(charge).toMatchObject({ captureStatus: 'captured', chargedAmount: 3000n, chargedCurrency: 'JPY' });
    expect(await captures.findByCharge(id)).toMatchObject({ status: 'successful', amount: 3000n });
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
    if (requested.outcome !== 'created') return;
    expect(operationStats(suite.simulator.stats(), 'capture', requested.captureId).executions).toBe(1);
  });

  it('capture_at in the past: the sweeper captures the full amount', async () => {
    const id = await createCharge(await cardToken('4000056655665556'), {
      amount: 2500,
      capture: false,
      captureAt: new Date(Date.now() - 1_000),
    });
    const charge = await waitForStatus(id, 'successful');
    expect(charge).toMatchObject({ captureStatus: 'captured', chargedAmount: 2500n });
    expect(await events(id, CAPTURE_REQUESTED)).toHaveLength(1);
    expect(await events(id, CHARGE_UPDATED)).toHaveLength(1);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('a job delivered twice at once: one processor execution, one event', async () => {
    const id = await createCharge(await cardToken('4000000000000408'), { requested: false });
    const data = { aggregateId: id, eventType: CHARGE_REQUESTED };
    const twice = await queue.addBulk([
      { name: 'process_charge', data, opts: { jobId: `twice-a.${id}` } },
      { name: 'process_charge', data, opts: { jobId: `twice-b.${id}` } },
    ]);
    // both finished, the slower one too
    await Promise.all(twice.map((job) => job.waitUntilFinished(queueEvents, 15_000)));
    expect(await waitForStatus(id, 'successful')).toBeTruthy();
    const again = await queue.add('process_charge', data, { jobId: `twice-c.${id}` });
    await again.waitUntilFinished(queueEvents, 15_000);
    expect(executions(id)).toBe(1);
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('a lost job after the processor executed: the sweeper re-runs it, recorded from the first answer', async () => {
    const tokenId = await cardToken('4242424242424242', null);
    const id = await createCharge(tokenId, { requested: false });
    // what a worker sent before dying without recording anything, its job lost with it
    const processor = new HttpPaymentProcessor({ baseUrl: suite.simulator.url });
    const card = new SensitiveCardData({
      cardNumber: CardNumber.fromDigits('4242424242424242'),
      cvv: '123',
      expMonth: 12,
      expYear: new Date().getUTCFullYear() + 3,
      cardholder: 'TARO YAMADA',
    });
    const first = await processor.authorize({
      reference: id,
      amount: 1000,
      currency: 'JPY',
      capture: true,
      paymentMethod: { type: 'card', card },
      threeDs: { mode: 'normal', callbackUrl: processorCallbackUrl(suite.env.config) },
    });
    expect(first.outcome).toBe('approved');
    await suite.env.prisma
      .$executeRaw`UPDATE charges SET updated_on = now() - interval '1 hour' WHERE id = ${id}::uuid`;

    const charge = await waitForStatus(id, 'successful');
    expect(charge.processorReference).toBe(first.processorReference);
    expect(operationStats(suite.simulator.stats(), 'authorize', id)).toMatchObject({
      requests: 2,
      executions: 1,
    });
    expect(await events(id, CHARGE_FINISHED)).toHaveLength(1);
  });

  it('every charge of the suite was finished exactly once', async () => {
    const rows = await suite.env.prisma.$queryRaw<{ id: string; status: string; finished: number }[]>`
      SELECT c.id::text AS id, c.status::text AS status,
             (SELECT count(*)::int FROM outbox_events e
               WHERE e.aggregate_id = c.id AND e.event_type = 'charge_finished') AS finished
        FROM charges c`;
    expect(rows.length).toBeGreaterThanOrEqual(20);
    const final = ['successful', 'failed', 'error'];
    expect(rows.filter((row) => !final.includes(row.status) || row.finished !== 1)).toEqual([]);
  });
});
