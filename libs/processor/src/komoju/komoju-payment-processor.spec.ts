import { randomUUID } from 'node:crypto';
import {
  cardWith,
  describeHostedProcessorContract,
  hostedFakeSetup,
  type FakeKomoju,
  KOMOJU_TEST_CARDS,
  startFakeKomoju,
} from '@kessai/testing';
import {
  type AuthorizeRequest,
  type DeferredPaymentRequest,
  type OperatorPaymentRequest,
} from '../payment-processor';
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

const fakeFacts = hostedFakeSetup(
  () => fake,
  { retried: KOMOJU_TEST_CARDS.mastercard, late: KOMOJU_TEST_CARDS.jcb },
  CLIENT_TIMEOUT_MS,
);

describeHostedProcessorContract('KOMOJU adapter on the KOMOJU fake', {
  processor: () => processor,
  processorWith: (options) =>
    new KomojuPaymentProcessor({ secretKey: SECRET_KEY, baseUrl: fake.url, ...options }),
  secretKey: SECRET_KEY,
  approvedCard: KOMOJU_TEST_CARDS.visa,
  declinedCard: { number: KOMOJU_TEST_CARDS.cardUnusable, error: 'CARD_REJECTED' },
  declines: [
    [KOMOJU_TEST_CARDS.badSecurityCode, 'CARD_CVV_INVALID'],
    [KOMOJU_TEST_CARDS.expired, 'CARD_EXPIRED'],
    [KOMOJU_TEST_CARDS.invalidCard, 'CARD_NUMBER_NOT_VALID'],
    [KOMOJU_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
  ],
  currency: 'JPY',
  ...fakeFacts,
  partialCapture: false,
  threeDs: {
    card: KOMOJU_TEST_CARDS.threeDsRequired,
    requests: false,
    authentications: fakeFacts.authentications,
  },
  konbini: {
    store: 'seven_eleven',
    refusedStore: 'circle_k',
    paymentCode: /^\d{6}$/,
    pay: (id) => fake.payKonbini(id),
  },
  bankTransfer: null,
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
    expect(JSON.parse(seen[0].body!)).not.toHaveProperty('return_url');
  });

  it('sends the 3-D Secure return route as return_url and hands out payment_details.redirect_url', async () => {
    const returnUrl = 'https://pay.example.test/processor/three_ds/return/c1';
    const request = authorization(KOMOJU_TEST_CARDS.threeDsRequired, {
      threeDs: { mode: 'normal', returnUrl },
    });
    const result = await processor.authorize(request);
    const payment = fake.payments.get(result.processorReference)!;
    expect(payment).toMatchObject({ status: 'pending', external_order_num: request.reference });
    expect(result).toEqual({
      outcome: 'three_ds_required',
      processorReference: payment.id,
      threeDs: {
        issuerToken: payment.payment_details.redirect_url,
        callMethod: 'http_get',
        payload: {},
        contentType: 'application/x-www-form-urlencoded; charset=UTF-8',
      },
    });
    expect(await fake.authenticate(payment.id, 'authenticated')).toBe(returnUrl);
  });

  it('answers a wrong secret key with KOMOJU’s refusal type', async () => {
    const wrongKey = new KomojuPaymentProcessor({ secretKey: 'sk_wrong', baseUrl: fake.url });
    await expect(wrongKey.authorize(authorization(KOMOJU_TEST_CARDS.visa))).rejects.toMatchObject({
      httpStatus: 401,
      type: 'unauthorized',
    });
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

    it('is refused by KOMOJU without the customer email it requires', async () => {
      await expect(processor.createDeferredPayment(konbini({ customerEmail: null }))).rejects.toMatchObject({
        httpStatus: 422,
        type: 'missing_parameter',
      });
    });
  });

  describe('PayPay', () => {
    const payPay = (overrides: Partial<OperatorPaymentRequest> = {}): OperatorPaymentRequest => ({
      reference: randomUUID(),
      amount: 3000,
      currency: 'JPY',
      brand: 'pay_pay_online',
      callMethod: 'http_get',
      callbackUrl: 'http://127.0.0.1/unused',
      returnUrl: 'https://shop.example.test/back',
      ...overrides,
    });

    it('creates a paypay payment once under our reference: pending, its redirect_url the page to pay on', async () => {
      const seen: { headers: Record<string, string>; body?: string }[] = [];
      const recording = new KomojuPaymentProcessor({
        secretKey: SECRET_KEY,
        baseUrl: fake.url,
        fetch: (url, init) => {
          seen.push({ headers: init.headers, body: init.body });
          return fetch(url, init);
        },
      });
      const request = payPay();
      const created = await recording.createOperatorPayment(request);
      expect(seen[0].headers[KOMOJU_IDEMPOTENCY_HEADER]).toBe(request.reference);
      expect(JSON.parse(seen[0].body!)).toEqual({
        amount: 3000,
        currency: 'JPY',
        external_order_num: request.reference,
        return_url: 'https://shop.example.test/back',
        payment_details: { type: 'paypay' },
      });
      const payment = fake.payments.get(created.processorReference)!;
      expect(payment).toMatchObject({ status: 'pending', payment_details: { type: 'paypay' } });
      expect(created).toMatchObject({
        paymentUrl: payment.payment_details.redirect_url,
        callMethod: 'http_get',
      });
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'operator', status: 'awaiting_payment', capturedAmount: 0 },
      });
      // a retry after a lost answer is the same payment, the same page
      expect(await recording.createOperatorPayment(request)).toEqual(created);
      expect(fake.createdFor(request.reference)).toBe(1);

      // paid at the page: captured; back to the return_url; a partial refund taken
      expect(await fake.payOnline(created.processorReference, 'paid')).toBe('https://shop.example.test/back');
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { kind: 'operator', status: 'captured', capturedAmount: 3000, deposits: [], error: null },
      });
      const refunded = await processor.refund({
        processorReference: created.processorReference,
        idempotencyKey: randomUUID(),
        amount: 1000,
        currency: 'JPY',
      });
      expect(refunded).toMatchObject({ outcome: 'refunded', amount: 1000 });
    });

    it('reads a refused payment as declined PAYMENT_WALLET_REJECTED, an expired one as expired', async () => {
      const refused = payPay();
      await fake.payOnline((await processor.createOperatorPayment(refused)).processorReference, 'failed');
      expect(await processor.status(refused.reference)).toMatchObject({
        payment: { status: 'declined', error: { code: 340, message: 'PAYMENT_WALLET_REJECTED' } },
      });
      const expired = payPay();
      await fake.expireOnline((await processor.createOperatorPayment(expired)).processorReference);
      expect(await processor.status(expired.reference)).toMatchObject({
        payment: { status: 'expired', error: null },
      });
    });

    it('voids a payment nobody paid yet (KOMOJU cancels a pending payment)', async () => {
      const created = await processor.createOperatorPayment(payPay());
      expect(
        await processor.void({
          processorReference: created.processorReference,
          idempotencyKey: randomUUID(),
        }),
      ).toEqual({ outcome: 'voided' });
    });

    it('refuses before sending anything another online brand, PayPay in another currency than yen', async () => {
      const created = fake.executed.create;
      await expect(
        processor.createOperatorPayment(payPay({ brand: 'we_chat_online' })),
      ).rejects.toMatchObject({
        type: 'unsupported',
        retryable: false,
      });
      await expect(processor.createOperatorPayment(payPay({ currency: 'USD' }))).rejects.toMatchObject({
        type: 'unsupported',
      });
      expect(fake.executed.create).toBe(created);
    });
  });
});
