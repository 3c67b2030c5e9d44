import { randomUUID } from 'node:crypto';
import {
  HttpPaymentProcessor,
  type OperatorPaymentRequest,
  PROCESSOR_SIGNATURE_HEADER,
  verifyProcessorCallback,
} from '@kessai/processor';
import { startCallbackReceiver, waitFor } from '@kessai/testing';
import { operationStats } from './simulator-state';
import { type ProcessorSimulator, startProcessorSimulator } from './start-simulator';

const CALLBACK_SECRET = 'operator-callback-secret';

describe('simulated online/QR operator', () => {
  let simulator: ProcessorSimulator;
  let processor: HttpPaymentProcessor;
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;

  const start = async (operatorPaymentTtlMs: number) => {
    simulator = await startProcessorSimulator({
      latencyMs: 0,
      callbackSecret: CALLBACK_SECRET,
      callbackRetryBaseDelayMs: 10,
      operatorPaymentTtlMs,
    });
    processor = new HttpPaymentProcessor({ baseUrl: simulator.url, timeoutMs: 1_000 });
  };
  /** The tests about expiry: a simulator whose payments expire after 250 ms. */
  const withShortTtl = async () => {
    await simulator.close();
    await start(250);
  };

  // payments that outlast any test's steps on a loaded machine (a 250 ms life once expired a
  // payment between its page being served and paid, in CI); the expiry tests take a short one
  beforeEach(() => start(60_000));
  afterEach(async () => {
    await simulator.close();
    await receiver?.close();
  });

  const request = (overrides: Partial<OperatorPaymentRequest> = {}): OperatorPaymentRequest => ({
    reference: randomUUID(),
    amount: 3000,
    currency: 'JPY',
    brand: 'pay_pay_online',
    callMethod: 'web',
    callbackUrl: receiver.url,
    ...overrides,
  });

  it('serves a payment page, marks it paid and calls back with a verifiable signature, retrying failures', async () => {
    receiver = await startCallbackReceiver([500, 503]);
    const create = request({ returnUrl: 'https://shop.example/thanks' });
    const payment = await processor.createOperatorPayment(create);
    expect(payment).toEqual({
      processorReference: expect.stringMatching(/^sim_pay_/),
      operatorPaymentId: expect.stringMatching(/^sim_op_/),
      paymentUrl: `${simulator.url}/operator/pay/${payment.operatorPaymentId}`,
      qrContent: payment.paymentUrl,
      callMethod: 'http_get',
      expiresAt: expect.any(Date),
    });
    expect(await processor.status(create.reference)).toMatchObject({
      found: true,
      payment: { kind: 'operator', status: 'awaiting_payment', amount: 3000 },
    });

    const page = await fetch(payment.paymentUrl);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('<form method="post">');
    expect(html).toContain('Pay');
    expect(html).toContain('3000 JPY');

    const paid = await fetch(payment.paymentUrl, {
      method: 'POST',
      body: new URLSearchParams({ action: 'pay' }),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://shop.example/thanks');

    await waitFor(() => receiver.received.length === 3, 2_000, 'three callback attempts');
    const notices = receiver.received.map((r) =>
      verifyProcessorCallback({
        rawBody: r.body,
        signatureHeader: r.headers[PROCESSOR_SIGNATURE_HEADER],
        secret: CALLBACK_SECRET,
      }),
    );
    expect(new Set(notices.map((n) => n.notificationId)).size).toBe(1);
    expect(notices[0]).toMatchObject({
      event: 'operator_payment',
      operatorPaymentId: payment.operatorPaymentId,
      processorReference: payment.processorReference,
      reference: create.reference,
      status: 'paid',
      amount: 3000,
    });
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({
      operator_payment_id: payment.operatorPaymentId,
      reference: create.reference,
      status: 'paid',
    });
    await waitFor(() => simulator.stats().callbacks[0]?.delivered === true, 1_000, 'delivery recorded');
    expect(simulator.stats().callbacks).toEqual([
      expect.objectContaining({
        reference: create.reference,
        status: 'paid',
        attempts: 3,
        delivered: true,
        lastStatus: 200,
      }),
    ]);
    expect(await processor.status(create.reference)).toMatchObject({
      payment: { status: 'captured', capturedAmount: 3000 },
    });

    // paying again changes nothing and sends nothing
    expect((await fetch(payment.paymentUrl, { method: 'POST' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(receiver.received).toHaveLength(3);
  });

  it('gives up calling back after the configured attempts', async () => {
    receiver = await startCallbackReceiver([500, 500, 500, 500, 500]);
    const payment = await processor.createOperatorPayment(request());
    await fetch(payment.paymentUrl, { method: 'POST' });
    await waitFor(() => simulator.stats().callbacks[0]?.attempts === 5, 2_000, 'five attempts');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(simulator.stats().callbacks[0]).toMatchObject({ attempts: 5, delivered: false, lastStatus: 500 });
  });

  it('creates one payment per reference however often it is asked', async () => {
    receiver = await startCallbackReceiver();
    const create = request();
    const first = await processor.createOperatorPayment(create);
    const again = await processor.createOperatorPayment(create);
    expect(again.operatorPaymentId).toBe(first.operatorPaymentId);
    expect(operationStats(simulator.stats(), 'create_operator_payment', create.reference)).toMatchObject({
      requests: 2,
      executions: 1,
    });
  });

  it('expires an unpaid payment, says so in a callback, and refuses to take it afterwards', async () => {
    await withShortTtl();
    receiver = await startCallbackReceiver();
    const create = request();
    const payment = await processor.createOperatorPayment(create);
    await waitFor(() => receiver.received.length === 1, 2_000, 'the expiry callback');
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({
      status: 'expired',
      reference: create.reference,
    });
    expect(await processor.status(create.reference)).toMatchObject({
      payment: { status: 'expired', error: { code: 327, message: 'CONFIRMATION_PERIOD_EXPIRED' } },
    });
    expect((await fetch(payment.paymentUrl)).status).toBe(410);
    expect((await fetch(payment.paymentUrl, { method: 'POST' })).status).toBe(410);
  });

  it('cancels an unpaid payment without a later expiry', async () => {
    await withShortTtl();
    receiver = await startCallbackReceiver();
    const create = request();
    const payment = await processor.createOperatorPayment(create);
    expect(
      await processor.void({ processorReference: payment.processorReference, idempotencyKey: randomUUID() }),
    ).toEqual({
      outcome: 'voided',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toHaveLength(0);
    expect(await processor.status(create.reference)).toMatchObject({ payment: { status: 'voided' } });
  });

  it('answers 404 for an unknown payment page', async () => {
    receiver = await startCallbackReceiver();
    expect((await fetch(`${simulator.url}/operator/pay/sim_op_nope`)).status).toBe(404);
  });
});
