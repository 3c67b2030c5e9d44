import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import {
  cardWith,
  describeProcessorContract,
  type FakeStripe,
  startFakeStripe,
  STRIPE_TEST_CARDS,
} from '@kessai/testing';
import { ProcessorRequestRejectedError, TransientProcessorError } from '../processor-errors';
import { type AuthorizeRequest, type DeferredPaymentRequest } from '../payment-processor';
import { STRIPE_REFERENCE_METADATA_KEY, StripePaymentProcessor } from './stripe-payment-processor';

const SECRET_KEY = 'sk_test_fake_stripe_secret';
// well above a loaded machine's answer time, well below the fake's late answer
const CLIENT_TIMEOUT_MS = 2_000;

let fake: FakeStripe;
let processor: StripePaymentProcessor;

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: 'whsec_fake_stripe_signing_secret' });
  processor = new StripePaymentProcessor({
    secretKey: SECRET_KEY,
    baseUrl: fake.url,
    timeoutMs: CLIENT_TIMEOUT_MS,
  });
});
afterAll(() => fake.close());

describeProcessorContract('Stripe adapter on the Stripe fake', {
  processor: () => processor,
  approvedCard: STRIPE_TEST_CARDS.visa,
  declinedCard: { number: STRIPE_TEST_CARDS.genericDecline, error: 'CARD_REJECTED' },
  currency: 'JPY',
  paymentsExecuted: (reference) => fake.createdFor(reference),
  failNextAuthorization: () => {
    fake.failNext(1);
    return STRIPE_TEST_CARDS.mastercard;
  },
  lateNextAuthorization: () => {
    fake.delayNext(1, CLIENT_TIMEOUT_MS * 3);
    return STRIPE_TEST_CARDS.jcb;
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

describe('Stripe adapter', () => {
  it.each([
    [STRIPE_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
    [STRIPE_TEST_CARDS.expiredCard, 'CARD_EXPIRED'],
    [STRIPE_TEST_CARDS.incorrectCvc, 'CARD_CVV_INVALID'],
    [STRIPE_TEST_CARDS.incorrectNumber, 'CARD_NUMBER_NOT_VALID'],
    [STRIPE_TEST_CARDS.processingError, 'PROCESSING_ERROR'],
    [STRIPE_TEST_CARDS.fraudulent, 'FRAUD_SUSPECTED'],
    [STRIPE_TEST_CARDS.lostCard, 'CARD_REJECTED'],
    [STRIPE_TEST_CARDS.authenticationRequired, 'THREE_DS_COULD_NOT_BE_COMPLETED'],
  ])('maps the decline of test card %s to %s', async (number, code) => {
    const request = authorization(number);
    const result = await processor.authorize(request);
    expect(result).toMatchObject({ outcome: 'declined', error: { message: code } });
    // the PaymentIntent Stripe left unpaid is the processor reference, and status reads it declined
    expect(result.processorReference).toMatch(/^pi_/);
    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'declined', error: { message: code } },
    });
  });

  it('sends our reference as Idempotency-Key and metadata, the card confirmed at creation', async () => {
    const request = authorization(STRIPE_TEST_CARDS.visa, { capture: false });
    await processor.authorize(request);
    const sent = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents').at(-1)!;
    expect(sent.key).toBe(request.reference);
    expect(sent.form).toMatchObject({
      amount: '1000',
      currency: 'jpy',
      capture_method: 'manual',
      confirm: 'true',
      error_on_requires_action: 'true',
      allowed_payment_method_types: ['card'],
      payment_method_data: { type: 'card', card: { number: STRIPE_TEST_CARDS.visa, cvc: '987' } },
      metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference },
    });
  });

  it('captures part of an authorization (Stripe releases the rest)', async () => {
    const held = await processor.authorize(authorization(STRIPE_TEST_CARDS.visa, { capture: false }));
    const result = await processor.capture({
      processorReference: held.processorReference,
      idempotencyKey: randomUUID(),
      amount: 600,
      currency: 'JPY',
    });
    expect(result).toEqual({ outcome: 'captured', capturedAmount: 600 });
  });

  it('answers a capture of a captured payment, or a cancel of one, as refused for its state', async () => {
    const paid = await processor.authorize(authorization(STRIPE_TEST_CARDS.visa));
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

  it('status finds a payment while Stripe search lags behind the write (the list is consistent)', async () => {
    const request = authorization(STRIPE_TEST_CARDS.visa);
    await processor.authorize(request);
    fake.searchLagsNext(1);
    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'captured', reference: request.reference },
    });
  });

  it('status reports refunds from the latest charge', async () => {
    const request = authorization(STRIPE_TEST_CARDS.visa);
    const paid = await processor.authorize(request);
    await processor.refund({
      processorReference: paid.processorReference,
      idempotencyKey: randomUUID(),
      amount: 250,
      currency: 'JPY',
    });
    expect(await processor.status(request.reference)).toMatchObject({
      found: true,
      payment: { status: 'captured', capturedAmount: 1000, refundedAmount: 250 },
    });
  });

  it('refuses clearly when the account may not send raw card numbers', async () => {
    const closed = await startFakeStripe({
      secretKey: SECRET_KEY,
      webhookSecret: 'whsec_x',
      rawCardData: false,
    });
    try {
      const refused = new StripePaymentProcessor({ secretKey: SECRET_KEY, baseUrl: closed.url });
      const failure = await refused.authorize(authorization(STRIPE_TEST_CARDS.visa)).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ProcessorRequestRejectedError);
      expect(failure).toMatchObject({ type: 'raw_card_data_not_enabled', retryable: false });
    } finally {
      await closed.close();
    }
  });

  it('throws a refused request (a wrong secret key) as final, never echoing the card', async () => {
    const wrongKey = new StripePaymentProcessor({ secretKey: 'sk_wrong', baseUrl: fake.url });
    const failure = await wrongKey.authorize(authorization(STRIPE_TEST_CARDS.visa)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProcessorRequestRejectedError);
    expect(failure).toMatchObject({ httpStatus: 401, retryable: false });
    expect(inspect(failure)).not.toContain(STRIPE_TEST_CARDS.visa);
    expect(inspect(failure)).not.toContain('987');
    expect(inspect(failure)).not.toContain('sk_wrong');
  });

  it('throws a connection refused as transient (network)', async () => {
    const closed = new StripePaymentProcessor({ secretKey: SECRET_KEY, baseUrl: 'http://127.0.0.1:1' });
    await expect(closed.authorize(authorization(STRIPE_TEST_CARDS.visa))).rejects.toMatchObject({
      kind: 'network',
      retryable: true,
    });
  });

  describe('konbini', () => {
    const konbini = (overrides: Partial<DeferredPaymentRequest> = {}): DeferredPaymentRequest => ({
      reference: randomUUID(),
      amount: 2500,
      currency: 'JPY',
      method: { type: 'konbini', convenienceStore: 'family_mart', customerName: 'Taro', phoneNumber: null },
      expiresOn: new Date(Date.now() + 3 * 86_400_000),
      callbackUrl: 'http://127.0.0.1/unused',
      customerEmail: 'taro@example.com',
      ...overrides,
    });

    it('gives the codes to pay at the store; paid, status says captured with one deposit', async () => {
      const request = konbini();
      const created = await processor.createDeferredPayment(request);
      expect(created.instructions).toMatchObject({
        type: 'konbini',
        convenienceStore: 'family_mart',
        paymentCode: expect.stringMatching(/^\d{11}$/),
        receiptNumber: expect.stringMatching(/^\d{11}$/),
        paymentUrl: `${fake.url}/konbini/${created.processorReference}`,
      });
      const sent = fake.requests.filter((r) => r.method === 'POST' && r.key === request.reference).at(-1)!;
      expect(sent.form).toMatchObject({
        allowed_payment_method_types: ['konbini'],
        payment_method_data: {
          type: 'konbini',
          billing_details: { name: 'Taro', email: 'taro@example.com' },
        },
        payment_method_options: {
          konbini: { expires_at: String(Math.floor(request.expiresOn.getTime() / 1000)) },
        },
      });
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'konbini', status: 'awaiting_payment', deposits: [] },
      });
      fake.payKonbini(created.processorReference);
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'captured', deposits: [{ id: created.processorReference, amount: 2500 }] },
      });
      // a retry after a lost answer is the same payment
      expect((await processor.createDeferredPayment(request)).processorReference).toBe(
        created.processorReference,
      );
      expect(fake.createdFor(request.reference)).toBe(1);
    });

    it('refuses a store Stripe does not take, or no customer email, before sending anything', async () => {
      const created = fake.executed.create;
      const sevenEleven = konbini({
        method: {
          type: 'konbini',
          convenienceStore: 'seven_eleven',
          customerName: 'Taro',
          phoneNumber: null,
        },
      });
      await expect(processor.createDeferredPayment(sevenEleven)).rejects.toMatchObject({
        type: 'unsupported',
      });
      await expect(processor.createDeferredPayment(konbini({ customerEmail: null }))).rejects.toMatchObject({
        type: 'missing_parameter',
        retryable: false,
      });
      expect(fake.executed.create).toBe(created);
    });
  });

  it('refuses what it cannot do before sending anything: 3-D Secure, QR, bank transfer', async () => {
    const created = fake.executed.create;
    await expect(
      processor.authorize(authorization(STRIPE_TEST_CARDS.visa, { threeDs: { mode: 'require' } })),
    ).rejects.toMatchObject({ type: 'unsupported', retryable: false });
    await expect(
      processor.authorize(
        authorization(STRIPE_TEST_CARDS.visa, { paymentMethod: { type: 'qr_scan', scannedQr: 'x' } }),
      ),
    ).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
    await expect(
      processor.createDeferredPayment({
        reference: randomUUID(),
        amount: 1000,
        currency: 'JPY',
        method: { type: 'bank_transfer', brand: 'test_bank' },
        expiresOn: new Date(Date.now() + 86_400_000),
        callbackUrl: 'http://127.0.0.1/unused',
      }),
    ).rejects.toMatchObject({ type: 'unsupported' });
    expect(fake.executed.create).toBe(created);
  });

  it('retries a 5xx capture with the same key into one capture', async () => {
    const held = await processor.authorize(authorization(STRIPE_TEST_CARDS.visa, { capture: false }));
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
