import { SUBSCRIPTION_CANCELED, SUBSCRIPTION_CREATED, SUBSCRIPTION_SUSPENDED } from '@kessai/contracts';
import { FINAL_SUBSCRIPTION_STATUSES, SUBSCRIPTION_MOVES } from '@kessai/domain';
import type {
  ProcessingMode,
  SubscriptionPeriod,
  SubscriptionStatus,
  TerminationMode,
} from '../generated/prisma/enums';
import { subscriptionEventSql, subscriptionUpdatedSql } from '../outbox/event-sql';
import type { OutboxEventType } from '../outbox/outbox-events';
import { outboxInsertFrom, type OutboxEventSql } from '../outbox/outbox-writer';
import { defineStatement, pg, sqlList, sqlLiteral } from '../sql/statement';

/**
 * The subscription API's writes (docs/subscriptions.md, "The API"): each status change is one
 * conditional UPDATE (`WHERE status IN (…)`) with its event and the change of the open scheduled
 * payment in the same statement, so that concurrent requests and the engine never both win. Each
 * statement locks the target row in the caller's scope first (`target`, FOR UPDATE): it then reads
 * the row as the last concurrent change left it, so a refusal names the status that refused it.
 */

const FINAL = sqlList(FINAL_SUBSCRIPTION_STATUSES);
const CANCELABLE = sqlList(SUBSCRIPTION_MOVES.cancel.from);
const SUSPENDABLE = sqlList(SUBSCRIPTION_MOVES.suspend.from);
const UNSUSPENDABLE = sqlList(SUBSCRIPTION_MOVES.unsuspend.from);

/** The subscription in the caller's scope (a null store: every store of the merchant). */
const inScope = (p: { id: string; merchantId: string; storeId: string }, alias = '') =>
  `${alias}id = ${p.id} AND ${alias}merchant_id = ${p.merchantId}
   AND (${p.storeId} IS NULL OR ${alias}store_id = ${p.storeId})`;

const scopeParams = { id: pg.uuid, merchantId: pg.uuid, storeId: pg.nullable(pg.uuid) } as const;

/** The event columns over a CTE of moved subscriptions and one of their touched payments. */
const eventRows = (moved: string, payment: string | null) =>
  payment === null
    ? `(SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status FROM ${moved} m) AS changed`
    : `(SELECT m.id AS subscription_id, m.merchant_id, m.store_id, m.status,
               p.id AS scheduled_payment_id, NULL::uuid AS charge_id
          FROM ${moved} m LEFT JOIN ${payment} p ON p.subscription_id = m.id) AS changed`;

const eventSpec = {
  aggregateType: 'subscription',
  aggregateId: 'subscription_id',
  merchantId: 'merchant_id',
  storeId: 'store_id',
} as const;

/** Which subscriptions: those `where` selects over `s`, joined with `from` when given. */
export interface SubscriptionSelection {
  from?: string;
  where: string;
}

/**
 * The selected subscriptions that are not final, locked in id order (ORDER BY comes before the
 * lock), the order the engine's settlements lock theirs in (LOCK_SETTLEMENTS): a cancellation of
 * many and a settlement wait for each other instead of deadlocking, where an UPDATE alone would lock
 * them in whatever order its scan met them. Run as a statement of its own before the one that
 * cancels them (a store's or a clock's deletion), so that the cancel's snapshot is taken once every
 * lock is held: a payment claimed while the lock waited is then seen processing, not pending.
 */
export function lockCancelableSubscriptionsSql(select: SubscriptionSelection): string {
  return `
      SELECT s.id FROM subscriptions s${select.from === undefined ? '' : `, ${select.from}`}
       WHERE ${select.where} AND s.status IN ${CANCELABLE}
       ORDER BY s.id
         FOR NO KEY UPDATE OF s`;
}

/**
 * The CTEs `locked`, `moved`, `payment` and `event` that cancel at once every subscription `select`
 * names that is not final, as DELETE of each would: → canceled, its pending payment canceled (never
 * tried again; one whose charge is in flight is left to the engine, which settles it and creates
 * nothing after), one subscription_canceled event each. `locked` takes them in id order
 * (lockCancelableSubscriptionsSql; already held when that statement ran first). For a WITH list: a
 * deleted test clock's subscriptions, a deleted store's.
 */
export function cancelSubscriptionsCtes(p: { correlationId: string }, select: SubscriptionSelection): string {
  return `
    locked AS MATERIALIZED (${lockCancelableSubscriptionsSql(select)}
    ),
    moved AS (
      UPDATE subscriptions s SET status = 'canceled', updated_on = now()
        FROM locked
       WHERE s.id = locked.id AND s.status IN ${CANCELABLE}
      RETURNING s.id, s.merchant_id, s.store_id, s.status
    ),
    payment AS (
      UPDATE scheduled_payments sp SET status = 'canceled', next_try_at = NULL, updated_on = now()
        FROM moved
       WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
      RETURNING sp.id, sp.subscription_id
    ),
    event AS (
      ${outboxInsertFrom(eventRows('moved', 'payment'), {
        ...eventSpec,
        event: subscriptionEventSql(SUBSCRIPTION_CANCELED),
        correlationId: p.correlationId,
      })}
    )`;
}

/**
 * Creates a subscription (`status`: unverified, or current when its first payment is due later:
 * libs/domain subscriptionEntryStatus), its first scheduled payment (pending, due at `dueAt`, tried
 * then) and its subscription_created event, in one statement — only while its store (and its test
 * clock, when it has one) is not deleted: otherwise nothing is written and no row is returned. Both
 * rows are read FOR SHARE, so a DELETE of either that is under way is waited for and then seen: a
 * subscription is never created after the cancellation of its store's or clock's subscriptions, where
 * that cancellation would not see it.
 */
export const CREATE_SUBSCRIPTION = defineStatement({
  name: 'subscriptions_create',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    transactionTokenId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    status: pg.enum<SubscriptionStatus>('subscription_status'),
    period: pg.nullable(pg.enum<SubscriptionPeriod>('subscription_period')),
    cyclicalPeriod: pg.nullable(pg.text),
    amount: pg.int8,
    currency: pg.text,
    initialAmount: pg.nullable(pg.int8),
    scheduleCreatedAt: pg.timestamptz,
    startOn: pg.nullable(pg.date),
    zoneId: pg.text,
    preserveEndOfMonth: pg.bool,
    retryInterval: pg.nullable(pg.text),
    terminationMode: pg.enum<TerminationMode>('termination_mode'),
    installmentPlan: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    subscriptionPlan: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    paymentsLeft: pg.nullable(pg.int4),
    cyclesLeft: pg.nullable(pg.int4),
    amountLeft: pg.nullable(pg.int8),
    descriptor: pg.nullable(pg.text),
    onlyDirectCurrency: pg.bool,
    threeDs: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    firstChargeAuthorizationOnly: pg.bool,
    firstChargeCaptureAfter: pg.nullable(pg.text),
    metadata: pg.jsonb<Record<string, unknown>>(),
    testClockId: pg.nullable(pg.uuid),
    paymentId: pg.uuid,
    paymentCycle: pg.nullable(pg.int4),
    paymentDueDate: pg.date,
    paymentDueAt: pg.timestamptz,
    paymentAmount: pg.int8,
    paymentIsLast: pg.bool,
    correlationId: pg.nullable(pg.text),
  },
  columns: { created_on: pg.timestamptz },
  text: (p) => `
    WITH created AS (
      INSERT INTO subscriptions (id, merchant_id, store_id, transaction_token_id, mode, status, period,
                                 cyclical_period, amount, currency, initial_amount, schedule_created_at,
                                 start_on, zone_id, preserve_end_of_month, retry_interval,
                                 termination_mode, installment_plan, subscription_plan, payments_left,
                                 cycles_left, amount_left, descriptor, only_direct_currency, three_ds,
                                 first_charge_authorization_only, first_charge_capture_after,
                                 metadata, test_clock_id, created_on, updated_on)
      SELECT ${p.id}, ${p.merchantId}, ${p.storeId}, ${p.transactionTokenId}, ${p.mode}, ${p.status},
             ${p.period}, ${p.cyclicalPeriod}, ${p.amount}, ${p.currency}, ${p.initialAmount},
             ${p.scheduleCreatedAt}, ${p.startOn}, ${p.zoneId}, ${p.preserveEndOfMonth},
             ${p.retryInterval}, ${p.terminationMode}, ${p.installmentPlan}, ${p.subscriptionPlan},
             ${p.paymentsLeft}, ${p.cyclesLeft}, ${p.amountLeft}, ${p.descriptor},
             ${p.onlyDirectCurrency}, ${p.threeDs}, ${p.firstChargeAuthorizationOnly},
             ${p.firstChargeCaptureAfter}, ${p.metadata}, ${p.testClockId}, now(), now()
       WHERE EXISTS (SELECT 1 FROM stores s
                      WHERE s.id = ${p.storeId} AND s.merchant_id = ${p.merchantId}
                        AND s.deleted_on IS NULL
                        FOR SHARE)
         AND (${p.testClockId} IS NULL
              OR EXISTS (SELECT 1 FROM test_clocks c
                          WHERE c.id = ${p.testClockId} AND c.merchant_id = ${p.merchantId}
                            AND c.deleted_on IS NULL
                            FOR SHARE))
      RETURNING id, merchant_id, store_id, status, created_on
    ),
    payment AS (
      INSERT INTO scheduled_payments (id, subscription_id, sequence, cycle, due_date, due_at, zone_id,
                                      amount, currency, status, is_last_payment, attempts, next_try_at,
                                      test_clock_id, created_on, updated_on)
      SELECT ${p.paymentId}, id, 1, ${p.paymentCycle}, ${p.paymentDueDate}, ${p.paymentDueAt}, ${p.zoneId},
             ${p.paymentAmount}, ${p.currency}, 'pending', ${p.paymentIsLast}, 0, ${p.paymentDueAt},
             ${p.testClockId}, created_on, created_on
        FROM created
      RETURNING id, subscription_id
    ),
    event AS (
      ${outboxInsertFrom(eventRows('created', 'payment'), {
        ...eventSpec,
        event: subscriptionEventSql(SUBSCRIPTION_CREATED),
        correlationId: p.correlationId,
      })}
    )
    SELECT created_on FROM created`,
});

/**
 * The shape cancel, suspend and unsuspend share: the subscription locked in the caller's scope
 * (`target`), moved to `to` only from one of `from` (`moved`), its pending payment changed by
 * `paymentSet` (a SET list over `sp` and `moved`), and the event over the moved row (naming the
 * payment when `eventNamesPayment`). Answers the status as read after the lock, and whether it moved.
 */
function statusTransition(
  p: { id: string; merchantId: string; storeId: string; correlationId: string },
  change: {
    to: SubscriptionStatus;
    /** the statuses it moves from, a parenthesized SQL list */
    from: string;
    paymentSet: string;
    event: OutboxEventSql<OutboxEventType>;
    eventNamesPayment: boolean;
  },
): string {
  return `
    WITH target AS (SELECT id, status FROM subscriptions WHERE ${inScope(p)} FOR UPDATE),
    moved AS (
      UPDATE subscriptions s SET status = ${sqlLiteral(change.to)}, updated_on = now()
        FROM target
       WHERE s.id = target.id AND s.status IN ${change.from}
      RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
    ),
    payment AS (
      UPDATE scheduled_payments sp SET ${change.paymentSet}, updated_on = now()
        FROM moved
       WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
      RETURNING sp.id, sp.subscription_id
    ),
    event AS (
      ${outboxInsertFrom(eventRows('moved', change.eventNamesPayment ? 'payment' : null), {
        ...eventSpec,
        event: change.event,
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target`;
}

/**
 * Cancels a subscription at once (DELETE, termination_mode immediate): a status that is not final →
 * canceled; its pending payment → canceled (never tried again); a payment whose charge is in flight
 * (processing) is left to the engine, which settles it and creates nothing after. With its
 * subscription_canceled event. `moved` false: nothing changed (see `status`).
 */
export const CANCEL_SUBSCRIPTION = defineStatement({
  name: 'subscriptions_cancel',
  params: { ...scopeParams, correlationId: pg.nullable(pg.text) },
  columns: { status: pg.enum<SubscriptionStatus>('subscription_status'), moved: pg.bool },
  text: (p) =>
    statusTransition(p, {
      to: SUBSCRIPTION_MOVES.cancel.to,
      from: CANCELABLE,
      paymentSet: `status = 'canceled', next_try_at = NULL`,
      event: subscriptionEventSql(SUBSCRIPTION_CANCELED),
      eventNamesPayment: true,
    }),
});

/**
 * Suspends a subscription at once: current or unpaid → suspended; its pending payment paused
 * (next_try_at NULL: the engine does not try it). With its subscription_suspended event.
 */
export const SUSPEND_SUBSCRIPTION = defineStatement({
  name: 'subscriptions_suspend',
  params: { ...scopeParams, correlationId: pg.nullable(pg.text) },
  columns: { status: pg.enum<SubscriptionStatus>('subscription_status'), moved: pg.bool },
  text: (p) =>
    statusTransition(p, {
      to: SUBSCRIPTION_MOVES.suspend.to,
      from: SUSPENDABLE,
      paymentSet: `next_try_at = NULL`,
      event: subscriptionEventSql(SUBSCRIPTION_SUSPENDED),
      eventNamesPayment: true,
    }),
});

/**
 * Unsuspends a subscription: suspended → unpaid (api-reference §5.3), its pending payment tried
 * again from now (the clock's time for a subscription on a test clock), never before it is due; a
 * termination into `suspended` marked on it is dropped. With subscription_updated (changed: status).
 */
export const UNSUSPEND_SUBSCRIPTION = defineStatement({
  name: 'subscriptions_unsuspend',
  params: { ...scopeParams, correlationId: pg.nullable(pg.text) },
  columns: { status: pg.enum<SubscriptionStatus>('subscription_status'), moved: pg.bool },
  text: (p) =>
    statusTransition(p, {
      to: SUBSCRIPTION_MOVES.unsuspend.to,
      from: UNSUSPENDABLE,
      paymentSet: `next_try_at = GREATEST(sp.due_at, COALESCE(
               (SELECT c.frozen_time FROM test_clocks c WHERE c.id = moved.test_clock_id), now())),
             terminate_with_status = CASE WHEN sp.terminate_with_status = 'suspended' THEN NULL
                                          ELSE sp.terminate_with_status END`,
      event: subscriptionUpdatedSql(`ARRAY['status']`),
      eventNamesPayment: false,
    }),
});

const FIRST_RETRIABLE = sqlList(SUBSCRIPTION_MOVES.first_retried.from);

/**
 * A new token for a subscription whose first payment failed (decision 0031): the subscription
 * unconfirmed → unverified with the token, and its first payment (sequence 1, failed) pending again,
 * due now (the clock's time for a subscription on a test clock), so that the scheduler tries it at
 * once with the new token. The subscription is locked before its payment (decision 0023). With
 * subscription_updated (changed: transaction_token_id, status). `moved` false: not unconfirmed, or
 * its first payment is not a failed one (nothing changed).
 */
export const RETRY_FIRST_PAYMENT = defineStatement({
  name: 'subscriptions_retry_first_payment',
  params: { ...scopeParams, transactionTokenId: pg.uuid, correlationId: pg.nullable(pg.text) },
  columns: { status: pg.enum<SubscriptionStatus>('subscription_status'), moved: pg.bool },
  text: (p) => `
    WITH target AS (SELECT id, status FROM subscriptions WHERE ${inScope(p)} FOR UPDATE),
    moved AS (
      UPDATE subscriptions s
         SET status = ${sqlLiteral(SUBSCRIPTION_MOVES.first_retried.to)},
             transaction_token_id = ${p.transactionTokenId}, updated_on = now()
        FROM target
       WHERE s.id = target.id AND s.status IN ${FIRST_RETRIABLE}
         AND EXISTS (SELECT 1 FROM scheduled_payments sp
                      WHERE sp.subscription_id = s.id AND sp.sequence = 1 AND sp.status = 'failed')
      RETURNING s.id, s.merchant_id, s.store_id, s.status, s.test_clock_id
    ),
    payment AS (
      UPDATE scheduled_payments sp
         SET status = 'pending', updated_on = now(),
             next_try_at = COALESCE(
               (SELECT c.frozen_time FROM test_clocks c WHERE c.id = moved.test_clock_id), now())
        FROM moved
       WHERE sp.subscription_id = moved.id AND sp.sequence = 1 AND sp.status = 'failed'
      RETURNING sp.id, sp.subscription_id
    ),
    event AS (
      ${outboxInsertFrom(eventRows('moved', null), {
        ...eventSpec,
        event: subscriptionUpdatedSql(`ARRAY['transaction_token_id', 'status']`),
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target`,
});

/**
 * termination_mode on_next_payment (of a cancel or a suspend): marks the pending payment with the
 * status the subscription takes instead of charging it, while the subscription is in one of
 * `from`. The subscription row is locked first, so a concurrent status change is seen. With
 * subscription_updated (changed: next_payment.terminate_with_status). `marked` false: the
 * subscription was not in `from`, or has no pending payment (its charge is in flight).
 */
export const MARK_TERMINATION = defineStatement({
  name: 'subscriptions_mark_termination',
  params: {
    ...scopeParams,
    from: pg.array(pg.enum<SubscriptionStatus>('subscription_status')),
    terminateWith: pg.enum<SubscriptionStatus>('subscription_status'),
    correlationId: pg.nullable(pg.text),
  },
  columns: {
    status: pg.enum<SubscriptionStatus>('subscription_status'),
    has_pending: pg.bool,
    marked: pg.bool,
  },
  text: (p) => `
    WITH target AS (SELECT id, status FROM subscriptions WHERE ${inScope(p)} FOR UPDATE),
    marked AS (
      UPDATE scheduled_payments sp SET terminate_with_status = ${p.terminateWith}, updated_on = now()
        FROM target
       WHERE sp.subscription_id = target.id AND sp.status = 'pending' AND target.status = ANY (${p.from})
      RETURNING sp.subscription_id
    ),
    touched AS (
      UPDATE subscriptions s SET updated_on = now()
        FROM marked
       WHERE s.id = marked.subscription_id
      RETURNING s.id, s.merchant_id, s.store_id, s.status
    ),
    event AS (
      ${outboxInsertFrom(eventRows('touched', null), {
        ...eventSpec,
        event: subscriptionUpdatedSql(`ARRAY['next_payment.terminate_with_status']`),
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status,
           EXISTS (SELECT 1 FROM scheduled_payments sp
                    WHERE sp.subscription_id = target.id AND sp.status = 'pending') AS has_pending,
           EXISTS (SELECT 1 FROM marked) AS marked
      FROM target`,
});

/**
 * PATCH of a subscription that is not final: each `set*` flag says whether its field changes. A new
 * amount applies to the payments not charged yet: the pending payment of a cycle (not the initial
 * amount), and amount_left of a finite plan (the cycles still to be charged at the per-cycle
 * amount). With subscription_updated naming `changed`.
 */
export const UPDATE_SUBSCRIPTION = defineStatement({
  name: 'subscriptions_update',
  params: {
    ...scopeParams,
    setMetadata: pg.bool,
    metadata: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    setDescriptor: pg.bool,
    descriptor: pg.nullable(pg.text),
    setAmount: pg.bool,
    amount: pg.nullable(pg.int8),
    setToken: pg.bool,
    transactionTokenId: pg.nullable(pg.uuid),
    setTerminationMode: pg.bool,
    terminationMode: pg.nullable(pg.enum<TerminationMode>('termination_mode')),
    setOnlyDirectCurrency: pg.bool,
    onlyDirectCurrency: pg.nullable(pg.bool),
    setPlan: pg.bool,
    subscriptionPlan: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    paymentsLeft: pg.nullable(pg.int4),
    cyclesLeft: pg.nullable(pg.int4),
    planAmountLeft: pg.nullable(pg.int8),
    openPaymentId: pg.nullable(pg.uuid),
    openIsLast: pg.nullable(pg.bool),
    openAmount: pg.nullable(pg.int8),
    changed: pg.array(pg.text),
    correlationId: pg.nullable(pg.text),
  },
  columns: { status: pg.enum<SubscriptionStatus>('subscription_status'), moved: pg.bool },
  text: (p) => `
    WITH target AS (SELECT id, status FROM subscriptions WHERE ${inScope(p)} FOR UPDATE),
    moved AS (
      UPDATE subscriptions s
         SET metadata = CASE WHEN ${p.setMetadata} THEN ${p.metadata} ELSE s.metadata END,
             descriptor = CASE WHEN ${p.setDescriptor} THEN ${p.descriptor} ELSE s.descriptor END,
             amount = CASE WHEN ${p.setAmount} THEN ${p.amount} ELSE s.amount END,
             subscription_plan = CASE WHEN ${p.setPlan} THEN ${p.subscriptionPlan} ELSE s.subscription_plan END,
             payments_left = CASE WHEN ${p.setPlan} THEN ${p.paymentsLeft} ELSE s.payments_left END,
             cycles_left = CASE WHEN ${p.setPlan} THEN ${p.cyclesLeft} ELSE s.cycles_left END,
             amount_left = CASE
               WHEN ${p.setPlan} THEN ${p.planAmountLeft}
               WHEN ${p.setAmount} AND s.amount_left IS NOT NULL AND s.cycles_left IS NOT NULL THEN
                 s.amount_left + (${p.amount} - s.amount) * GREATEST(0, s.cycles_left - (
                   SELECT count(*) FROM scheduled_payments sp
                    WHERE sp.subscription_id = s.id AND sp.cycle IS NOT NULL
                      AND (sp.status = 'processing'
                           OR (sp.status = 'pending' AND sp.sequence = 1 AND s.initial_amount IS NOT NULL))))
               ELSE s.amount_left END,
             transaction_token_id =
               CASE WHEN ${p.setToken} THEN ${p.transactionTokenId} ELSE s.transaction_token_id END,
             termination_mode =
               CASE WHEN ${p.setTerminationMode} THEN ${p.terminationMode} ELSE s.termination_mode END,
             only_direct_currency =
               CASE WHEN ${p.setOnlyDirectCurrency} THEN ${p.onlyDirectCurrency} ELSE s.only_direct_currency END,
             updated_on = now()
        FROM target
       WHERE s.id = target.id AND s.status NOT IN ${FINAL}
         -- a new plan was computed from the open payment as read: it must still be the pending one
         AND (NOT ${p.setPlan} OR EXISTS (SELECT 1 FROM scheduled_payments sp
                                          WHERE sp.id = ${p.openPaymentId} AND sp.subscription_id = s.id
                                            AND sp.status = 'pending'))
      RETURNING s.id, s.merchant_id, s.store_id, s.status, s.initial_amount
    ),
    repriced AS (
      UPDATE scheduled_payments sp
         SET amount = CASE
               WHEN ${p.setPlan} AND sp.id = ${p.openPaymentId} THEN ${p.openAmount}
               WHEN ${p.setAmount} AND sp.cycle IS NOT NULL
                    AND NOT (sp.sequence = 1 AND moved.initial_amount IS NOT NULL) THEN ${p.amount}
               ELSE sp.amount END,
             is_last_payment = CASE
               WHEN ${p.setPlan} AND sp.id = ${p.openPaymentId} THEN ${p.openIsLast}
               ELSE sp.is_last_payment END,
             updated_on = now()
        FROM moved
       WHERE sp.subscription_id = moved.id AND sp.status = 'pending'
         AND (${p.setAmount} OR ${p.setPlan})
      RETURNING sp.id
    ),
    event AS (
      ${outboxInsertFrom(eventRows('moved', null), {
        ...eventSpec,
        event: subscriptionUpdatedSql(p.changed),
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status, EXISTS (SELECT 1 FROM moved) AS moved FROM target`,
});

/**
 * PATCH of a pending scheduled payment: its due date (due_at and, unless it is paused, next_try_at
 * at `dueAt`) and/or its amount (amount_left of a finite plan follows). With subscription_updated
 * naming `changed`. `status` null: no such payment of that subscription in the scope. The
 * subscription is locked before its payment (`owner`, then `target`), the order of every other
 * subscription write and of a store's or clock's deletion, so none of them deadlocks with it.
 */
export const UPDATE_SCHEDULED_PAYMENT = defineStatement({
  name: 'subscriptions_update_scheduled_payment',
  params: {
    ...scopeParams,
    paymentId: pg.uuid,
    setDueDate: pg.bool,
    dueDate: pg.nullable(pg.date),
    dueAt: pg.nullable(pg.timestamptz),
    setAmount: pg.bool,
    amount: pg.nullable(pg.int8),
    changed: pg.array(pg.text),
    correlationId: pg.nullable(pg.text),
  },
  columns: { payment_status: pg.text, moved: pg.bool },
  text: (p) => `
    WITH owner AS MATERIALIZED (
      SELECT s.id FROM subscriptions s
        JOIN scheduled_payments sp ON sp.subscription_id = s.id
       WHERE sp.id = ${p.paymentId} AND ${inScope(p, 's.')}
         FOR UPDATE OF s
    ),
    target AS (
      SELECT sp.id, sp.status, sp.amount FROM scheduled_payments sp
        JOIN owner ON owner.id = sp.subscription_id
       WHERE sp.id = ${p.paymentId}
         FOR UPDATE OF sp
    ),
    moved AS (
      UPDATE scheduled_payments sp
         SET due_date = CASE WHEN ${p.setDueDate} THEN ${p.dueDate} ELSE sp.due_date END,
             due_at = CASE WHEN ${p.setDueDate} THEN ${p.dueAt} ELSE sp.due_at END,
             next_try_at = CASE WHEN ${p.setDueDate} AND sp.next_try_at IS NOT NULL THEN ${p.dueAt}
                                ELSE sp.next_try_at END,
             amount = CASE WHEN ${p.setAmount} THEN ${p.amount} ELSE sp.amount END,
             updated_on = now()
        FROM target
       WHERE sp.id = target.id AND sp.status = 'pending'
      RETURNING sp.subscription_id, sp.amount - target.amount AS amount_change
    ),
    subscription AS (
      UPDATE subscriptions s
         SET amount_left = s.amount_left + moved.amount_change, updated_on = now()
        FROM moved
       WHERE s.id = moved.subscription_id
      RETURNING s.id, s.merchant_id, s.store_id, s.status
    ),
    event AS (
      ${outboxInsertFrom(eventRows('subscription', null), {
        ...eventSpec,
        event: subscriptionUpdatedSql(p.changed),
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status::text AS payment_status, EXISTS (SELECT 1 FROM moved) AS moved FROM target`,
});

/**
 * The list's `search` (api-reference §4: "metadata text"): subscriptions of the scope with a
 * metadata value (or key) containing the text, case-insensitive — with the list's other filters, in
 * its keyset order, one page after the cursor. Answers ids: the list then reads those rows.
 */
const SEARCH_WHERE = (p: {
  merchantId: string;
  storeId: string;
  statuses: string;
  mode: string;
  search: string;
}) => `
       s.merchant_id = ${p.merchantId}
   AND (${p.storeId}::uuid IS NULL OR s.store_id = ${p.storeId})
   AND (cardinality(${p.statuses}::subscription_status[]) = 0 OR s.status = ANY(${p.statuses}))
   AND (${p.mode}::processing_mode IS NULL OR s.mode = ${p.mode})
   AND EXISTS (SELECT 1 FROM jsonb_each_text(s.metadata) kv
                WHERE strpos(lower(kv.value), lower(${p.search})) > 0
                   OR strpos(lower(kv.key), lower(${p.search})) > 0)`;

const searchParams = {
  merchantId: pg.uuid,
  storeId: pg.nullable(pg.uuid),
  statuses: pg.array(pg.enum<SubscriptionStatus>('subscription_status')),
  mode: pg.nullable(pg.enum<ProcessingMode>('processing_mode')),
  search: pg.text,
} as const;

export const SEARCH_SUBSCRIPTION_IDS = defineStatement({
  name: 'subscriptions_search_ids',
  params: {
    ...searchParams,
    afterCreatedOn: pg.nullable(pg.timestamptz),
    afterId: pg.nullable(pg.uuid),
    ascending: pg.bool,
    limit: pg.int4,
  },
  columns: { id: pg.text },
  text: (p) => `
    SELECT s.id::text
      FROM subscriptions s
     WHERE ${SEARCH_WHERE(p)}
       AND (${p.afterId}::uuid IS NULL
            OR (${p.ascending} AND (s.created_on, s.id) > (${p.afterCreatedOn}, ${p.afterId}))
            OR (NOT ${p.ascending} AND (s.created_on, s.id) < (${p.afterCreatedOn}, ${p.afterId})))
     ORDER BY CASE WHEN ${p.ascending} THEN s.created_on END ASC,
              CASE WHEN ${p.ascending} THEN s.id END ASC,
              CASE WHEN NOT ${p.ascending} THEN s.created_on END DESC,
              CASE WHEN NOT ${p.ascending} THEN s.id END DESC
     LIMIT ${p.limit}`,
});

export const COUNT_SEARCHED_SUBSCRIPTIONS = defineStatement({
  name: 'subscriptions_search_count',
  params: searchParams,
  columns: { n: pg.int4 },
  text: (p) => `SELECT count(*)::int AS n FROM subscriptions s WHERE ${SEARCH_WHERE(p)}`,
});
