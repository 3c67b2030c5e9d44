import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import {
  cardWith,
  describeProcessorContract,
  type FakeKomoju,
  KOMOJU_TEST_CARDS,
  startFakeKomoju,
} from '@kessai/testing';
import { ProcessorRequestRejectedError, TransientProcessorError } from '../processor-errors';
import { type AuthorizeRequest, type DeferredPaymentRequest } from '../payment-processor';
import { KOMOJU_IDEMPOTENCY_HEADER, KomojuPaymentProcessor } from './komoju-payment-processor';

const SECRET_KEY = 'sk_test_fake_komoju_secret';
// well above a loaded machine's answer time (a first request once took over 1 s while the machine
// was busy), well below the fake's late answer
const CLIENT_TIMEOUT_MS = 2_000;

let fake: FakeKomoju;
let processor: KomojuPaymentProcessor;

beforeAll(async () => {
  fake = await startFakeKomoju({ secretKey: SECRET_KEY, webhookSecret: 'w'.repeat(32) });
  processor = new KomojuPaymentProcessor({
    secretKey: SECRET_KEY,
    baseUrl: fake.url,
    timeoutMs: CLIENT_TIMEOUT_MS,
  });
});
afterAll(() => fake.close());

describeProcessorContract('KOMOJU adapter on the KOMOJU fake', {
  processor: () => processor,
  approvedCard: KOMOJU_TEST_CARDS.visa,
  declinedCard: { number: KOMOJU_TEST_CARDS.cardUnusable, error: 'CARD_REJECTED' },
  currency: 'JPY',
  paymentsExecuted: (reference) => fake.createdFor(reference),
  failNextAuthorization: () => {
    fake.failNext(1);
    return KOMOJU_TEST_CARDS.mastercard;
  },
  lateNextAuthorization: () => {
    fake.delayNext(1, CLIENT_TIMEOUT_MS * 3);
    return KOMOJU_TEST_CARDS.jcb;
  },
});

const authorization = (number: string, overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  reference: randomUUID(),
  amount: 1000,
  currency: 'JPY',
  capture: true,
  paymentMethod: { type: 'card', card: cardWith(number, { cvv: '987' }) },
  ...overrides,
});

describe('KOMOJU adapter', () => {
  it.each([
    [KOMOJU_TEST_CARDS.badSecurityCode, 'CARD_CVV_INVALID'],
    [KOMOJU_TEST_CARDS.expired, 'CARD_EXPIRED'],
    [KOMOJU_TEST_CARDS.invalidCard, 'CARD_NUMBER_NOT_VALID'],
    [KOMOJU_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
  ])('maps the decline of test card %s to %s', async (number, code) => {
    const result = await processor.authorize(authorization(number));
    expect(result).toMatchObject({ outcome: 'declined', error: { message: code } });
  });

  it('sends our reference as X-KOMOJU-IDEMPOTENCY and external_order_num, the key as HTTP Basic user', async () => {
    const seen: { url: string; headers: Record<string, string>; body?: string }[] = [];
    const recording = new KomojuPaymentProcessor({
      secretKey: SECRET_KEY,
      baseUrl: fake.url,
      fetch: (url, init) => {
        seen.push({ url, headers: init.headers, body: init.body });
        return fetch(url, init);
      },
    });
    const request = authorization(KOMOJU_TEST_CARDS.visa);
    await recording.authorize(request);
    expect(seen[0].url).toBe(`${fake.url}/payments`);
    expect(seen[0].headers[KOMOJU_IDEMPOTENCY_HEADER]).toBe(request.reference);
    expect(seen[0].headers.authorization).toBe(`Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`);
    expect(JSON.parse(seen[0].body!)).toMatchObject({
      amount: 1000,
      currency: 'JPY',
      external_order_num: request.reference,
      capture: true,
      payment_details: { type: 'credit_card', number: KOMOJU_TEST_CARDS.visa, verification_value: '987' },
    });
  });

  it('refuses a partial capture before sending anything', async () => {
    const held = await processor.authorize(authorization(KOMOJU_TEST_CARDS.visa, { capture: false }));
    const captures = fake.executed.capture;
    const result = await processor.capture({
      processorReference: held.processorReference,
      idempotencyKey: randomUUID(),
      amount: 600,
      currency: 'JPY',
    });
    expect(result).toMatchObject({
      outcome: 'rejected',
      error: { message: 'PARTIAL_CAPTURE_NOT_SUPPORTED' },
    });
    expect(fake.executed.capture).toBe(captures);
  });

  it('answers a capture of a captured payment, or a cancel of one, as refused for its state', async () => {
    const paid = await processor.authorize(authorization(KOMOJU_TEST_CARDS.visa));
    expect(
      await processor.capture({
        processorReference: paid.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: 'JPY',
      }),
    ).toMatchObject({ outcome: 'rejected', error: { message: 'CHARGE_INVALID_DATA' } });
    expect(
      await processor.void({ processorReference: paid.processorReference, idempotencyKey: randomUUID() }),
    ).toMatchObject({ outcome: 'rejected', error: { message: 'CANCEL_UNAVAILABLE' } });
  });

  it('throws a refused request (a wrong secret key) as final, never echoing the card', async () => {
    const wrongKey = new KomojuPaymentProcessor({ secretKey: 'sk_wrong', baseUrl: fake.url });
    const failure = await wrongKey.authorize(authorization(KOMOJU_TEST_CARDS.visa)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProcessorRequestRejectedError);
    expect(failure).toMatchObject({ httpStatus: 401, type: 'unauthorized', retryable: false });
    expect(inspect(failure)).not.toContain(KOMOJU_TEST_CARDS.visa);
    expect(inspect(failure)).not.toContain('987');
  });

  it('throws a connection refused as transient (network)', async () => {
    const closed = new KomojuPaymentProcessor({
      secretKey: SECRET_KEY,
      baseUrl: 'http://127.0.0.1:1/api/v1',
    });
    await expect(closed.authorize(authorization(KOMOJU_TEST_CARDS.visa))).rejects.toMatchObject({
      kind: 'network',
      retryable: true,
    });
  });

  it('refuses what KOMOJU cannot do before sending anything: 3-D Secure, QR, bank transfer, Circle K', async () => {
    const created = fake.executed.create;
    await expect(
      processor.authorize(authorization(KOMOJU_TEST_CARDS.visa, { threeDs: { mode: 'require' } })),
    ).rejects.toMatchObject({ type: 'unsupported', retryable: false });
    await expect(
      processor.authorize(
        authorization(KOMOJU_TEST_CARDS.visa, { paymentMethod: { type: 'qr_scan', scannedQr: 'x' } }),
      ),
    ).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
    const deferred = (method: DeferredPaymentRequest['method']): DeferredPaymentRequest => ({
      reference: randomUUID(),
      amount: 1000,
      currency: 'JPY',
      method,
      expiresOn: new Date(Date.now() + 86_400_000),
      callbackUrl: 'http://127.0.0.1/unused',
      customerEmail: 'taro@example.com',
    });
    await expect(
      processor.createDeferredPayment(deferred({ type: 'bank_transfer', brand: 'test_bank' })),
    ).rejects.toMatchObject({ type: 'unsupported' });
    await expect(
      processor.createDeferredPayment(
        deferred({ type: 'konbini', convenienceStore: 'circle_k', customerName: 'Taro', phoneNumber: null }),
      ),
    ).rejects.toMatchObject({ type: 'unsupported' });
    expect(fake.executed.create).toBe(created);
  });

  describe('konbini', () => {
    const konbini = (overrides: Partial<DeferredPaymentRequest> = {}): DeferredPaymentRequest => ({
      reference: randomUUID(),
      amount: 2500,
      currency: 'JPY',
      method: { type: 'konbini', convenienceStore: 'seven_eleven', customerName: 'Taro', phoneNumber: null },
      expiresOn: new Date(Date.now() + 3 * 86_400_000),
      callbackUrl: 'http://127.0.0.1/unused',
      customerEmail: 'taro@example.com',
      ...overrides,
    });

    it('gives the slip to pay at the store; paid, status says captured with one deposit', async () => {
      const request = konbini();
      const created = await processor.createDeferredPayment(request);
      expect(created.instructions).toMatchObject({
        type: 'konbini',
        convenienceStore: 'seven_eleven',
        paymentCode: expect.stringMatching(/^\d{6}$/),
        receiptNumber: expect.stringMatching(/^\d{11}$/),
      });
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'konbini', status: 'awaiting_payment', deposits: [] },
      });
      await fake.payKonbini(created.processorReference);
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: {
          status: 'captured',
          deposits: [{ id: created.processorReference, amount: 2500 }],
        },
      });
      // a retry after a lost answer is the same payment
      expect((await processor.createDeferredPayment(request)).processorReference).toBe(
        created.processorReference,
      );
      expect(fake.createdFor(request.reference)).toBe(1);
    });

    it('is refused by KOMOJU without the customer email it requires', async () => {
      await expect(processor.createDeferredPayment(konbini({ customerEmail: null }))).rejects.toMatchObject({
        httpStatus: 422,
        type: 'missing_parameter',
      });
    });
  });

  it('retries a 5xx capture with the same key into one capture', async () => {
    const held = await processor.authorize(authorization(KOMOJU_TEST_CARDS.visa, { capture: false }));
    const request = {
      processorReference: held.processorReference,
      idempotencyKey: randomUUID(),
      amount: 1000,
      currency: 'JPY',
    };
    const captures = fake.executed.capture;
    // the capture reads the payment first (a GET, never failed by failNext), then POSTs
    fake.failNext(1);
    await expect(processor.capture(request)).rejects.toBeInstanceOf(TransientProcessorError);
    expect(await processor.capture(request)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
    expect(await processor.capture(request)).toEqual({ outcome: 'captured', capturedAmount: 1000 });
    expect(fake.executed.capture).toBe(captures + 1);
  });
});
