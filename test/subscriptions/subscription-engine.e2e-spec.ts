// The subscription engine end to end: subscription-service's scheduler and settlement, charge-service
// and the processor simulator, real Postgres, Redis and BullMQ. Subscriptions are written as POST
// /subscriptions writes them; test clocks are moved by their row, as POST /test_clocks/{id}/advance
// does, and the engine processes everything that falls due in between.
import {
  APPROVED_TEST_CARD,
  eventually,
  insertCardToken,
  insertSubscription,
  insertTestClock,
  paymentsOf,
  subscriptionEventTypes,
  testClockIsReady,
  useSuite,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';

const DECLINED_CARD = '4111111111111111';

const suite = useSuite({
  variables: { SUBSCRIPTION_SCHEDULER_IDLE_MS: '50' },
  simulator: (callbackSecret) => startProcessorSimulator({ latencyMs: 0, callbackSecret }),
  merchants: { shop: {} },
  workers: ['charge-service', 'subscription-service'],
});

const recurringToken = (cardNumber = APPROVED_TEST_CARD) =>
  insertCardToken(suite.env, suite.merchants.shop, { cardNumber, type: 'recurring' });

/** Moves the clock to `to` and waits until the engine has processed everything due by then. */
async function advance(clockId: string, to: string): Promise<void> {
  await suite.env.prisma.testClock.update({ where: { id: clockId }, data: { frozenTime: new Date(to) } });
  await eventually(() => testClockIsReady(suite.env, clockId), {
    timeoutMs: 60_000,
    what: `the engine to process what falls due by ${to}`,
  });
}

const subscriptionRow = (id: string) => suite.env.prisma.subscription.findUniqueOrThrow({ where: { id } });
const day = (date: Date) => date.toISOString().slice(0, 10);

describe('subscription engine', () => {
  it('charges the first payment at once, in real time', async () => {
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(), {
      amount: 1200,
    });
    await eventually(async () => (await subscriptionRow(id)).status === 'current', {
      what: 'the first payment to be paid',
    });
    const [first, second] = await paymentsOf(suite.env, id);
    expect(first).toMatchObject({ status: 'paid', attempts: 1, amount: 1200n });
    expect(first.charges).toHaveLength(1);
    expect(first.charges[0]).toMatchObject({
      status: 'successful',
      subscriptionId: id,
      paymentAttempt: 1,
      requestedAmount: 1200n,
      transactionTokenType: 'recurring',
    });
    // the next cycle is scheduled a month on, at 09:00 in Tokyo, and not charged before
    expect(second).toMatchObject({ sequence: 2, status: 'pending', attempts: 0 });
    expect(second.nextTryAt).toEqual(second.dueAt);
    expect(second.dueAt.getTime()).toBeGreaterThan(Date.now());
    expect(await subscriptionEventTypes(suite.env, id)).toEqual([
      'subscription_created',
      'subscription_payment',
    ]);
  });

  it('charges twelve monthly cycles once each, on their dates, across month ends', async () => {
    const clock = await insertTestClock(suite.env, suite.merchants.shop, new Date('2025-01-31T03:00:00Z'));
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(), {
      createdAt: new Date('2025-01-31T03:00:00Z'),
      preserveEndOfMonth: true,
      testClockId: clock,
    });
    await advance(clock, '2025-01-31T03:00:00Z');
    expect((await subscriptionRow(id)).status).toBe('current');

    // a year later, 01:00 UTC = 10:00 in Tokyo: the 2026-01-31 cycle is due too
    await advance(clock, '2026-01-31T01:00:00Z');
    const payments = await paymentsOf(suite.env, id);
    const paid = payments.filter((payment) => payment.status === 'paid');
    expect(paid.map((payment) => day(payment.dueDate))).toEqual([
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
    for (const payment of paid) {
      expect(payment.charges.map((charge) => charge.status)).toEqual(['successful']);
      // 09:00 in Tokyo, but the first, which was due at creation
      if (payment.sequence > 1) expect(payment.dueAt.toISOString()).toMatch(/T00:00:00.000Z$/);
    }
    // the successful payment date is the clock's time when it was paid, never the wall clock's
    expect(paid[12].successfulPaymentDate!.getTime()).toBeLessThanOrEqual(Date.parse('2026-01-31T01:00:00Z'));
    expect(payments.at(-1)).toMatchObject({ sequence: 14, status: 'pending', attempts: 0 });
    expect(day(payments.at(-1)!.dueDate)).toBe('2026-02-28');
    const events = await subscriptionEventTypes(suite.env, id);
    expect(events.filter((type) => type === 'subscription_payment')).toHaveLength(13);
    expect(events.filter((type) => type !== 'subscription_payment')).toEqual(['subscription_created']);
  });

  it('retries a payment that starts failing, then suspends the subscription', async () => {
    const clock = await insertTestClock(suite.env, suite.merchants.shop, new Date('2025-03-01T00:00:00Z'));
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(), {
      createdAt: new Date('2025-03-01T00:00:00Z'),
      testClockId: clock,
    });
    await advance(clock, '2025-03-01T00:00:00Z');
    expect((await subscriptionRow(id)).status).toBe('current');

    // the card starts failing: the subscription now charges a card the issuer declines
    const declined = await recurringToken(DECLINED_CARD);
    await suite.env.prisma.subscription.update({ where: { id }, data: { transactionTokenId: declined } });
    await advance(clock, '2025-04-01T00:30:00Z');
    let [, second] = await paymentsOf(suite.env, id);
    expect((await subscriptionRow(id)).status).toBe('unpaid');
    expect(second).toMatchObject({ status: 'pending', attempts: 1 });
    expect(second.charges.map((charge) => [charge.status, charge.errorCode])).toEqual([['failed', 306]]);
    // the next try: the day after the due date, 09:00 in Tokyo
    expect(second.nextTryAt!.toISOString()).toBe('2025-04-02T00:00:00.000Z');

    await advance(clock, '2025-04-02T00:30:00Z');
    [, second] = await paymentsOf(suite.env, id);
    expect(second).toMatchObject({ status: 'pending', attempts: 2 });
    expect(second.nextTryAt!.toISOString()).toBe('2025-04-03T00:00:00.000Z');

    await advance(clock, '2025-04-10T00:00:00Z');
    [, second] = await paymentsOf(suite.env, id);
    // the store's failed_charges_to_cancel (3) tries failed: suspended, the payment kept paused
    expect((await subscriptionRow(id)).status).toBe('suspended');
    expect(second).toMatchObject({ status: 'pending', attempts: 3, nextTryAt: null });
    expect(second.charges.map((charge) => charge.status)).toEqual(['failed', 'failed', 'failed']);
    expect(await subscriptionEventTypes(suite.env, id)).toEqual([
      'subscription_created',
      'subscription_payment',
      'subscription_failure',
      'subscription_failure',
      'subscription_failure',
      'subscription_suspended',
    ]);
    expect(await paymentsOf(suite.env, id)).toHaveLength(2);
  });

  it('completes a fixed plan, counting down what is left', async () => {
    const clock = await insertTestClock(suite.env, suite.merchants.shop, new Date('2025-05-10T00:00:00Z'));
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(), {
      createdAt: new Date('2025-05-10T00:00:00Z'),
      period: 'weekly',
      amount: 1000,
      initialAmount: 500,
      subscriptionPlan: { plan_type: 'fixed_cycles', fixed_cycles: 3 },
      testClockId: clock,
    });
    expect(await subscriptionRow(id)).toMatchObject({ paymentsLeft: 3, cyclesLeft: 3, amountLeft: 2500n });
    await advance(clock, '2025-05-10T00:00:00Z');
    expect(await subscriptionRow(id)).toMatchObject({
      status: 'current',
      paymentsLeft: 2,
      cyclesLeft: 2,
      amountLeft: 2000n,
    });
    await advance(clock, '2025-05-17T01:00:00Z');
    expect(await subscriptionRow(id)).toMatchObject({ paymentsLeft: 1, amountLeft: 1000n });
    await advance(clock, '2025-06-30T00:00:00Z');
    expect(await subscriptionRow(id)).toMatchObject({
      status: 'completed',
      paymentsLeft: 0,
      cyclesLeft: 0,
      amountLeft: 0n,
    });
    const payments = await paymentsOf(suite.env, id);
    expect(payments.map((payment) => [payment.amount, payment.status, payment.isLastPayment])).toEqual([
      [500n, 'paid', false],
      [1000n, 'paid', false],
      [1000n, 'paid', true],
    ]);
    expect((await subscriptionEventTypes(suite.env, id)).slice(-2)).toEqual([
      'subscription_payment',
      'subscription_completed',
    ]);
  });

  it('leaves a subscription whose first payment failed unconfirmed, charging nothing more', async () => {
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(DECLINED_CARD));
    await eventually(async () => (await subscriptionRow(id)).status === 'unconfirmed', {
      what: 'the first payment to fail',
    });
    const payments = await paymentsOf(suite.env, id);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ status: 'failed', attempts: 1, nextTryAt: null });
    expect(await subscriptionEventTypes(suite.env, id)).toEqual([
      'subscription_created',
      'subscription_failure',
    ]);
  });

  it('ends a subscription on its next payment without charging it (on_next_payment)', async () => {
    const clock = await insertTestClock(suite.env, suite.merchants.shop, new Date('2025-07-01T00:00:00Z'));
    const id = await insertSubscription(suite.env, suite.merchants.shop, await recurringToken(), {
      createdAt: new Date('2025-07-01T00:00:00Z'),
      testClockId: clock,
    });
    await advance(clock, '2025-07-01T00:00:00Z');
    const [, second] = await paymentsOf(suite.env, id);
    await suite.env.prisma.scheduledPayment.update({
      where: { id: second.id },
      data: { terminateWithStatus: 'canceled' },
    });
    await advance(clock, '2025-07-20T00:00:00Z');
    // not due yet: nothing happened
    expect((await subscriptionRow(id)).status).toBe('current');
    await advance(clock, '2025-08-05T00:00:00Z');
    expect((await subscriptionRow(id)).status).toBe('canceled');
    const payments = await paymentsOf(suite.env, id);
    expect(payments).toHaveLength(2);
    expect(payments[1]).toMatchObject({ status: 'canceled', attempts: 0 });
    expect(payments[1].charges).toHaveLength(0);
    expect((await subscriptionEventTypes(suite.env, id)).at(-1)).toBe('subscription_canceled');
  });
});
