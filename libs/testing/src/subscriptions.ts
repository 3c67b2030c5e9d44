// Subscription rows written as POST /subscriptions writes them (the subscription, its first
// scheduled payment, subscription_created), for suites that run the engine without a gateway, and
// probes of what the engine did.
import { randomUUID } from 'node:crypto';
import { computeSchedule, storedScheduleInput, type StoredSchedule } from '@kessai/schedule';
import type { TestEnvironment } from './environment';
import type { StoreScope } from './rows';

export interface SubscriptionRowOptions {
  amount?: number;
  initialAmount?: number;
  /** a named period (default monthly) */
  period?: string;
  cyclicalPeriod?: string;
  zoneId?: string;
  startOn?: string;
  preserveEndOfMonth?: boolean;
  retryInterval?: string;
  subscriptionPlan?:
    | { plan_type: 'fixed_cycles'; fixed_cycles: number }
    | {
        plan_type: 'fixed_cycle_amount';
        fixed_cycle_amount: number;
      };
  /** the creation instant (a test clock's time); now unless told */
  createdAt?: Date;
  testClockId?: string;
}

function scopeIds(scope: StoreScope) {
  return 'merchant' in scope ? { merchantId: scope.merchant.id, storeId: scope.store.id } : scope;
}

/**
 * A subscription on `tokenId` with its first scheduled payment (due as the schedule says) and its
 * subscription_created event, in one transaction. Resolves to the subscription's id.
 */
export async function insertSubscription(
  env: TestEnvironment,
  scope: StoreScope,
  tokenId: string,
  options: SubscriptionRowOptions = {},
): Promise<string> {
  const { merchantId, storeId } = scopeIds(scope);
  const id = randomUUID();
  const createdAt = options.createdAt ?? new Date();
  const stored: StoredSchedule = {
    scheduleCreatedAt: createdAt,
    period: options.cyclicalPeriod ? null : (options.period ?? 'monthly'),
    cyclicalPeriod: options.cyclicalPeriod ?? null,
    zoneId: options.zoneId ?? 'Asia/Tokyo',
    startOn: options.startOn ?? null,
    preserveEndOfMonth: options.preserveEndOfMonth ?? false,
    amount: BigInt(options.amount ?? 1000),
    initialAmount: options.initialAmount === undefined ? null : BigInt(options.initialAmount),
    installmentPlan: null,
    subscriptionPlan: options.subscriptionPlan ?? null,
    retryInterval: options.retryInterval ?? null,
  };
  const schedule = computeSchedule(storedScheduleInput(stored));
  const first = schedule.payments[0];
  const finite = schedule.finite;
  const total = schedule.payments.reduce((sum, payment) => sum + payment.amount, 0n);
  const cycles = schedule.payments.filter((payment) => payment.cycle !== null).length;
  const token = await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
  const paymentId = randomUUID();
  await env.prisma.$transaction([
    env.prisma.subscription.create({
      data: {
        id,
        merchantId,
        storeId,
        transactionTokenId: tokenId,
        mode: token.mode,
        period: stored.period as never,
        cyclicalPeriod: stored.cyclicalPeriod,
        amount: stored.amount,
        currency: 'JPY',
        initialAmount: stored.initialAmount,
        scheduleCreatedAt: createdAt,
        startOn: stored.startOn === null ? null : new Date(`${stored.startOn}T00:00:00Z`),
        zoneId: schedule.zoneId,
        preserveEndOfMonth: stored.preserveEndOfMonth,
        retryInterval: stored.retryInterval,
        subscriptionPlan: options.subscriptionPlan,
        paymentsLeft: finite ? schedule.payments.length : null,
        cyclesLeft: finite ? cycles : null,
        amountLeft: finite ? total : null,
        testClockId: options.testClockId ?? null,
      },
    }),
    env.prisma.scheduledPayment.create({
      data: {
        id: paymentId,
        subscriptionId: id,
        sequence: 1,
        cycle: first.cycle,
        dueDate: new Date(`${first.dueDate}T00:00:00Z`),
        dueAt: first.dueAt,
        zoneId: first.zoneId,
        amount: first.amount,
        currency: 'JPY',
        isLastPayment: first.isLastPayment,
        nextTryAt: first.dueAt,
        testClockId: options.testClockId ?? null,
      },
    }),
    env.prisma.outboxEvent.create({
      data: {
        merchantId,
        storeId,
        aggregateType: 'subscription',
        aggregateId: id,
        eventType: 'subscription_created',
        payload: {
          subscription_id: id,
          store_id: storeId,
          status: 'unverified',
          scheduled_payment_id: paymentId,
          charge_id: null,
        },
      },
    }),
  ]);
  return id;
}

/** A test clock of the scope's merchant at `frozenTime`. */
export async function insertTestClock(env: TestEnvironment, scope: StoreScope, frozenTime: Date) {
  const { merchantId } = scopeIds(scope);
  const clock = await env.prisma.testClock.create({ data: { merchantId, frozenTime } });
  return clock.id;
}

/**
 * Whether the clock's engine work is done: no payment on it processing, or pending and due by its
 * time (what GET /test_clocks answers as `ready`).
 */
export async function testClockIsReady(env: TestEnvironment, clockId: string): Promise<boolean> {
  const rows = await env.prisma.$queryRaw<{ busy: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM scheduled_payments sp JOIN test_clocks tc ON tc.id = sp.test_clock_id
       WHERE sp.test_clock_id = ${clockId}::uuid
         AND (sp.status = 'processing' OR (sp.status = 'pending' AND sp.next_try_at <= tc.frozen_time))
    ) AS busy`;
  return !rows[0].busy;
}

/** A subscription's scheduled payments in order, with their charges (oldest first). */
export async function paymentsOf(env: TestEnvironment, subscriptionId: string) {
  return env.prisma.scheduledPayment.findMany({
    where: { subscriptionId },
    orderBy: { sequence: 'asc' },
    include: { charges: { orderBy: { paymentAttempt: 'asc' } } },
  });
}

/** A subscription's events' types, oldest first. */
export async function subscriptionEventTypes(env: TestEnvironment, subscriptionId: string) {
  const events = await env.prisma.outboxEvent.findMany({
    where: { aggregateId: subscriptionId },
    orderBy: { sequence: 'asc' },
  });
  return events.map((event) => event.eventType);
}

/**
 * `count` open-ended monthly subscriptions of `amount` spread over `tokenIds`, each with a first
 * payment not yet due (next_try_at a year away, so nothing charges them until `releaseDuePayments`),
 * written by two statements: a benchmark's or a concurrency test's volume. No subscription_created
 * events. Resolves to the subscriptions' ids.
 */
export async function insertWaitingSubscriptions(
  env: TestEnvironment,
  scope: StoreScope,
  tokenIds: readonly string[],
  count: number,
  amount = 1000,
): Promise<string[]> {
  const { merchantId, storeId } = scopeIds(scope);
  const rows = await env.prisma.$queryRaw<{ id: string }[]>`
    WITH input AS (
      SELECT gen_random_uuid() AS id, (${tokenIds}::uuid[])[1 + (n % ${tokenIds.length})] AS token_id
        FROM generate_series(0, ${count} - 1) AS n
    ),
    subscription AS (
      INSERT INTO subscriptions (id, merchant_id, store_id, transaction_token_id, mode, status, period,
                                 amount, currency, schedule_created_at, zone_id)
      SELECT i.id, ${merchantId}::uuid, ${storeId}::uuid, i.token_id, t.mode, 'unverified', 'monthly',
             ${amount}, 'JPY', now(), 'Asia/Tokyo'
        FROM input i JOIN transaction_tokens t ON t.id = i.token_id
      RETURNING id, schedule_created_at
    )
    INSERT INTO scheduled_payments (subscription_id, sequence, cycle, due_date, due_at, zone_id, amount,
                                    currency, next_try_at)
    SELECT id, 1, 1, (schedule_created_at AT TIME ZONE 'Asia/Tokyo')::date, schedule_created_at,
           'Asia/Tokyo', ${amount}, 'JPY', now() + interval '1 year'
      FROM subscription
    RETURNING subscription_id AS id`;
  return rows.map((row) => row.id);
}

/** Makes the waiting first payments of `subscriptionIds` due now: the engine charges them. */
export async function releaseDuePayments(env: TestEnvironment, subscriptionIds: readonly string[]) {
  await env.prisma.$executeRaw`
    UPDATE scheduled_payments SET next_try_at = now()
     WHERE subscription_id = ANY(${subscriptionIds}::uuid[]) AND sequence = 1 AND status = 'pending'`;
}
