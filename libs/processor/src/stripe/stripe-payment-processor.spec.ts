import { randomUUID } from 'node:crypto';
import {
  cardWith,
  describeHostedProcessorContract,
  hostedFakeSetup,
  type FakeStripe,
  startFakeStripe,
  STRIPE_TEST_CARDS,
} from '@kessai/testing';
import { ProcessorRequestRejectedError } from '../processor-errors';
import { type AuthorizeRequest, type DeferredPaymentRequest } from '../payment-processor';
import {
  STRIPE_REFERENCE_METADATA_KEY,
  stripeDescriptorSuffix,
  StripePaymentProcessor,
} from './stripe-payment-processor';

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

/** Stripe's declining test cards and the SDK code of each (docs/connectors.md, "Error codes") */
const STRIPE_DECLINES = [
  [STRIPE_TEST_CARDS.insufficientFunds, 'PAYMENT_WALLET_INSUFFICIENT_FUNDS'],
  [STRIPE_TEST_CARDS.expiredCard, 'CARD_EXPIRED'],
  [STRIPE_TEST_CARDS.incorrectCvc, 'CARD_CVV_INVALID'],
  [STRIPE_TEST_CARDS.incorrectNumber, 'CARD_NUMBER_NOT_VALID'],
  [STRIPE_TEST_CARDS.processingError, 'PROCESSING_ERROR'],
  [STRIPE_TEST_CARDS.fraudulent, 'FRAUD_SUSPECTED'],
  [STRIPE_TEST_CARDS.lostCard, 'CARD_REJECTED'],
  [STRIPE_TEST_CARDS.authenticationRequired, 'THREE_DS_COULD_NOT_BE_COMPLETED'],
] as const;

const fakeFacts = hostedFakeSetup(
  () => fake,
  { retried: STRIPE_TEST_CARDS.mastercard, late: STRIPE_TEST_CARDS.jcb },
  CLIENT_TIMEOUT_MS,
);

describeHostedProcessorContract('Stripe adapter on the Stripe fake', {
  processor: () => processor,
  processorWith: (options) =>
    new StripePaymentProcessor({ secretKey: SECRET_KEY, baseUrl: fake.url, ...options }),
  secretKey: SECRET_KEY,
  approvedCard: STRIPE_TEST_CARDS.visa,
  declinedCard: { number: STRIPE_TEST_CARDS.genericDecline, error: 'CARD_REJECTED' },
  declines: STRIPE_DECLINES,
  currency: 'JPY',
  ...fakeFacts,
  partialCapture: true,
  threeDs: {
    card: STRIPE_TEST_CARDS.authenticationRequired,
    requests: true,
    authentications: fakeFacts.authentications,
  },
  konbini: {
    store: 'family_mart',
    refusedStore: 'seven_eleven',
    paymentCode: /^\d{11}$/,
    pay: (id) => fake.payKonbini(id),
  },
  bankTransfer: { deposit: (id, amount) => fake.fundBankTransfer(id, amount), partialFunding: true },
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
  it.each(STRIPE_DECLINES)(
    'leaves the PaymentIntent of declined test card %s unpaid, status reading it %s',
    async (number, code) => {
      const request = authorization(number);
      const result = await processor.authorize(request);
      expect(result).toMatchObject({ outcome: 'declined', error: { message: code } });
      // the PaymentIntent Stripe left unpaid is the processor reference, and status reads it declined
      expect(result.processorReference).toMatch(/^pi_/);
      expect(await processor.status(request.reference)).toMatchObject({
        found: true,
        payment: { status: 'declined', error: { message: code } },
      });
    },
  );

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

  it('throws a 429 rate_limit as transient and provably unexecuted; the retry executes once', async () => {
    const request = authorization(STRIPE_TEST_CARDS.visa);
    fake.rateLimitNext(1);
    await expect(processor.authorize(request)).rejects.toMatchObject({
      kind: 'rate_limited',
      httpStatus: 429,
      unexecuted: 'not_processed',
    });
    expect(fake.createdFor(request.reference)).toBe(0);
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'approved' });
    expect(fake.createdFor(request.reference)).toBe(1);
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

    it('sends the konbini as Stripe takes it and gives the hosted voucher as the slip', async () => {
      const request = konbini();
      const created = await processor.createDeferredPayment(request);
      expect(created.instructions).toMatchObject({
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
    });

    it('sends a bank transfer as customer_balance jp_bank_transfer for a customer of its own, keyed by the charge', async () => {
      const request: DeferredPaymentRequest = {
        ...konbini(),
        method: { type: 'bank_transfer', brand: 'aozora_bank' },
      };
      const created = await processor.createDeferredPayment(request);
      const customerCall = fake.requests.find((r) => r.key === `${request.reference}:customer`)!;
      expect(customerCall).toMatchObject({
        method: 'POST',
        path: '/v1/customers',
        form: { email: 'taro@example.com', metadata: { [STRIPE_REFERENCE_METADATA_KEY]: request.reference } },
      });
      const intent = fake.paymentIntents.get(created.processorReference)!;
      const sent = fake.requests.filter((r) => r.method === 'POST' && r.key === request.reference).at(-1)!;
      expect(sent).toMatchObject({ path: '/v1/payment_intents' });
      expect(sent.form).toMatchObject({
        customer: intent.customer,
        confirm: 'true',
        allowed_payment_method_types: ['customer_balance'],
        payment_method_data: { type: 'customer_balance' },
        payment_method_options: {
          customer_balance: { funding_type: 'bank_transfer', bank_transfer: { type: 'jp_bank_transfer' } },
        },
      });
      // the account given is the one Stripe's instructions name (zengin), the customer its id
      const zengin = (
        intent.next_action as {
          display_bank_transfer_instructions: { financial_addresses: { zengin: Record<string, string> }[] };
        }
      ).display_bank_transfer_instructions.financial_addresses[0].zengin;
      expect(created.instructions).toEqual({
        type: 'bank_transfer',
        bankCode: zengin.bank_code,
        bankName: zengin.bank_name,
        branchCode: zengin.branch_code,
        branchName: zengin.branch_name,
        accountId: intent.customer,
        accountNumber: zengin.account_number,
        accountHolderName: zengin.account_holder_name,
        paymentUrl: `${fake.url}/bank_transfer/${created.processorReference}`,
      });
    });

    it('refuses a konbini without the customer email before sending anything', async () => {
      const created = fake.executed.create;
      await expect(processor.createDeferredPayment(konbini({ customerEmail: null }))).rejects.toMatchObject({
        type: 'missing_parameter',
        retryable: false,
      });
      expect(fake.executed.create).toBe(created);
    });
  });

  it('confirms with the 3-D Secure return route, asks `any` for mode require, and hands out redirect_to_url', async () => {
    const returnUrl = 'https://pay.example.test/processor/three_ds/return/c1';
    const request = authorization(STRIPE_TEST_CARDS.visa, { threeDs: { mode: 'require', returnUrl } });
    const result = await processor.authorize(request);
    const sent = fake.requests.filter((r) => r.key === request.reference).at(-1)!;
    expect(sent.form).toMatchObject({
      return_url: returnUrl,
      payment_method_options: { card: { request_three_d_secure: 'any' } },
    });
    expect(sent.form).not.toHaveProperty('error_on_requires_action');
    const intent = fake.paymentIntents.get(result.processorReference)!;
    expect(intent).toMatchObject({
      status: 'requires_action',
      next_action: { type: 'redirect_to_url', redirect_to_url: { return_url: returnUrl } },
    });
    expect(result).toEqual({
      outcome: 'three_ds_required',
      processorReference: intent.id,
      threeDs: {
        issuerToken: (intent.next_action as { redirect_to_url: { url: string } }).redirect_to_url.url,
        callMethod: 'http_get',
        payload: {},
        contentType: 'application/x-www-form-urlencoded; charset=UTF-8',
      },
    });
    // Stripe sends the browser back with its own parameters, the client secret among them
    const back = new URL(fake.authenticate(intent.id as string, 'authenticated')!);
    expect(`${back.origin}${back.pathname}`).toBe(returnUrl);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      payment_intent: intent.id,
      payment_intent_client_secret: intent.client_secret,
      redirect_status: 'succeeded',
    });
    const charge = fake.charges.get(fake.paymentIntents.get(intent.id as string)!.latest_charge as string)!;
    expect(charge).toMatchObject({
      payment_method_details: { card: { three_d_secure: { result: 'authenticated' } } },
    });
  });

  it('asks `challenge` for mode force', async () => {
    const request = authorization(STRIPE_TEST_CARDS.visa, {
      threeDs: { mode: 'force', returnUrl: 'https://pay.example.test/back' },
    });
    expect(await processor.authorize(request)).toMatchObject({ outcome: 'three_ds_required' });
    expect(fake.requests.filter((r) => r.key === request.reference).at(-1)!.form).toMatchObject({
      payment_method_options: { card: { request_three_d_secure: 'challenge' } },
    });
  });

  it.each([
    ['KESSAI SHOP', 'KESSAI SHO'],
    ['Café «Ö» <b>', 'Cafe O b'],
    ['ショップ', null],
    ['12345', null],
  ])(
    'sends the descriptor %p as the statement descriptor suffix %p, within Stripe’s rules',
    async (descriptor, suffix) => {
      const request = authorization(STRIPE_TEST_CARDS.visa, { descriptor });
      await processor.authorize(request);
      const sent = fake.requests.filter((r) => r.key === request.reference).at(-1)!;
      if (suffix === null) expect(sent.form).not.toHaveProperty('statement_descriptor_suffix');
      else expect(sent.form).toMatchObject({ statement_descriptor_suffix: suffix });
      expect(stripeDescriptorSuffix(descriptor)).toBe(suffix);
    },
  );
});
