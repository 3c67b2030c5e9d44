import { randomUUID } from 'node:crypto';
import {
  type DeferredPaymentRequest,
  HttpPaymentProcessor,
  PROCESSOR_SIGNATURE_HEADER,
  verifyProcessorCallback,
} from '@kessai/processor';
import { startCallbackReceiver, waitFor } from '@kessai/testing';
import { operationStats } from './simulator-state';
import { type ProcessorSimulator, startProcessorSimulator } from './start-simulator';

const CALLBACK_SECRET = 'deferred-callback-secret';

describe('simulated test bank and konbini network', () => {
  let simulator: ProcessorSimulator;
  let processor: HttpPaymentProcessor;
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;

  beforeEach(async () => {
    simulator = await startProcessorSimulator({
      latencyMs: 0,
      callbackSecret: CALLBACK_SECRET,
      callbackRetryBaseDelayMs: 10,
    });
    processor = new HttpPaymentProcessor({ baseUrl: simulator.url, timeoutMs: 1_000 });
    receiver = await startCallbackReceiver([]);
  });
  afterEach(async () => {
    await simulator.close();
    await receiver.close();
  });

  const request = (method: DeferredPaymentRequest['method']): DeferredPaymentRequest => ({
    reference: randomUUID(),
    amount: 5000,
    currency: 'JPY',
    method,
    expiresOn: new Date('2030-01-01T00:00:00.000Z'),
    callbackUrl: receiver.url,
  });

  const post = (path: string, body: unknown) =>
    fetch(`${simulator.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('opens a virtual account, takes transfers of any amount and notifies each one, signed', async () => {
    const create = request({ type: 'bank_transfer', brand: 'bank_test_brand' });
    const created = await processor.createDeferredPayment(create);
    expect(created.instructions).toEqual({
      type: 'bank_transfer',
      bankCode: '9999',
      bankName: 'Kessai Test Bank',
      branchCode: '101',
      branchName: 'Test Branch',
      accountId: expect.stringMatching(/^sim_va_/),
      accountNumber: expect.stringMatching(/^\d{7}$/),
      accountHolderName: 'KESSAI TEST',
      paymentUrl: expect.stringMatching(/\/bank\?account_number=\d{7}$/),
    });
    // repeated under the same key: the same account, executed once
    expect(await processor.createDeferredPayment(create)).toEqual(created);
    expect(operationStats(simulator.stats(), 'create_deferred_payment', create.reference).executions).toBe(1);

    const accountNumber =
      created.instructions.type === 'bank_transfer' ? created.instructions.accountNumber : '';
    expect((await post('/bank/transfers', { account_number: accountNumber, amount: 3000 })).status).toBe(200);
    expect((await post('/bank/transfers', { account_number: accountNumber, amount: 2000 })).status).toBe(200);
    expect((await post('/bank/transfers', { account_number: '0000000', amount: 1 })).status).toBe(404);
    expect((await post('/bank/transfers', { account_number: accountNumber, amount: -1 })).status).toBe(400);

    const found = await processor.status(create.reference);
    expect(found).toMatchObject({
      found: true,
      payment: { kind: 'bank_transfer', status: 'awaiting_payment' },
    });
    expect(found.found && found.payment.deposits.map((d) => d.amount)).toEqual([3000, 2000]);

    await waitFor(() => receiver.received.length === 2);
    const notices = receiver.received.map((r) =>
      verifyProcessorCallback({
        rawBody: r.body,
        signatureHeader: r.headers[PROCESSOR_SIGNATURE_HEADER],
        secret: CALLBACK_SECRET,
      }),
    );
    expect(notices).toEqual([
      expect.objectContaining({ event: 'deferred_payment', reference: create.reference, amount: 3000 }),
      expect.objectContaining({ event: 'deferred_payment', reference: create.reference, amount: 2000 }),
    ]);
  });

  it('gives a konbini payment code and slip, and refuses money once the payment is voided', async () => {
    const create = request({
      type: 'konbini',
      convenienceStore: 'seven_eleven',
      customerName: 'Yamada Taro',
      phoneNumber: '+81 90 1234 5678',
    });
    const created = await processor.createDeferredPayment(create);
    expect(created.instructions).toMatchObject({ type: 'konbini', convenienceStore: 'seven_eleven' });
    const code = created.instructions.type === 'konbini' ? created.instructions.paymentCode : '';
    expect(code).toMatch(/^\d{12}$/);
    const slip = await fetch(created.instructions.type === 'konbini' ? created.instructions.paymentUrl : '');
    expect(slip.status).toBe(200);
    expect(await slip.text()).toContain(`data-payment-code="${code}"`);

    // a code is not an account number
    expect((await post('/bank/transfers', { account_number: code, amount: 5000 })).status).toBe(404);
    const form = await fetch(`${simulator.url}/konbini/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ payment_code: code, amount: '5000' }).toString(),
    });
    expect(form.status).toBe(200);

    expect(
      await processor.void({ processorReference: created.processorReference, idempotencyKey: 'v1' }),
    ).toEqual({
      outcome: 'voided',
    });
    expect((await post('/konbini/payments', { payment_code: code, amount: 5000 })).status).toBe(410);
    const found = await processor.status(create.reference);
    expect(found.found && found.payment.deposits.map((d) => d.amount)).toEqual([5000]);
  });
});
