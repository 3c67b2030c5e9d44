// Live-mode charges on KOMOJU (PROCESSOR_LIVE=komoju) through the official univapay-node SDK: the
// real gateway, charge-service and refund-cancel-service processes, BullMQ, Postgres, Redis, and
// the KOMOJU fake over HTTP (the only fake: KOMOJU itself, built from its documentation,
// libs/testing/src/komoju-fake.ts). A card charged, held then captured, refunded, declined, a
// KOMOJU outage retried with the same key; a konbini payment completed by KOMOJU's signed webhook.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { PaymentType } from 'univapay-node';
import {
  type Credentials,
  type FakeKomoju,
  KOMOJU_TEST_CARDS,
  luhnValidRuns,
  REAL_CARD_NUMBER,
  sdkCardToken,
  sdkError,
  sdkFor,
  sdkOnlineToken,
  startFakeKomoju,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SECRET_KEY = 'sk_test_komoju_suite_secret_key';
const WEBHOOK_SECRET = 'komoju-suite-webhook-secret-token';

let fake: FakeKomoju;
// before the suite's own hooks: the processes are started with the fake's URL
beforeAll(async () => {
  fake = await startFakeKomoju({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
});
afterAll(() => fake?.close());

const suite = useSuite({
  variables: () => ({
    PROCESSOR_LIVE: 'komoju',
    KOMOJU_API_URL: fake.url,
    KOMOJU_SECRET_KEY: SECRET_KEY,
    KOMOJU_WEBHOOK_SECRET: WEBHOOK_SECRET,
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
  fake.webhookUrl = `${suite.url}/processor/komoju/webhooks`;
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
const paymentOf = (chargeId: string) =>
  [...fake.payments.values()].find((payment) => payment.external_order_num === chargeId);

describe('live charges on KOMOJU', () => {
  it('charges a card once at KOMOJU, our charge id its idempotency key and order number', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER);
    const done = await poll(created.id);
    expect(done.status).toBe('successful');
    expect(paymentOf(created.id)).toMatchObject({ status: 'captured', amount: 1200, currency: 'JPY' });
    expect(fake.createdFor(created.id)).toBe(1);
    expect(
      fake.requests.filter(
        (r) => r.method === 'POST' && r.path === '/api/v1/payments' && r.key === created.id,
      ),
    ).toHaveLength(1);
  });

  it('holds a card, then captures it at KOMOJU', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
    expect((await poll(created.id)).status).toBe('authorized');
    expect(paymentOf(created.id)?.status).toBe('authorized');
    const res = await suite.gateway.as(live).request(`/stores/${storeId()}/charges/${created.id}/capture`, {
      method: 'POST',
      json: { amount: 1200, currency: 'JPY' },
    });
    expect(res.status).toBe(200);
    expect((await poll(created.id, (c) => c.status !== 'authorized')).status).toBe('successful');
    expect(paymentOf(created.id)?.status).toBe('captured');
  });

  it('refuses a partial capture with PARTIAL_CAPTURE_NOT_SUPPORTED, never sending it to KOMOJU', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER, { capture: false });
    expect((await poll(created.id)).status).toBe('authorized');
    const captures = fake.executed.capture;
    const res = await suite.gateway.as(live).request(`/stores/${storeId()}/charges/${created.id}/capture`, {
      method: 'POST',
      json: { amount: 600, currency: 'JPY' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', code: 'PARTIAL_CAPTURE_NOT_SUPPORTED' });
    expect((await sdk.charges.get(storeId(), created.id)).status).toBe('authorized');
    expect(fake.executed.capture).toBe(captures);
  });

  it('refuses at creation what KOMOJU cannot take: an online payment, a required 3-D Secure', async () => {
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

  it('refunds part of a charge at KOMOJU', async () => {
    const created = await cardCharge(REAL_CARD_NUMBER);
    expect((await poll(created.id)).status).toBe('successful');
    const refund: Any = await sdk.refunds.create(storeId(), created.id, {
      amount: 500,
      currency: 'JPY',
    });
    const done: Any = await sdk.refunds.poll(storeId(), created.id, refund.id);
    expect(done.status).toBe('successful');
    expect(paymentOf(created.id)).toMatchObject({ status: 'captured', amount_refunded: 500 });
  });

  it('fails a declined card with the SDK code of KOMOJU’s decline', async () => {
    const created = await cardCharge(KOMOJU_TEST_CARDS.cardUnusable);
    const done = await poll(created.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: 306, message: 'CARD_REJECTED' });
  });

  it('retries a KOMOJU outage with the same key: one payment', async () => {
    fake.failNext(1);
    const created = await cardCharge(REAL_CARD_NUMBER);
    expect((await poll(created.id)).status).toBe('successful');
    const attempts = fake.requests.filter(
      (r) => r.method === 'POST' && r.path === '/api/v1/payments' && r.key === created.id,
    );
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(fake.createdFor(created.id)).toBe(1);
  });

  it('completes a konbini payment when KOMOJU’s signed webhook says it was paid', async () => {
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
    const payment = paymentOf(created.id);
    expect(payment?.payment_details).toMatchObject({
      type: 'konbini',
      store: 'lawson',
      email: 'buyer@example.test',
    });
    await fake.payKonbini(payment!.id);
    const delivery = fake.deliveries.find(
      (d) => d.event === 'payment.captured' && d.body.includes(payment!.id),
    );
    expect(delivery?.status).toBe(204);
    expect((await poll(created.id, (c) => c.status !== 'awaiting')).status).toBe('successful');
  });
});

// charge-service decrypts card numbers and holds KOMOJU's secret key; refund-cancel-service holds
// the key too: everything they logged while the charges above ran (retries included)
describe('the workers’ logs', () => {
  it('never carry a card number, a CVV, KOMOJU’s secret key or its Basic credentials', () => {
    const text = suite.workers.map((worker) => worker.app.lines.join('\n')).join('\n');
    expect(text).toContain('"msg":"processor call failed transiently; retrying"');
    expect(luhnValidRuns(text)).toEqual([]);
    expect(text).not.toMatch(/cvv"?\s*[:=]\s*"?\d/i);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(Buffer.from(`${SECRET_KEY}:`).toString('base64'));
    expect(text).not.toContain(WEBHOOK_SECRET);
  });
});
