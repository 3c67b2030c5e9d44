// Live-mode charges on Stripe (PROCESSOR_LIVE=stripe) through the official univapay-node SDK: the
// real gateway, charge-service and refund-cancel-service processes, BullMQ, Postgres, Redis, and
// the Stripe fake over HTTP (the only fake: Stripe itself, built from its documentation and
// stripe-node's wire, libs/testing/src/stripe-fake.ts), reached by the adapter through the official
// `stripe` package. A card charged, held then captured, refunded, cancelled, declined with the
// mapped code, a Stripe outage and a late answer retried with the same key; a konbini payment
// completed by Stripe's signed webhook.
process.env.POLLING_INTERVAL = '100';

import { createHmac } from 'node:crypto';
import type SDK from 'univapay-node';
import { PaymentType } from 'univapay-node';
import {
  type Credentials,
  type FakeStripe,
  luhnValidRuns,
  REAL_CARD_NUMBER,
  sdkCardToken,
  sdkError,
  sdkFor,
  sdkOnlineToken,
  startFakeStripe,
  STRIPE_TEST_CARDS,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SECRET_KEY = 'sk_test_stripe_suite_secret_key';
const WEBHOOK_SECRET = 'whsec_stripe_suite_signing_secret';

let fake: FakeStripe;
// before the suite's own hooks: the processes are started with the fake's URL
beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
});
afterAll(() => fake?.close());

const suite = useSuite({
  variables: () => ({
    PROCESSOR_LIVE: 'stripe',
    STRIPE_API_URL: fake.url,
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CHARGE_POLLING_MAX_WAIT_MS: '2000',
  }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'refund-cancel-service'],
  workerVariables: { PROCESSOR_TIMEOUT_MS: '2000', CHARGE_SWEEP_INTERVAL_MS: '200', LOG_LEVEL: 'trace' },
});

let live: Credentials;
let sdk: SDK;
beforeAll(async () => {
  fake.webhookUrl = `${suite.url}/processor/stripe/webhooks`;
  live = await suite.env.liveStoreToken(suite.merchants.shop);
  sdk = sdkFor(suite.url, live);
});

type Any = any;
const storeId = () => suite.merchants.shop.store.id;
const poll = (id: string, until?: (charge: Any) => boolean) =>
  sdk.charges.poll(
    storeId(),
    id,
    undefined,
    undefined,
    until ? { successCondition: until } : undefined,
  ) as Promise<Any>;
const cardCharge = async (cardNumber: string, extra: Record<string, unknown> = {}) => {
  const token = await sdkCardToken(sdk, { cardNumber });
  return sdk.charges.create({
    transactionTokenId: token.id,
    amount: 1200,
    currency: 'JPY',
    ...extra,
  }) as Promise<Any>;
};
const intentOf = (chargeId: string) =>
  [...fake.paymentIntents.values()].find(
    (intent) => (intent.metadata as Record<string, string>).kessai_reference === chargeId,
  );
const chargeOf = (intent: Record<string, unknown> | undefined) =>
  intent ? fake.charges.get(intent.latest_charge as string) : undefined;

describe('live charges on Stripe', () => {
  it('charges a card once at Stripe, our charge id its Idempotency-Key and metadata', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER);
    const done = await poll(created.id);
    expect(done.status).toBe('successful');
    expect(intentOf(created.id)).toMatchObject({
      status: 'succeeded',
      amount: 1200,
      amount_received: 1200,
      currency: 'jpy',
    });
    expect(fake.createdFor(created.id)).toBe(1);
    expect(
      fake.requests.filter(
        (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.key === created.id,
      ),
    ).toHaveLength(1);
  });

  it('holds a card, then captures it at Stripe', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
    expect((await poll(created.id)).status).toBe('authorized');
    expect(intentOf(created.id)?.status).toBe('requires_capture');
    const res = await suite.gateway.as(live).request(`/stores/${storeId()}/charges/${created.id}/capture`, {
      method: 'POST',
      json: { amount: 1200, currency: 'JPY' },
    });
    expect(res.status).toBe(200);
    expect((await poll(created.id, (c) => c.status !== 'authorized')).status).toBe('successful');
    expect(intentOf(created.id)).toMatchObject({ status: 'succeeded', amount_received: 1200 });
  });

  it('cancels a held card: the PaymentIntent is canceled at Stripe', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
    expect((await poll(created.id)).status).toBe('authorized');
    const cancel: Any = await sdk.cancels.create(storeId(), created.id, {});
    const done: Any = await sdk.cancels.poll(storeId(), created.id, cancel.id);
    expect(done.status).toBe('successful');
    expect((await poll(created.id, (c) => c.status !== 'authorized')).status).toBe('canceled');
    expect(intentOf(created.id)?.status).toBe('canceled');
  });

  it('refunds part of a charge at Stripe', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER);
    expect((await poll(created.id)).status).toBe('successful');
    const refund: Any = await sdk.refunds.create(storeId(), created.id, {
      amount: 500,
      currency: 'JPY',
    });
    const done: Any = await sdk.refunds.poll(storeId(), created.id, refund.id);
    expect(done.status).toBe('successful');
    expect(chargeOf(intentOf(created.id))).toMatchObject({ amount_refunded: 500 });
  });

  it.each([
    [STRIPE_TEST_CARDS.genericDecline, 306, 'CARD_REJECTED'],
    // Stripe's test cards that are also test cards of Kessai's own catalogue are refused in live mode
    [STRIPE_TEST_CARDS.fraudulent, 319, 'FRAUD_SUSPECTED'],
  ])('fails the declined card %s with the SDK code of Stripe’s decline', async (number, code, message) => {
    const created = await cardCharge(number);
    const done = await poll(created.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code, message });
    expect(intentOf(created.id)?.status).toBe('requires_payment_method');
  });

  it('refuses at creation what it cannot take on Stripe: an online payment, a required 3-D Secure', async () => {
    const created = fake.executed.create;
    const online = await sdkOnlineToken(sdk);
    const refused = await sdkError(
      sdk.charges.create({ transactionTokenId: online.id, amount: 1200, currency: 'JPY' }),
    );
    expect(refused).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
    const card = await sdkCardToken(sdk, { cardNumber: REAL_CARD_NUMBER });
    const threeDs = await sdkError(
      sdk.charges.create({
        transactionTokenId: card.id,
        amount: 1200,
        currency: 'JPY',
        threeDs: { mode: 'require', redirectEndpoint: 'https://shop.example.test/back' },
      } as Any),
    );
    expect(threeDs).toMatchObject({ code: 'NOT_SUPPORTED_BY_PROCESSOR' });
    expect(fake.executed.create).toBe(created);
  });

  it('retries a Stripe outage with the same key: one payment', async () => {
    fake.failNext(1);
    const created = await cardCharge(REAL_CARD_NUMBER);
    expect((await poll(created.id)).status).toBe('successful');
    const attempts = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.key === created.id,
    );
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(fake.createdFor(created.id)).toBe(1);
  });

  it('answers a Stripe that replies after the worker gave up: the retry gets the replay, one payment', async () => {
    // executed at once, answered after three times the workers' PROCESSOR_TIMEOUT_MS
    fake.delayNext(1, 6_000);
    const created = await cardCharge(REAL_CARD_NUMBER);
    expect((await poll(created.id)).status).toBe('successful');
    const attempts = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === '/v1/payment_intents' && r.key === created.id,
    );
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(fake.createdFor(created.id)).toBe(1);
    expect(intentOf(created.id)).toMatchObject({ status: 'succeeded', amount_received: 1200 });
  });

  it('completes a konbini payment when Stripe’s signed webhook says it was paid, once on a redelivery', async () => {
    const token: Any = await sdk.transactionTokens.create({
      paymentType: PaymentType.KONBINI,
      type: 'one_time',
      email: 'buyer@example.test',
      data: {
        customerName: 'Yamada Taro',
        convenienceStore: 'lawson',
        phoneNumber: { countryCode: '81', localNumber: '9012345678' },
      },
    } as Any);
    const created: Any = await sdk.charges.create({
      transactionTokenId: token.id,
      amount: 3000,
      currency: 'JPY',
    });
    expect((await poll(created.id)).status).toBe('awaiting');
    const intent = intentOf(created.id)!;
    expect(intent).toMatchObject({ status: 'requires_action', payment_method_types: ['konbini'] });
    fake.payKonbini(intent.id as string);
    expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
    const delivery = fake.deliveries.find(
      (d) => d.type === 'payment_intent.succeeded' && d.body.includes(intent.id as string),
    )!;
    expect(delivery.status).toBe(204);
    // Stripe redelivers an event as it was, signed anew: acknowledged, nothing moves twice
    const at = Math.floor(Date.now() / 1000);
    const again = await suite.gateway.request('/processor/stripe/webhooks', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': `t=${at},v1=${createHmac('sha256', WEBHOOK_SECRET).update(`${at}.${delivery.body}`).digest('hex')}`,
      },
      body: delivery.body,
    });
    expect(again.status).toBe(204);
    expect(await sdk.charges.get(storeId(), created.id)).toMatchObject({
      status: 'successful',
      chargedAmount: 3000,
    });
  });

  it('acknowledges Stripe’s signed webhooks, and refuses one signed with another secret', async () => {
    const delivered = fake.deliveries.filter((d) => d.status !== null);
    expect(delivered.length).toBeGreaterThan(0);
    expect(new Set(delivered.map((d) => d.status))).toEqual(new Set([204]));
    const body = fake.deliveries[0].body;
    const res = await suite.gateway.request('/processor/stripe/webhooks', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
      },
      body,
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ status: 'error', code: 'INVALID_CREDENTIALS' });
  });
});

// charge-service decrypts card numbers and holds Stripe's secret key; refund-cancel-service holds
// the key too: everything they logged while the charges above ran (retries included)
describe('the workers’ logs', () => {
  it('never carry a card number, a CVV or Stripe’s secrets', () => {
    const text = suite.workers.map((worker) => worker.app.lines.join('\n')).join('\n');
    expect(text).toContain('"msg":"processor call failed transiently; retrying"');
    expect(luhnValidRuns(text)).toEqual([]);
    expect(text).not.toMatch(/cvv"?\s*[:=]\s*"?\d/i);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(WEBHOOK_SECRET);
  });
});
