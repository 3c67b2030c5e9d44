import { randomUUID } from 'node:crypto';
import { isTestCard, TEST_CARDS, testCardFor } from '@kessai/cards';
import {
  type ApplePayPaymentData,
  type AuthorizeRequest,
  HttpPaymentProcessor,
  PAIDY_TEST_CONSUMERS,
  PAIDY_TEST_PUBLIC_KEY,
  ProcessorRequestRejectedError,
  TransientProcessorError,
  verifyProcessorCallback,
  withProcessorRetries,
} from '@kessai/processor';
import {
  cardNumberEndingIn,
  cardWith,
  ordinaryCardNumber,
  startCallbackReceiver,
  waitFor,
} from '@kessai/testing';
import { operationStats } from './simulator-state';
import { type ProcessorSimulator, startProcessorSimulator } from './start-simulator';

// well above a loaded machine's answer time (150 ms once timed out an ordinary first request in CI),
// well below the timeout card's hold
const CLIENT_TIMEOUT_MS = 1_000;

let simulator: ProcessorSimulator;
let processor: HttpPaymentProcessor;

beforeAll(async () => {
  simulator = await startProcessorSimulator({ latencyMs: 0, timeoutHoldMs: 4_000, unavailableAttempts: 2 });
  processor = new HttpPaymentProcessor({ baseUrl: simulator.url, timeoutMs: CLIENT_TIMEOUT_MS });
});
afterAll(() => simulator.close());

function cardAuthorization(number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    reference: randomUUID(),
    amount: 1000,
    currency: 'JPY',
    capture: true,
    paymentMethod: { type: 'card', card: cardWith(number) },
    ...overrides,
  };
}

describe('authorization outcomes by test card', () => {
  it.each([
    ['approved', '4000056655665556'],
    ['refund_fails', '4242424242424242'],
    ['void_fails', '4012888888881881'],
    ['approved (amex)', '378282246310005'],
    ['approved (jcb)', '3530111333300000'],
  ])('%s card %s is approved and captured', async (_outcome, number) => {
    const result = await processor.authorize(cardAuthorization(number));
    expect(result).toEqual({
      outcome: 'approved',
      processorReference: expect.stringMatching(/^sim_pay_/),
      captured: true,
    });
  });

  it('holds the amount without capturing when capture is false', async () => {
    const request = cardAuthorization('4000056655665556', { capture: false });
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'approved', captured: false });
    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'authorized', amount: 1000, capturedAmount: 0, kind: 'card' },
    });
  });

  it.each([
    ...TEST_CARDS.filter((c) => c.outcome === 'declined').map(
      (c) => [c.number, 306, 'CARD_REJECTED'] as const,
    ),
    [testCardFor('insufficient_funds').number, 330, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'] as const,
    [testCardFor('expired_at_processor').number, 304, 'CARD_EXPIRED'] as const,
    [testCardFor('cvv_check_fails').number, 305, 'CARD_CVV_INVALID'] as const,
  ])('%s is declined with %i %s', async (number, code, message) => {
    const request = cardAuthorization(number);
    expect(await processor.authorize(request)).toEqual({
      outcome: 'declined',
      processorReference: expect.any(String),
      error: { code, message, detail: expect.any(String) },
    });
    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'declined' },
    });
  });

  it('declines an ordinary card past its expiry date', async () => {
    const request = cardAuthorization('4000056655665556');
    request.paymentMethod = { type: 'card', card: cardWith('4000056655665556', { expYear: 2020 }) };
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'declined', error: { code: 304 } });
  });

  it('asks for 3-D Secure on the 3DS card with an issuer token on the simulator', async () => {
    const result = await processor.authorize(cardAuthorization(testCardFor('three_ds_required').number));
    expect(result).toEqual({
      outcome: 'three_ds_required',
      processorReference: expect.any(String),
      threeDs: {
        issuerToken: expect.stringMatching(new RegExp(`^${simulator.url}/3ds/sim_pay_`)),
        callMethod: 'http_get',
        payload: {},
        contentType: expect.stringContaining('application/x-www-form-urlencoded'),
      },
    });
  });
});

// UnivaPay's test environment: any valid number outside the catalogue follows its last four digits
describe('numbers outside the catalogue', () => {
  const refundOf = (processorReference: string, amount = 100) =>
    processor.refund({ processorReference, idempotencyKey: randomUUID(), amount, currency: 'JPY' });
  const voidOf = (processorReference: string) =>
    processor.void({ processorReference, idempotencyKey: randomUUID() });

  it.each([
    ['visa', '4539', 16],
    ['mastercard', '5425', 16],
    ['jcb', '3530', 16],
    ['american_express', '3714', 15],
  ] as const)(
    '%s: a number ending 1111 is declined with 306 CARD_REJECTED',
    async (_brand, prefix, length) => {
      const number = cardNumberEndingIn('1111', { prefix, length });
      expect(isTestCard(number)).toBe(false);
      const request = cardAuthorization(number);
      expect(await processor.authorize(request)).toEqual({
        outcome: 'declined',
        processorReference: expect.any(String),
        error: { code: 306, message: 'CARD_REJECTED', detail: expect.any(String) },
      });
      expect(await processor.status(request.reference)).toMatchObject({ payment: { status: 'declined' } });
    },
  );

  it('one ending 4242 is approved, but its refund fails; its void works', async () => {
    const number = cardNumberEndingIn('4242', { prefix: '5425' });
    expect(isTestCard(number)).toBe(false);
    const captured = await processor.authorize(cardAuthorization(number));
    expect(captured).toMatchObject({ outcome: 'approved', captured: true });
    expect(await refundOf(captured.processorReference)).toEqual({
      outcome: 'rejected',
      error: { code: 329, message: 'REFUND_FAILED', detail: 'the issuer refused the refund' },
    });
    const authorized = await processor.authorize(cardAuthorization(number, { capture: false }));
    expect(await voidOf(authorized.processorReference)).toEqual({ outcome: 'voided' });
  });

  it('one ending 1881 is approved, but its void fails; its refund works', async () => {
    const number = cardNumberEndingIn('1881', { prefix: '3530' });
    expect(isTestCard(number)).toBe(false);
    const authorized = await processor.authorize(cardAuthorization(number, { capture: false }));
    expect(authorized).toMatchObject({ outcome: 'approved', captured: false });
    expect(await voidOf(authorized.processorReference)).toEqual({
      outcome: 'rejected',
      error: {
        code: 312,
        message: 'CANCEL_UNAVAILABLE',
        detail: 'the issuer refused to cancel this payment',
      },
    });
    const captured = await processor.authorize(cardAuthorization(number));
    expect(await refundOf(captured.processorReference)).toMatchObject({ outcome: 'refunded', amount: 100 });
  });

  it('any other valid number is approved, and refunds and voids work', async () => {
    const number = ordinaryCardNumber();
    const captured = await processor.authorize(cardAuthorization(number));
    expect(captured).toMatchObject({ outcome: 'approved', captured: true });
    expect(await refundOf(captured.processorReference)).toMatchObject({ outcome: 'refunded' });
    const authorized = await processor.authorize(cardAuthorization(number, { capture: false }));
    expect(await voidOf(authorized.processorReference)).toEqual({ outcome: 'voided' });
  });
});

describe('idempotency', () => {
  it('answers a retried authorization with the first result and executes it once', async () => {
    const request = cardAuthorization('4000056655665556');
    const first = await processor.authorize(request);
    const second = await processor.authorize(request);
    expect(second).toEqual(first);
    expect(operationStats(simulator.stats(), 'authorize', request.reference)).toMatchObject({
      requests: 2,
      executions: 1,
    });
  });

  it('executes concurrent duplicates once', async () => {
    const request = cardAuthorization('5555555555554444');
    const results = await Promise.all([1, 2, 3, 4, 5].map(() => processor.authorize(request)));
    expect(new Set(results.map((r) => r.processorReference)).size).toBe(1);
    expect(operationStats(simulator.stats(), 'authorize', request.reference)).toMatchObject({
      requests: 5,
      executions: 1,
    });
  });

  it('still answers a retry that no longer carries the CVV', async () => {
    const request = cardAuthorization('4000056655665556');
    const first = await processor.authorize(request);
    const withoutCvv = {
      ...request,
      paymentMethod: { type: 'card' as const, card: cardWith('4000056655665556', { cvv: null }) },
    };
    expect(await processor.authorize(withoutCvv)).toEqual(first);
  });

  it('refuses the same key for a different request', async () => {
    const request = cardAuthorization('4000056655665556');
    await processor.authorize(request);
    const conflicting = processor.authorize({ ...request, amount: 2000 });
    await expect(conflicting).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
    await expect(processor.authorize({ ...request, amount: 2000 })).rejects.toMatchObject({
      httpStatus: 409,
      type: 'idempotency_conflict',
      retryable: false,
    });
  });
});

describe('processor timeout card', () => {
  it('times out the first attempt although the payment went through; status and retry say approved', async () => {
    const request = cardAuthorization(testCardFor('processor_timeout').number);
    const attempt = processor.authorize(request);
    // the client's timeout, not an answer: the simulator holds this one far longer
    await expect(attempt).rejects.toBeInstanceOf(TransientProcessorError);
    await expect(attempt).rejects.toMatchObject({ kind: 'timeout', operation: 'authorize', retryable: true });

    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'captured', capturedAmount: 1000, reference: request.reference },
    });
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'approved', captured: true });
    expect(operationStats(simulator.stats(), 'authorize', request.reference)).toMatchObject({
      requests: 2,
      executions: 1,
    });
  });
});

describe('processor 5xx card', () => {
  it('answers 503 to the first attempts without executing, then approves', async () => {
    const request = cardAuthorization(testCardFor('processor_unavailable').number);
    await expect(processor.authorize(request)).rejects.toMatchObject({
      kind: 'server_error',
      httpStatus: 503,
      retryable: true,
    });
    expect(await processor.status(request.reference)).toEqual({ found: false });

    const retries: number[] = [];
    const result = await withProcessorRetries(
      () => processor.authorize(request),
      { attempts: 5, baseDelayMs: 5, maxDelayMs: 20 },
      { onRetry: (_error, retry) => retries.push(retry) },
    );
    expect(result).toMatchObject({ outcome: 'approved' });
    expect(retries).toEqual([1]);
    expect(operationStats(simulator.stats(), 'authorize', request.reference)).toMatchObject({
      requests: 3,
      executions: 1,
    });
  });
});

describe('capture', () => {
  async function authorized(amount = 1000) {
    const result = await processor.authorize(
      cardAuthorization('4000056655665556', { capture: false, amount }),
    );
    if (result.outcome !== 'approved') throw new Error('expected approval');
    return result.processorReference;
  }

  it('captures part of the authorized amount, once per key', async () => {
    const processorReference = await authorized();
    const request = { processorReference, idempotencyKey: randomUUID(), amount: 600, currency: 'JPY' };
    expect(await processor.capture(request)).toEqual({ outcome: 'captured', capturedAmount: 600 });
    expect(await processor.capture(request)).toEqual({ outcome: 'captured', capturedAmount: 600 });
    expect(operationStats(simulator.stats(), 'capture', request.idempotencyKey)).toMatchObject({
      requests: 2,
      executions: 1,
    });
    expect(await processor.capture({ ...request, idempotencyKey: randomUUID() })).toMatchObject({
      outcome: 'rejected',
      error: {
        code: 308,
        message: 'CHARGE_INVALID_DATA',
        detail: 'cannot capture a payment that is captured',
      },
    });
  });

  it('refuses more than the authorized amount, or another currency', async () => {
    const processorReference = await authorized();
    expect(
      await processor.capture({
        processorReference,
        idempotencyKey: randomUUID(),
        amount: 1001,
        currency: 'JPY',
      }),
    ).toEqual({
      outcome: 'rejected',
      error: {
        code: 308,
        message: 'CHARGE_INVALID_DATA',
        detail: 'the capture amount exceeds the authorized amount',
      },
    });
    expect(
      await processor.capture({
        processorReference,
        idempotencyKey: randomUUID(),
        amount: 10,
        currency: 'USD',
      }),
    ).toMatchObject({
      outcome: 'rejected',
    });
    expect(
      await processor.capture({
        processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: 'JPY',
      }),
    ).toEqual({
      outcome: 'captured',
      capturedAmount: 1000,
    });
  });

  it('answers an unknown payment with TRANSACTION_NOT_FOUND', async () => {
    expect(
      await processor.capture({
        processorReference: 'sim_pay_nope',
        idempotencyKey: randomUUID(),
        amount: 1,
        currency: 'JPY',
      }),
    ).toMatchObject({
      outcome: 'rejected',
      error: { code: 338, message: 'TRANSACTION_NOT_FOUND' },
    });
  });
});

describe('refund', () => {
  it('refunds part then all of a captured payment, and no more', async () => {
    const request = cardAuthorization('5555555555554444');
    const { processorReference } = await processor.authorize(request);
    const refund = (amount: number) =>
      processor.refund({ processorReference, idempotencyKey: randomUUID(), amount, currency: 'JPY' });
    expect(await refund(400)).toEqual({
      outcome: 'refunded',
      refundReference: expect.stringMatching(/^sim_ref_/),
      amount: 400,
    });
    expect(await refund(700)).toMatchObject({
      outcome: 'rejected',
      error: { code: 329, message: 'REFUND_FAILED' },
    });
    expect(await refund(600)).toMatchObject({ outcome: 'refunded', amount: 600 });
    expect(await processor.status(request.reference)).toMatchObject({ payment: { refundedAmount: 1000 } });
  });

  it('fails for the 4242 card', async () => {
    const { processorReference } = await processor.authorize(cardAuthorization('4242424242424242'));
    expect(
      await processor.refund({
        processorReference,
        idempotencyKey: randomUUID(),
        amount: 100,
        currency: 'JPY',
      }),
    ).toEqual({
      outcome: 'rejected',
      error: { code: 329, message: 'REFUND_FAILED', detail: 'the issuer refused the refund' },
    });
  });

  it('refuses an uncaptured payment', async () => {
    const { processorReference } = await processor.authorize(
      cardAuthorization('5555555555554444', { capture: false }),
    );
    expect(
      await processor.refund({
        processorReference,
        idempotencyKey: randomUUID(),
        amount: 100,
        currency: 'JPY',
      }),
    ).toMatchObject({
      outcome: 'rejected',
      error: { code: 329 },
    });
  });
});

describe('void', () => {
  it('cancels an authorization', async () => {
    const request = cardAuthorization('4000056655665556', { capture: false });
    const { processorReference } = await processor.authorize(request);
    expect(await processor.void({ processorReference, idempotencyKey: randomUUID() })).toEqual({
      outcome: 'voided',
    });
    expect(await processor.status(request.reference)).toMatchObject({ payment: { status: 'voided' } });
    expect(await processor.void({ processorReference, idempotencyKey: randomUUID() })).toMatchObject({
      outcome: 'rejected',
      error: { code: 312 },
    });
  });

  it('fails for the 1881 card', async () => {
    const { processorReference } = await processor.authorize(cardAuthorization('4012888888881881'));
    expect(await processor.void({ processorReference, idempotencyKey: randomUUID() })).toEqual({
      outcome: 'rejected',
      error: {
        code: 312,
        message: 'CANCEL_UNAVAILABLE',
        detail: 'the issuer refused to cancel this payment',
      },
    });
  });
});

describe('3-D Secure', () => {
  const threeDsCard = testCardFor('three_ds_required').number;

  it('completes on the issuer page, posts a signed result and redirects the customer', async () => {
    const receiver = await startCallbackReceiver();
    try {
      const request = cardAuthorization(threeDsCard, {
        capture: false,
        threeDs: { mode: 'normal', redirectEndpoint: 'https://shop.example/done', callbackUrl: receiver.url },
      });
      const result = await processor.authorize(request);
      if (result.outcome !== 'three_ds_required') throw new Error('expected a 3DS challenge');
      expect(await processor.status(request.reference)).toMatchObject({
        payment: { status: 'pending_authentication' },
      });

      const page = await fetch(result.threeDs.issuerToken);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Authenticate');
      const done = await fetch(result.threeDs.issuerToken, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'result=authenticated',
        redirect: 'manual',
      });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('https://shop.example/done');

      await waitFor(() => receiver.received.length === 1, 2_000, 'the 3DS callback');
      const notice = verifyProcessorCallback({
        rawBody: receiver.received[0].body,
        signatureHeader: receiver.received[0].headers['x-processor-signature'],
        secret: simulator.callbackSecret,
      });
      expect(notice).toMatchObject({
        event: 'three_ds',
        reference: request.reference,
        status: 'authorized',
        error: null,
      });
      expect(await processor.status(request.reference)).toMatchObject({ payment: { status: 'authorized' } });
    } finally {
      await receiver.close();
    }
  });

  it('declines when the cardholder fails authentication', async () => {
    const request = cardAuthorization(threeDsCard);
    const result = await processor.authorize(request);
    if (result.outcome !== 'three_ds_required') throw new Error('expected a 3DS challenge');
    const page = await fetch(result.threeDs.issuerToken, {
      method: 'POST',
      body: new URLSearchParams({ result: 'failed' }),
    });
    expect(page.status).toBe(200);
    expect(await processor.status(request.reference)).toMatchObject({
      payment: { status: 'declined', error: { code: 358, message: 'THREE_DS_COULD_NOT_BE_COMPLETED' } },
    });
  });

  it.each([
    ['skip', threeDsCard, 'declined'],
    ['provided', threeDsCard, 'approved'],
    ['force', '4000056655665556', 'three_ds_required'],
    ['require', '4000056655665556', 'three_ds_required'],
    ['if_available', '4000056655665556', 'approved'],
  ] as const)('mode %s with %s → %s', async (mode, number, outcome) => {
    expect(await processor.authorize(cardAuthorization(number, { threeDs: { mode } }))).toMatchObject({
      outcome,
    });
  });
});

describe('consumer-presented QR codes', () => {
  it.each([
    ['280000000000000001', 'approved', null],
    ['280000000000000002', 'declined', 340],
    ['280000000000000003', 'declined', 330],
    ['280000000000000004', 'declined', 323],
    ['999999999999999999', 'declined', 322],
  ] as const)('%s → %s %s', async (scannedQr, outcome, code) => {
    const request: AuthorizeRequest = {
      reference: randomUUID(),
      amount: 500,
      currency: 'JPY',
      capture: true,
      paymentMethod: { type: 'qr_scan', scannedQr },
    };
    const result = await processor.authorize(request);
    expect(result.outcome).toBe(outcome);
    if (result.outcome === 'declined') expect(result.error.code).toBe(code);
    expect(await processor.status(request.reference)).toMatchObject({ payment: { kind: 'qr_scan' } });
  });
});

describe('Apple Pay payment data', () => {
  /** the simulator's test wallet: EC_v1 payment data for a test card, as a device makes it */
  async function paymentData(
    number: string,
    amount = 1000,
    wallet = simulator.url,
  ): Promise<ApplePayPaymentData> {
    const answer = await fetch(`${wallet}/apple_pay/test_wallet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card_number: number, exp_month: 12, exp_year: 2030, amount, currency: 'JPY' }),
    });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { payment_data: ApplePayPaymentData }).payment_data;
  }
  const applePay = (data: ApplePayPaymentData, capture = true): AuthorizeRequest => ({
    reference: randomUUID(),
    amount: 1000,
    currency: 'JPY',
    capture,
    paymentMethod: { type: 'apple_pay', paymentData: data },
  });

  it('is opened and authorized as the card it carries: held, then captured, shown by brand and last four', async () => {
    const request = applePay(await paymentData('5555555555554444'), false);
    const result = await processor.authorize(request);
    expect(result).toMatchObject({ outcome: 'approved', captured: false });
    expect(await processor.status(request.reference)).toMatchObject({
      payment: { kind: 'card', status: 'authorized', amount: 1000 },
    });
    const reference = (result as { processorReference: string }).processorReference;
    expect(
      await processor.capture({
        processorReference: reference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: 'JPY',
      }),
    ).toEqual({ outcome: 'captured', capturedAmount: 1000 });
  });

  it('needs no 3-D Secure challenge: the cryptogram authenticated the cardholder', async () => {
    const request = applePay(await paymentData(testCardFor('three_ds_required').number));
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'approved', captured: true });
  });

  it('pays once: the same payment data under another reference is DUPLICATE_TRANSACTION', async () => {
    const data = await paymentData('5555555555554444');
    expect(await processor.authorize(applePay(data))).toMatchObject({ outcome: 'approved' });
    expect(await processor.authorize(applePay(data))).toMatchObject({
      outcome: 'declined',
      error: { code: 339, message: 'DUPLICATE_TRANSACTION' },
    });
  });

  it('a retry of a timed-out authorization is answered as the first was, not as a duplicate', async () => {
    const request = applePay(await paymentData(testCardFor('processor_timeout').number));
    await expect(processor.authorize(request)).rejects.toBeInstanceOf(TransientProcessorError);
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'approved', captured: true });
    expect(operationStats(simulator.stats(), 'authorize', request.reference)).toMatchObject({
      requests: 2,
      executions: 1,
    });
  });

  it('declines data made for another amount, or for another merchant key', async () => {
    const other = await startProcessorSimulator({ latencyMs: 0 });
    try {
      const foreign = await paymentData('5555555555554444', 1000, other.url);
      expect(await processor.authorize(applePay(foreign))).toMatchObject({
        outcome: 'declined',
        error: { code: 307, message: 'CARD_INVALID' },
      });
    } finally {
      await other.close();
    }
    expect(await processor.authorize(applePay(await paymentData('5555555555554444', 999)))).toMatchObject({
      outcome: 'declined',
      error: { code: 308, message: 'CHARGE_INVALID_DATA' },
    });
  });
});

describe('Paidy tokens', () => {
  async function checkout(body: Record<string, unknown>) {
    const answer = await fetch(`${simulator.url}/paidy/checkout/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json()) as { id: string } };
  }
  const consumer = (email: string) => ({
    api_key: PAIDY_TEST_PUBLIC_KEY,
    buyer: { email, phone: '08000000001' },
    authorization_code: '8888',
  });
  const paidy = (tokenId: string, capture = true): AuthorizeRequest => ({
    reference: randomUUID(),
    amount: 5000,
    currency: 'JPY',
    capture,
    paymentMethod: {
      type: 'paidy',
      tokenId,
      shippingAddress: { line1: 'Roppongi 4-22-1', zip: '106-2004' },
      buyerEmail: null,
    },
  });

  it('gives a token to Paidy’s test consumers for the test key, and only them', async () => {
    expect(await checkout(consumer(PAIDY_TEST_CONSUMERS.approved))).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^tok_[0-9a-f]{24}$/) },
    });
    expect(
      (await checkout({ ...consumer(PAIDY_TEST_CONSUMERS.approved), api_key: 'pk_test_other' })).status,
    ).toBe(401);
    expect(
      (await checkout({ ...consumer(PAIDY_TEST_CONSUMERS.approved), authorization_code: '1234' })).status,
    ).toBe(400);
    expect((await checkout(consumer('someone@example.test'))).status).toBe(400);
  });

  it('authorizes payments of the approved consumer’s token, again and again; declines the others', async () => {
    const approved = (await checkout(consumer(PAIDY_TEST_CONSUMERS.approved))).body.id;
    expect(await processor.authorize(paidy(approved))).toMatchObject({ outcome: 'approved', captured: true });
    const held = paidy(approved, false);
    expect(await processor.authorize(held)).toMatchObject({ outcome: 'approved', captured: false });
    expect(await processor.status(held.reference)).toMatchObject({
      payment: { kind: 'operator', status: 'authorized' },
    });
    const rejected = (await checkout(consumer(PAIDY_TEST_CONSUMERS.rejected))).body.id;
    expect(await processor.authorize(paidy(rejected))).toMatchObject({
      outcome: 'declined',
      error: { code: 340, message: 'PAYMENT_WALLET_REJECTED' },
    });
    expect(await processor.authorize(paidy('tok_unknown'))).toMatchObject({
      outcome: 'declined',
      error: { code: 308, message: 'CHARGE_INVALID_DATA' },
    });
  });
});
