// POST /processor/komoju/webhooks: KOMOJU's webhook deliveries, verified by X-Komoju-Signature (hex
// HMAC-SHA256 of the raw body, KOMOJU_WEBHOOK_SECRET) and recorded as processor_notice_received
// for charge-service to act on; a wrong signature is refused with 401 and changes nothing. The
// real gateway in-process, Postgres and Redis; the deliveries are built as KOMOJU documents them
// (https://doc.komoju.com/docs/webhooks) and signed as the KOMOJU fake signs them.
import { randomUUID } from 'node:crypto';
import { CHARGE_REQUESTED, PROCESSOR_NOTICE_RECEIVED } from '@kessai/contracts';
import { KOMOJU_SIGNATURE_HEADER, signKomojuWebhook } from '@kessai/processor';
import { outboxEventsOf, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const WEBHOOK_SECRET = 'komoju-webhook-secret-for-the-suite';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  variables: { KOMOJU_WEBHOOK_SECRET: WEBHOOK_SECRET },
});

/** An Event of KOMOJU (komoju-ruby-sdk's Event and Payment models) of a konbini payment under `reference`. */
function event(type: string, reference: string, eventId = `ev_${randomUUID()}`) {
  const paymentId = randomUUID().replace(/-/g, '').slice(0, 26);
  return JSON.stringify({
    id: eventId,
    type,
    resource: 'event',
    created_at: new Date().toISOString(),
    reason: null,
    data: {
      id: paymentId,
      resource: 'payment',
      status: type === 'payment.captured' ? 'captured' : 'authorized',
      amount: 1200,
      tax: 0,
      total: 1200,
      currency: 'JPY',
      external_order_num: reference,
      amount_refunded: 0,
      captured_at: type === 'payment.captured' ? new Date().toISOString() : null,
      created_at: new Date().toISOString(),
      payment_details: { type: 'konbini', store: 'lawson', email: 'taro@example.com' },
      refunds: [],
    },
  });
}

const post = (body: string, signature?: string) =>
  suite.gateway.request('/processor/komoju/webhooks', {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-komoju-event': (JSON.parse(body) as { type: string }).type,
      ...(signature === undefined ? {} : { [KOMOJU_SIGNATURE_HEADER]: signature }),
    },
  });

describe('POST /processor/komoju/webhooks', () => {
  it('refuses a missing, malformed or wrong signature with 401 in the error envelope, changing nothing', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    const body = event('payment.captured', c.id);
    for (const signature of [
      undefined,
      'garbage',
      signKomojuWebhook(body, 'another-secret-of-some-length'),
      signKomojuWebhook(body.replace('1200', '1300'), WEBHOOK_SECRET),
    ]) {
      const res = await post(body, signature);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 'error', code: 'INVALID_CREDENTIALS', errors: [] });
    }
    expect((await outboxEventsOf(suite.env, c.id)).map((e) => e.eventType)).toEqual([CHARGE_REQUESTED]);
  });

  it('records a paid konbini as a deposit notice (204); a redelivery is harmless', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    const body = event('payment.captured', c.id);
    const signature = signKomojuWebhook(body, WEBHOOK_SECRET);
    const res = await post(body, signature);
    expect(res.status).toBe(204);
    expect((await post(body, signature)).status).toBe(204);
    const notices = (await outboxEventsOf(suite.env, c.id)).filter(
      (e) => e.eventType === PROCESSOR_NOTICE_RECEIVED,
    );
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatchObject({
      payload: {
        charge_id: c.id,
        notice_id: (JSON.parse(body) as { id: string }).id,
        event: 'deferred_payment',
        status: 'deposit_received',
      },
    });
  });

  it('acknowledges an event the charge path has no use for (a konbini created) and records nothing', async () => {
    const c = await suite.api.shop.charge(await suite.api.shop.onlineToken());
    const body = event('payment.authorized', c.id);
    expect((await post(body, signKomojuWebhook(body, WEBHOOK_SECRET))).status).toBe(204);
    expect((await outboxEventsOf(suite.env, c.id)).map((e) => e.eventType)).toEqual([CHARGE_REQUESTED]);
  });
});
