// Test clocks over raw HTTP (the SDK has none): create, read, list, advance, delete; subscriptions
// created on a clock living on its time; live mode never sees one. The real gateway in-process,
// Postgres and Redis; no engine runs, so a clock with a due payment stays `advancing`.
import { randomUUID } from 'node:crypto';
import { type GatewayClient, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});
let liveApi: GatewayClient;

const FROZEN = '2025-01-31T03:00:00.000Z';

async function createClock(frozenTime = FROZEN, api = suite.api.shop): Promise<any> {
  const answer = await api.request('/test_clocks', {
    method: 'POST',
    json: { frozen_time: frozenTime, name: 'January' },
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

async function subscriptionOn(clockId: string, extra: Record<string, unknown> = {}): Promise<any> {
  const token = await suite.api.shop.cardToken({ type: 'subscription' });
  const answer = await suite.api.shop.request('/subscriptions', {
    method: 'POST',
    json: {
      transaction_token_id: token,
      amount: 1000,
      currency: 'JPY',
      period: 'monthly',
      test_clock_id: clockId,
      schedule_settings: { zone_id: 'Asia/Tokyo', preserve_end_of_month: true },
      ...extra,
    },
  });
  expect(answer.status).toBe(201);
  return answer.body;
}

const advance = (id: string, frozenTime: string) =>
  suite.api.shop.request(`/test_clocks/${id}/advance`, { method: 'POST', json: { frozen_time: frozenTime } });
const getClock = (id: string, api = suite.api.shop) => api.request(`/test_clocks/${id}`);

beforeAll(async () => {
  liveApi = suite.gateway.as(await suite.env.liveStoreToken(suite.merchants.shop));
}, 60_000);

describe('the test clock resource', () => {
  it('creates, reads and lists a merchant’s clocks; another merchant sees 404', async () => {
    const clock = await createClock();
    expect(clock).toEqual({
      id: expect.any(String),
      object: 'test_clock',
      name: 'January',
      frozen_time: FROZEN,
      status: 'ready',
      created_on: expect.any(String),
      updated_on: expect.any(String),
    });
    expect((await getClock(clock.id)).body).toEqual(clock);
    const list = await suite.api.shop.request('/test_clocks');
    expect(list.body.items.map((item: any) => item.id)).toContain(clock.id);
    expect(list.body.total_hits).toBeGreaterThanOrEqual(1);
    // a merchant-wide token of the same merchant sees it too
    const merchantApi = suite.api.shop.as(await suite.env.merchantToken(suite.merchants.shop));
    expect((await getClock(clock.id, merchantApi)).status).toBe(200);
    expect((await getClock(clock.id, suite.api.foreign)).status).toBe(404);
    expect((await getClock('not-an-id')).status).toBe(404);
  });

  it('refuses a missing or bad frozen_time', async () => {
    const missing = await suite.api.shop.request('/test_clocks', { method: 'POST', json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ field: 'frozen_time', reason: 'REQUIRED_VALUE' }]);
    const bad = await suite.api.shop.request('/test_clocks', {
      method: 'POST',
      json: { frozen_time: 'soon' },
    });
    expect(bad.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'frozen_time' }] });
  });

  it('advances only forward, at most five years at a time', async () => {
    const clock = await createClock();
    for (const earlier of [FROZEN, '2025-01-01T00:00:00.000Z']) {
      const refused = await advance(clock.id, earlier);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'frozen_time', reason: 'MUST_BE_FUTURE_TIME' }],
      });
    }
    const tooFar = await advance(clock.id, '2031-01-01T00:00:00.000Z');
    expect(tooFar.body.errors).toEqual([{ field: 'frozen_time', reason: 'NOT_WITHIN_BOUNDS' }]);
    const moved = await advance(clock.id, '2025-03-01T00:00:00.000Z');
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      id: clock.id,
      frozen_time: '2025-03-01T00:00:00.000Z',
      status: 'ready',
    });
    expect(
      (
        await suite.env.prisma.testClock.findUniqueOrThrow({ where: { id: clock.id } })
      ).frozenTime.toISOString(),
    ).toBe('2025-03-01T00:00:00.000Z');
    expect((await advance(randomUUID(), '2026-01-01T00:00:00.000Z')).status).toBe(404);
  });

  it('is refused to live-mode credentials', async () => {
    const clock = await createClock();
    for (const answer of [
      await liveApi.request('/test_clocks', { method: 'POST', json: { frozen_time: FROZEN } }),
      await liveApi.request(`/test_clocks/${clock.id}`),
      await liveApi.request('/test_clocks'),
      await liveApi.request(`/test_clocks/${clock.id}/advance`, {
        method: 'POST',
        json: { frozen_time: '2025-06-01T00:00:00.000Z' },
      }),
      await liveApi.request(`/test_clocks/${clock.id}`, { method: 'DELETE' }),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({
        code: 'INVALID_PERMISSIONS',
        errors: [{ field: null, reason: 'MODE_NOT_SUPPORTED' }],
      });
    }
    expect((await getClock(clock.id)).body.deleted_on).toBeUndefined();
  });
});

describe('subscriptions on a test clock', () => {
  it("are created at the clock's time: the first payment due at it, the clock advancing until it is settled", async () => {
    const clock = await createClock();
    const subscription = await subscriptionOn(clock.id);
    expect(subscription).toMatchObject({
      test_clock_id: clock.id,
      status: 'unverified',
      next_payment: { due_date: '2025-01-31', due_at: FROZEN },
    });
    const row = await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscription.id } });
    expect(row.scheduleCreatedAt.toISOString()).toBe(FROZEN);
    const payment = await suite.env.prisma.scheduledPayment.findFirstOrThrow({
      where: { subscriptionId: subscription.id },
    });
    expect(payment).toMatchObject({ testClockId: clock.id, status: 'pending' });
    expect(payment.nextTryAt?.toISOString()).toBe(FROZEN);
    // the payment is due at the clock's time and nothing settles it here
    expect((await getClock(clock.id)).body.status).toBe('advancing');
  });

  it('with a later start_on, wait on the clock: ready until it is advanced past the due time', async () => {
    const clock = await createClock();
    const subscription = await subscriptionOn(clock.id, {
      schedule_settings: { zone_id: 'Asia/Tokyo', start_on: '2025-02-28' },
    });
    expect(subscription.next_payment).toMatchObject({
      due_date: '2025-02-28',
      due_at: '2025-02-28T00:00:00.000Z',
    });
    expect((await getClock(clock.id)).body.status).toBe('ready');
    expect((await advance(clock.id, '2025-02-27T23:59:59.000Z')).body.status).toBe('ready');
    expect((await advance(clock.id, '2025-02-28T00:00:00.000Z')).body.status).toBe('advancing');
  });

  it("unsuspend tries the payment again from the clock's time", async () => {
    const clock = await createClock();
    const subscription = await subscriptionOn(clock.id);
    await suite.env.prisma.subscription.update({
      where: { id: subscription.id },
      data: { status: 'current' },
    });
    const suspend = await suite.api.shop.request(`/subscriptions/${subscription.id}/suspend`, {
      method: 'PATCH',
      json: {},
    });
    expect(suspend.status).toBe(200);
    expect((await getClock(clock.id)).body.status).toBe('ready');
    await advance(clock.id, '2025-02-10T00:00:00.000Z');
    const unsuspend = await suite.api.shop.request(`/subscriptions/${subscription.id}/unsuspend`, {
      method: 'PATCH',
      json: {},
    });
    expect(unsuspend.body.status).toBe('unpaid');
    const payment = await suite.env.prisma.scheduledPayment.findFirstOrThrow({
      where: { subscriptionId: subscription.id },
    });
    expect(payment.nextTryAt?.toISOString()).toBe('2025-02-10T00:00:00.000Z');
  });

  it('refuses a live token with a clock, naming test_clock_id, and a clock of another merchant or a deleted one', async () => {
    const clock = await createClock();
    const live = await liveApi.request('/subscriptions', {
      method: 'POST',
      json: {
        transaction_token_id: randomUUID(),
        amount: 1000,
        currency: 'JPY',
        period: 'monthly',
        test_clock_id: clock.id,
      },
    });
    expect(live.status).toBe(400);
    expect(live.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'test_clock_id', reason: 'MODE_NOT_SUPPORTED' }],
    });

    const foreignClock = await createClock(FROZEN, suite.api.foreign);
    const token = await suite.api.shop.cardToken({ type: 'subscription' });
    const body = { transaction_token_id: token, amount: 1000, currency: 'JPY', period: 'monthly' };
    const onForeign = await suite.api.shop.request('/subscriptions', {
      method: 'POST',
      json: { ...body, test_clock_id: foreignClock.id },
    });
    expect(onForeign.status).toBe(404);
    await suite.api.shop.request(`/test_clocks/${clock.id}`, { method: 'DELETE' });
    const onDeleted = await suite.api.shop.request('/subscriptions', {
      method: 'POST',
      json: { ...body, test_clock_id: clock.id },
    });
    expect(onDeleted.status).toBe(404);
    expect(await suite.env.prisma.subscription.count({ where: { transactionTokenId: token } })).toBe(0);
  });

  it('are canceled with their pending payments and events when the clock is deleted', async () => {
    const clock = await createClock();
    const first = await subscriptionOn(clock.id);
    const second = await subscriptionOn(clock.id);
    await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}/subscriptions/${second.id}`, {
      method: 'DELETE',
    });
    const elsewhere = await subscriptionOn((await createClock()).id);

    const deleted = await suite.api.shop.request(`/test_clocks/${clock.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await getClock(clock.id)).status).toBe(404);
    expect((await suite.api.shop.request(`/test_clocks/${clock.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await advance(clock.id, '2026-01-01T00:00:00.000Z')).status).toBe(404);

    const rows = await suite.env.prisma.subscription.findMany({
      where: { id: { in: [first.id, second.id, elsewhere.id] } },
      include: { scheduledPayments: true },
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(first.id)).toMatchObject({
      status: 'canceled',
      scheduledPayments: [{ status: 'canceled' }],
    });
    expect(byId.get(elsewhere.id)).toMatchObject({
      status: 'unverified',
      scheduledPayments: [{ status: 'pending' }],
    });
    const canceledEvents = await suite.env.prisma.outboxEvent.findMany({
      where: { eventType: 'subscription_canceled', aggregateId: { in: [first.id, second.id] } },
    });
    // the one canceled before keeps its single event
    expect(canceledEvents.map((event) => event.aggregateId).sort()).toEqual([first.id, second.id].sort());
    expect(canceledEvents.find((event) => event.aggregateId === first.id)?.payload).toMatchObject({
      status: 'canceled',
      scheduled_payment_id: first.next_payment.id,
    });
  });
});
