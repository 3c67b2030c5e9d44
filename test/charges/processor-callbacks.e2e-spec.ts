// POST /processor/callbacks: the processor's signed notices about a charge, recorded as
// processor_notice_received for charge-service to act on; unsigned, stale or wrongly signed ones
// refused. The real gateway in-process, Postgres and Redis; no charge-service.
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { CHARGE_REQUESTED, PROCESSOR_NOTICE_RECEIVED } from '@kessai/contracts';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorCallback } from '@kessai/processor';
import { GatewayClient, listenLocally, outboxEventsOf, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

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
    suite.gateway.request('/processor/callbacks', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { [PROCESSOR_SIGNATURE_HEADER]: signature }),
      },
    });
  const secret = () => suite.env.config.PROCESSOR_CALLBACK_SECRET;

  it('refuses a missing, wrong or stale signature with 401 in the error envelope', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
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
    expect((await outboxEventsOf(suite.env, c.id)).map((e) => e.eventType)).toEqual([CHARGE_REQUESTED]);
  });

  it('records a valid notice as processor_notice_received (204); repeats are harmless', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    const body = notice(c.id);
    const signature = signProcessorCallback(body, secret());
    const res = await post(body, signature);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // outside the merchant API's rate limits: the processor's retries are never refused for volume
    expect(res.headers.get('x-remaining-requests-route')).toBeNull();
    expect((await post(body, signature)).status).toBe(204);
    const events = (await outboxEventsOf(suite.env, c.id)).filter(
      (e) => e.eventType === PROCESSOR_NOTICE_RECEIVED,
    );
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      aggregateType: 'charge',
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
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

describe('POST /processor/callbacks from a client sending refused signatures', () => {
  // a gateway behind a proxy it trusts (TRUST_PROXY), with a small refused-signature bucket: three
  // refused signatures, then the fourth empties it and blocks the IP (issue 27: open routes get a
  // per-IP limit, but a processor that signs right is never refused)
  let limited: NestFastifyApplication;
  let client: GatewayClient;
  beforeAll(async () => {
    limited = await createGatewayApp({
      ...suite.env.config,
      TRUST_PROXY: ['127.0.0.1', '::1'],
      RATE_LIMIT_CALLBACK_FAILURE_BURST: 3,
      RATE_LIMIT_CALLBACK_FAILURES_PER_MINUTE: 3,
    });
    client = new GatewayClient(await listenLocally(limited));
  });
  afterAll(() => limited?.close());

  const post = (from: string, body: string, signature: string) =>
    client.request('/processor/callbacks', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-forwarded-for': from,
        [PROCESSOR_SIGNATURE_HEADER]: signature,
      },
    });
  const signed = (body: string) => signProcessorCallback(body, suite.env.config.PROCESSOR_CALLBACK_SECRET);

  it('refuses an IP whose refused signatures emptied its bucket, before its body is read; others go on', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    const body = JSON.stringify({
      id: randomUUID(),
      event: 'operator_payment',
      operator_payment_id: 'sim_op_1',
      payment_id: 'sim_pay_1',
      reference: c.id,
      status: 'paid',
      amount: 1200,
      currency: 'JPY',
      occurred_on: new Date().toISOString(),
    });
    const attacker = '203.0.113.7';
    const processor = '198.51.100.20';
    // the processor's good notices are never counted, however many
    for (let i = 0; i < 5; i++) expect((await post(processor, body, signed(body))).status).toBe(204);
    for (let i = 0; i < 4; i++) expect((await post(attacker, body, 'garbage')).status).toBe(401);
    // blocked now: even a rightly signed notice from that IP waits, with Retry-After, in the envelope
    const blocked = await post(attacker, body, signed(body));
    expect(blocked.status).toBe(429);
    expect(blocked.body).toMatchObject({ status: 'error', code: 'TOO_MANY_REQUESTS' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // refused before the handler: a body that is no JSON gets 429 too, not the 401 of its signature
    expect((await post(attacker, '{not json', 'garbage')).status).toBe(429);
    // the processor, from its own address, is not affected
    expect((await post(processor, body, signed(body))).status).toBe(204);
  });
});
