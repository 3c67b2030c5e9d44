// POST /processor/callbacks: the processor's signed notices about a charge, recorded as
// processor_notice_received for charge-service to act on; unsigned, stale or wrongly signed ones
// refused. The real gateway in-process, Postgres and Redis; no charge-service.
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CHARGE_REQUESTED, PROCESSOR_NOTICE_RECEIVED } from '@kessai/contracts';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorCallback } from '@kessai/processor';
import {
  GatewayClient,
  listenLocally,
  outboxEventsOf,
  RELAXED_RATE_LIMITS,
  TestEnvironment,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../apps/gateway/src/app.factory';

let env: TestEnvironment;
let app: NestFastifyApplication;
/** the gateway unauthenticated, as the processor calls it */
let gateway: GatewayClient;
let shop: SeededMerchant;
/** the gateway as the shop's store token */
let shopApi: GatewayClient;

beforeAll(async () => {
  env = await TestEnvironment.create(RELAXED_RATE_LIMITS);
  app = await createGatewayApp(env.config);
  gateway = new GatewayClient(await listenLocally(app));
  shop = await env.seedPciMerchant('shop');
  shopApi = gateway.as(shop);
});

afterAll(async () => {
  await env?.close(app);
});

describe('POST /processor/callbacks', () => {
  const notice = (reference: string) =>
    JSON.stringify({
      id: randomUUID(),
      event: 'operator_payment',
      operator_payment_id: 'sim_op_1',
      payment_id: 'sim_pay_1',
      reference,
      status: 'paid',
      amount: 1200,
      currency: 'JPY',
      occurred_on: new Date().toISOString(),
    });
  const post = (body: string, signature?: string) =>
    gateway.request('/processor/callbacks', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { [PROCESSOR_SIGNATURE_HEADER]: signature }),
      },
    });
  const secret = () => env.config.PROCESSOR_CALLBACK_SECRET;

  it('refuses a missing, wrong or stale signature with 401 in the error envelope', async () => {
    const c = await shopApi.charge(await shopApi.onlineToken());
    const body = notice(c.id);
    for (const signature of [
      undefined,
      'garbage',
      signProcessorCallback(body, 'another secret of at least thirty-two chars'),
      signProcessorCallback(body, secret(), new Date(Date.now() - 10 * 60_000)),
      signProcessorCallback(body.replace('paid', 'expired'), secret()),
    ]) {
      const res = await post(body, signature);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 'error', code: 'INVALID_CREDENTIALS', errors: [] });
    }
    expect((await outboxEventsOf(env, c.id)).map((e) => e.eventType)).toEqual([CHARGE_REQUESTED]);
  });

  it('records a valid notice as processor_notice_received (204); repeats are harmless', async () => {
    const c = await shopApi.charge(await shopApi.onlineToken());
    const body = notice(c.id);
    const signature = signProcessorCallback(body, secret());
    const res = await post(body, signature);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // outside the merchant API's rate limits: the processor's retries are never refused for volume
    expect(res.headers.get('x-remaining-requests-route')).toBeNull();
    expect((await post(body, signature)).status).toBe(204);
    const events = (await outboxEventsOf(env, c.id)).filter((e) => e.eventType === PROCESSOR_NOTICE_RECEIVED);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      aggregateType: 'charge',
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      payload: { charge_id: c.id, notice_id: JSON.parse(body).id, event: 'operator_payment', status: 'paid' },
    });
  });

  it('answers 404 for a reference that is not one of our charges', async () => {
    for (const reference of [randomUUID(), 'not-a-charge']) {
      const body = notice(reference);
      const res = await post(body, signProcessorCallback(body, secret()));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});
