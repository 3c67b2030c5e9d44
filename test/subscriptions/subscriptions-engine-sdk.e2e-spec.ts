// Subscriptions charged for real, through the official SDK: the gateway in-process, charge-service,
// subscription-service and webhook-service as processes, the processor simulator. Test clocks (raw
// HTTP: the SDK has none) move time; the engine charges what falls due through the real queues.
process.env.POLLING_INTERVAL = '100';

import type SDK from 'univapay-node';
import { SubscriptionPeriod, WebHookTrigger } from 'univapay-node';
import {
  APPROVED_TEST_CARD,
  eventually,
  sdkCardToken,
  sdkError,
  useSuite,
  verifiedWebhook,
  WebhookReceiver,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const DECLINED_CARD = '4111111111111111';

const suite = useSuite({
  variables: {
    SUBSCRIPTION_SCHEDULER_IDLE_MS: '50',
    CHARGE_POLLING_MAX_WAIT_MS: '3000',
    CHARGE_SWEEP_INTERVAL_MS: '200',
  },
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true } },
  workers: ['charge-service', 'subscription-service', 'webhook-service'],
});
let receiver: WebhookReceiver;

const sdk = (): SDK => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

beforeAll(async () => {
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
}, 60_000);

function cardToken(cardNumber = APPROVED_TEST_CARD): Promise<any> {
  return sdkCardToken(sdk(), { cardNumber, type: 'subscription' });
}

async function createClock(frozenTime: string): Promise<string> {
  const answer = await suite.api.shop.request('/test_clocks', {
    method: 'POST',
    json: { frozen_time: frozenTime },
  });
  expect(answer.status).toBe(201);
  return answer.body.id;
}

/** Advances the clock and waits (GET /test_clocks/{id}) until the engine has settled everything due. */
async function advance(clockId: string, frozenTime: string): Promise<void> {
  const moved = await suite.api.shop.request(`/test_clocks/${clockId}/advance`, {
    method: 'POST',
    json: { frozen_time: frozenTime },
  });
  expect(moved.status).toBe(200);
  await eventually(
    async () => (await suite.api.shop.request(`/test_clocks/${clockId}`)).body.status === 'ready',
    {
      timeoutMs: 60_000,
      what: `the clock to be ready at ${frozenTime}`,
    },
  );
}

/** A subscription on the clock, through the SDK (test_clock_id is Kessai's extension). */
async function subscribeOn(clockId: string, data: Record<string, unknown> = {}): Promise<any> {
  const token = await cardToken();
  return sdk().subscriptions.create({
    transactionTokenId: token.id,
    amount: 1000,
    currency: 'JPY',
    period: SubscriptionPeriod.MONTHLY,
    testClockId: clockId,
    ...data,
  } as never);
}

const get = (id: string): Promise<any> => sdk().subscriptions.get(storeId(), id);
const payments = async (id: string): Promise<any[]> =>
  ((await sdk().subscriptions.payments.list(storeId(), id, { limit: 100 })) as any).items;
const ready = (clockId: string) =>
  eventually(async () => (await suite.api.shop.request(`/test_clocks/${clockId}`)).body.status === 'ready', {
    timeoutMs: 30_000,
    what: 'the clock to be ready',
  });

describe('subscriptions charged by the engine, through the SDK', () => {
  it('a monthly subscription: the first charge, then twelve cycles on a test clock, each charged once on its date', async () => {
    const webhook: any = await sdk().webHooks.create(
      {
        triggers: [WebHookTrigger.SUBSCRIPTION_PAYMENT],
        url: `${receiver.url}/subscriptions`,
      },
      undefined,
      storeId(),
    );
    const clock = await createClock('2025-01-31T03:00:00Z');
    const created = await subscribeOn(clock, { scheduleSettings: { preserveEndOfMonth: true } });
    expect(created.status).toBe('unverified');

    // the SDK's own composite: the subscription until verified, then its first charge until final
    const first: any = await sdk().subscriptions.pollSubscriptionWithFirstCharge(storeId(), created.id);
    expect(first.charge).toMatchObject({
      status: 'successful',
      chargedAmount: 1000,
      subscriptionId: created.id,
      transactionTokenType: 'subscription',
    });
    expect(first.subscription).toMatchObject({ id: created.id, status: 'current' });
    await ready(clock);
    expect((await get(created.id)).nextPayment).toMatchObject({ dueDate: '2025-02-28', isPaid: false });

    // the merchant hears of it, signed, with the subscription as data
    const [delivery] = await receiver.waitFor('/subscriptions', 'subscription_payment', created.id);
    expect(verifiedWebhook(webhook.signingSecret, delivery)).toMatchObject({
      event: 'subscription_payment',
      data: { id: created.id, status: 'current' },
    });

    await advance(clock, '2026-01-31T01:00:00Z');
    const list = await payments(created.id);
    const paid = list.filter((payment) => payment.isPaid).sort((a, b) => a.dueDate.localeCompare(b.dueDate));
    expect(paid.map((payment) => payment.dueDate)).toEqual([
      '2025-01-31',
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
      '2025-05-31',
      '2025-06-30',
      '2025-07-31',
      '2025-08-31',
      '2025-09-30',
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-31',
    ]);
    // exactly one charge per cycle, successful, for the cycle's amount
    for (const payment of paid) {
      const charges: any = await sdk().subscriptions.payments.listCharges(storeId(), created.id, payment.id);
      expect(charges.items.map((charge: any) => [charge.status, charge.requestedAmount])).toEqual([
        ['successful', 1000],
      ]);
    }
    const all: any = await sdk().subscriptions.charges(storeId(), created.id, { limit: 100 });
    expect(all.items).toHaveLength(13);
    expect((await get(created.id)).nextPayment).toMatchObject({ dueDate: '2026-02-28' });
    await receiver.waitFor('/subscriptions', 'subscription_payment', created.id, 13, 30_000);
  });

  it('a card that starts failing: unpaid, retried, suspended; a new card and unsuspend bring it back', async () => {
    const clock = await createClock('2025-03-01T00:00:00Z');
    const created = await subscribeOn(clock);
    await ready(clock);
    expect((await get(created.id)).status).toBe('current');

    const declined = await cardToken(DECLINED_CARD);
    await sdk().subscriptions.updateToken(storeId(), created.id, {
      transactionTokenId: declined.id,
    });
    await advance(clock, '2025-04-01T00:30:00Z');
    let subscription = await get(created.id);
    expect(subscription.status).toBe('unpaid');
    // the failed payment stays next, with its retry the day after its due date
    expect(subscription.nextPayment).toMatchObject({ dueDate: '2025-04-01', isPaid: false });
    expect(subscription.nextPayment.retryDate).toMatch(/^2025-04-02T00:00:00/);

    await advance(clock, '2025-04-05T00:00:00Z');
    subscription = await get(created.id);
    expect(subscription.status).toBe('suspended');
    const failing = subscription.nextPayment;
    const tries: any = await sdk().subscriptions.payments.listCharges(storeId(), created.id, failing.id);
    expect(tries.items.map((charge: any) => charge.status)).toEqual(['failed', 'failed', 'failed']);

    // a working card, then unsuspend: the payment is tried at the clock's time and paid
    const fixed = await cardToken();
    await sdk().subscriptions.updateToken(storeId(), created.id, { transactionTokenId: fixed.id });
    expect((await sdk().subscriptions.unsuspend(storeId(), created.id)).status).toBe('unpaid');
    await ready(clock);
    subscription = await get(created.id);
    expect(subscription.status).toBe('current');
    const retried: any = await sdk().subscriptions.payments.get(storeId(), created.id, failing.id);
    expect(retried.isPaid).toBe(true);
    expect(subscription.nextPayment).toMatchObject({ dueDate: '2025-05-01' });
  });

  it('a fixed plan with an initial amount counts down and completes', async () => {
    const clock = await createClock('2025-05-10T00:00:00Z');
    const created = await subscribeOn(clock, {
      period: SubscriptionPeriod.WEEKLY,
      initialAmount: 500,
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 3 },
    });
    expect(created).toMatchObject({ paymentsLeft: 3, amountLeft: 2500 });
    await ready(clock);
    expect(await get(created.id)).toMatchObject({ status: 'current', paymentsLeft: 2, amountLeft: 2000 });
    await advance(clock, '2025-05-17T01:00:00Z');
    expect(await get(created.id)).toMatchObject({ paymentsLeft: 1, amountLeft: 1000 });
    await advance(clock, '2025-06-30T00:00:00Z');
    const done = await get(created.id);
    expect(done).toMatchObject({ status: 'completed', paymentsLeft: 0, amountLeft: 0 });
    // nothing to come: next_payment is the last one, paid (decision 0044)
    expect(done.nextPayment).toMatchObject({ isPaid: true, isLastPayment: true });
    expect(done.nextPaymentDate).toBeUndefined();
    expect((await payments(created.id)).map((payment) => [payment.amount, payment.isPaid]).sort()).toEqual([
      [1000, true],
      [1000, true],
      [500, true],
    ]);
  });

  it('cancels at once, or on the next payment without charging it', async () => {
    const clock = await createClock('2025-07-01T00:00:00Z');
    const now = await subscribeOn(clock);
    const later = await subscribeOn(clock, { scheduleSettings: { terminationMode: 'on_next_payment' } });
    await ready(clock);
    await sdk().subscriptions.delete(storeId(), now.id);
    await sdk().subscriptions.delete(storeId(), later.id);
    expect((await get(now.id)).status).toBe('canceled');
    // on_next_payment: still current until its next payment falls due
    expect((await get(later.id)).status).toBe('current');
    await advance(clock, '2025-08-05T00:00:00Z');
    expect((await get(later.id)).status).toBe('canceled');
    for (const id of [now.id, later.id]) {
      const charges: any = await sdk().subscriptions.charges(storeId(), id);
      expect(charges.items).toHaveLength(1);
    }
  });

  it('follows the zone’s clocks and month ends through the API', async () => {
    // New York: 09:00 local is 14:00 UTC in winter and 13:00 UTC once DST starts on 03-09
    const clock = await createClock('2025-03-01T15:00:00Z');
    const weekly = await subscribeOn(clock, {
      period: SubscriptionPeriod.WEEKLY,
      scheduleSettings: { zoneId: 'America/New_York' },
    });
    // 06-30 following month ends: 07-31, 08-31, 09-30
    const monthEnd = await subscribeOn(clock, {
      scheduleSettings: { startOn: '2025-06-30', preserveEndOfMonth: true, zoneId: 'Asia/Tokyo' },
    });
    await advance(clock, '2025-09-30T01:00:00Z');
    const weeklyDue = (await payments(weekly.id))
      .filter((payment) => payment.isPaid)
      .map((payment) => payment.dueAt)
      .sort();
    expect(weeklyDue.slice(1, 3)).toEqual(['2025-03-08T14:00:00.000Z', '2025-03-15T13:00:00.000Z']);
    const monthEndDates = (await payments(monthEnd.id))
      .filter((payment) => payment.isPaid)
      .map((payment) => payment.dueDate)
      .sort();
    expect(monthEndDates).toEqual(['2025-06-30', '2025-07-31', '2025-08-31', '2025-09-30']);
  });

  it('an authorization-only first charge: authorized until captured, by the merchant or after the delay', async () => {
    const token = await cardToken();
    const held: any = await sdk().subscriptions.create({
      transactionTokenId: token.id,
      amount: 1500,
      currency: 'JPY',
      period: SubscriptionPeriod.MONTHLY,
      firstChargeAuthorizationOnly: true,
    });
    expect(held.firstChargeAuthorizationOnly).toBe(true);
    const authorized: any = await sdk().subscriptions.poll(storeId(), held.id);
    expect(authorized.status).toBe('authorized');
    const [charge]: any[] = ((await sdk().subscriptions.charges(storeId(), held.id)) as any).items;
    expect(charge).toMatchObject({ status: 'authorized', requestedAmount: 1500 });
    // its first payment stays the next one: nothing more is scheduled until it is captured
    expect((await get(held.id)).nextPayment).toMatchObject({ dueDate: expect.any(String), isPaid: false });
    await sdk().captures.create(storeId(), charge.id, { amount: 1500, currency: 'JPY' });
    await eventually(async () => (await get(held.id)).status === 'current', {
      what: 'the captured first charge to make the subscription current',
    });
    expect((await payments(held.id)).filter((payment) => payment.isPaid)).toHaveLength(1);

    const delayed: any = await sdk().subscriptions.create({
      transactionTokenId: (await cardToken()).id,
      amount: 1500,
      currency: 'JPY',
      period: SubscriptionPeriod.MONTHLY,
      firstChargeAuthorizationOnly: true,
      firstChargeCaptureAfter: 'PT1S',
    });
    expect(delayed.firstChargeCaptureAfter).toBe('PT1S');
    await eventually(async () => (await get(delayed.id)).status === 'current', {
      timeoutMs: 20_000,
      what: 'the first charge to be captured after its delay',
    });

    const refused = await suite.api.shop.request('/subscriptions', {
      method: 'POST',
      json: {
        transaction_token_id: (await cardToken()).id,
        amount: 1500,
        currency: 'JPY',
        period: 'monthly',
        first_charge_capture_after: 'P8D',
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(
      expect.arrayContaining([{ field: 'first_charge_capture_after', reason: 'INVALID_DURATION' }]),
    );
  });

  it('changes the plan: a number of cycles counted from the start, then completes; open-ended again', async () => {
    const clock = await createClock('2025-09-01T00:00:00Z');
    const created = await subscribeOn(clock);
    await advance(clock, '2025-10-01T00:30:00Z');
    expect((await payments(created.id)).filter((payment) => payment.isPaid)).toHaveLength(2);

    // two paid, the third pending: four cycles in all leaves two
    const fixed: any = await sdk().subscriptions.update(storeId(), created.id, {
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 4 },
    } as never);
    expect(fixed).toMatchObject({ paymentsLeft: 2, cyclesLeft: 2, amountLeft: 2000 });
    expect(fixed.nextPayment).toMatchObject({ dueDate: '2025-11-01', isLastPayment: false });
    // fewer cycles than already paid (or pending) is refused, and so is a fixed total
    for (const [plan, field, reason] of [
      [{ planType: 'fixed_cycles', fixedCycles: 2 }, 'subscription_plan.fixed_cycles', 'NOT_WITHIN_BOUNDS'],
      [
        { planType: 'fixed_cycle_amount', fixedCycleAmount: 1500 },
        'subscription_plan.fixed_cycle_amount',
        'NOT_WITHIN_BOUNDS',
      ],
    ] as const) {
      const error = await sdkError(
        sdk().subscriptions.update(storeId(), created.id, { subscriptionPlan: plan } as never),
      );
      expect(error.errors).toContainEqual({ field, reason });
    }

    await advance(clock, '2026-06-01T00:00:00Z');
    const done = await get(created.id);
    expect(done).toMatchObject({ status: 'completed', paymentsLeft: 0, amountLeft: 0 });
    const paid = (await payments(created.id)).filter((payment) => payment.isPaid);
    expect(paid.map((payment) => payment.dueDate).sort()).toEqual([
      '2025-09-01',
      '2025-10-01',
      '2025-11-01',
      '2025-12-01',
    ]);

    // an open-ended one made fixed, then open-ended again, goes on
    const other = await subscribeOn(clock);
    await ready(clock);
    await sdk().subscriptions.update(storeId(), other.id, {
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 2 },
    } as never);
    expect((await get(other.id)).nextPayment).toMatchObject({ isLastPayment: true });
    const open: any = await sdk().subscriptions.update(storeId(), other.id, {
      subscriptionPlan: null,
    } as never);
    // open-ended again: nothing counted down (0, as the SDK types numbers; decision 0044)
    expect(open).toMatchObject({ paymentsLeft: 0, amountLeft: 0 });
    expect(open).not.toHaveProperty('cyclesLeft');
    expect(open.nextPayment.isLastPayment).toBe(false);
    // a total: 2,500 with 1,000 paid leaves 1,000 and a last 500
    const total: any = await sdk().subscriptions.update(storeId(), other.id, {
      subscriptionPlan: { planType: 'fixed_cycle_amount', fixedCycleAmount: 2500 },
    } as never);
    expect(total).toMatchObject({ paymentsLeft: 2, amountLeft: 1500 });
    await advance(clock, '2026-09-02T00:00:00Z');
    expect(await get(other.id)).toMatchObject({ status: 'completed', amountLeft: 0 });
    const amounts = (await payments(other.id))
      .filter((payment) => payment.isPaid)
      .map((payment) => payment.amount);
    expect(amounts.sort((a, b) => b - a)).toEqual([1000, 1000, 500]);
  });
});
