import type { Prisma } from '../generated/prisma/client';
import {
  CAPTURABLE_CHARGE_STATUS,
  ENDED_SUBSCRIPTION_STATUSES,
  FINAL_CHARGE_STATUSES,
  type ChargeStatus,
} from '@kessai/domain';
import type {
  PaymentType,
  ProcessingMode,
  ScheduledPaymentStatus,
  SubscriptionStatus,
  TokenType,
} from '../generated/prisma/enums';
import { chargeRequestedSql, chargeStatusSql, subscriptionEventSql } from '../outbox/event-sql';
import { eventSqlWhen, outboxInsertFrom } from '../outbox/outbox-writer';
import { cardLimitOkSql } from '../charges/charges.sql';
import { defineStatement, pg, sqlList } from '../sql/statement';

/**
 * The subscription engine's statements (docs/subscriptions.md, "The engine"). subscription-service
 * runs them in transactions of its own: it reads and locks the rows, decides in TypeScript (the
 * schedule engine, the store's configuration), and applies its decisions with one statement, so
 * that a payment's state, its charge and their events commit together or not at all.
 */

/** The time the engine reads for a payment: its test clock's, or the database's. */
const CLOCK_NOW = `COALESCE(tc.frozen_time, now())`;

/** What the engine reads of a subscription, for its schedule and its status. */
const SUBSCRIPTION_COLUMNS = {
  subscription_id: pg.uuid,
  merchant_id: pg.uuid,
  store_id: pg.uuid,
  transaction_token_id: pg.uuid,
  mode: pg.enum<ProcessingMode>('processing_mode'),
  subscription_status: pg.enum<SubscriptionStatus>('subscription_status'),
  period: pg.nullable(pg.text),
  cyclical_period: pg.nullable(pg.text),
  subscription_amount: pg.int8,
  initial_amount: pg.nullable(pg.int8),
  schedule_created_at: pg.timestamptz,
  start_on: pg.nullable(pg.text),
  zone_id: pg.text,
  preserve_end_of_month: pg.bool,
  retry_interval: pg.nullable(pg.text),
  installment_plan: pg.nullable(pg.jsonb<Prisma.JsonValue>()),
  subscription_plan: pg.nullable(pg.jsonb<Prisma.JsonValue>()),
  payments_left: pg.nullable(pg.int4),
  cycles_left: pg.nullable(pg.int4),
  amount_left: pg.nullable(pg.int8),
  descriptor: pg.nullable(pg.text),
  only_direct_currency: pg.bool,
  first_charge_authorization_only: pg.bool,
  first_charge_capture_after: pg.nullable(pg.text),
  store_configuration: pg.jsonb<Prisma.JsonValue>(),
  merchant_configuration: pg.jsonb<Prisma.JsonValue>(),
} as const;

const SUBSCRIPTION_SELECT = `
       s.id AS subscription_id, s.merchant_id, s.store_id, s.transaction_token_id, s.mode,
       s.status AS subscription_status, s.period::text AS period, s.cyclical_period,
       s.amount AS subscription_amount, s.initial_amount, s.schedule_created_at,
       to_char(s.start_on, 'YYYY-MM-DD') AS start_on, s.zone_id, s.preserve_end_of_month,
       s.retry_interval, s.installment_plan, s.subscription_plan, s.payments_left, s.cycles_left,
       s.amount_left, s.descriptor, s.only_direct_currency, s.first_charge_authorization_only,
       s.first_charge_capture_after, st.configuration AS store_configuration, m.configuration AS merchant_configuration`;

/** What the engine reads of a scheduled payment. */
const PAYMENT_COLUMNS = {
  payment_id: pg.uuid,
  sequence: pg.int4,
  cycle: pg.nullable(pg.int4),
  due_at: pg.timestamptz,
  payment_zone_id: pg.text,
  payment_amount: pg.int8,
  currency: pg.bpchar,
  attempts: pg.int4,
  is_last_payment: pg.bool,
  terminate_with_status: pg.nullable(pg.enum<SubscriptionStatus>('subscription_status')),
  test_clock_id: pg.nullable(pg.uuid),
  /** the engine's "now" for this payment: its test clock's time, or the database's */
  clock_now: pg.timestamptz,
} as const;

const PAYMENT_SELECT = `
       sp.id AS payment_id, sp.sequence, sp.cycle, sp.due_at, sp.zone_id AS payment_zone_id,
       sp.amount AS payment_amount, sp.currency, sp.attempts, sp.is_last_payment,
       sp.terminate_with_status, sp.test_clock_id, ${CLOCK_NOW} AS clock_now`;

/**
 * The due payments, oldest first, at most `limit` in real time and `limit` on test clocks, locked
 * with their subscriptions (FOR UPDATE … SKIP LOCKED): another scheduler, or a request changing the
 * subscription, holds what this one skips, so no payment is claimed twice. Run in a transaction
 * that START_PAYMENTS / FINISH_TERMINATED_PAYMENTS then commits; a process killed before the commit
 * leaves every row as it was, for the next scheduler. With the subscription's token and the
 * configurations its charge must obey.
 */
export const CLAIM_DUE_PAYMENTS = defineStatement({
  name: 'subscription_engine_claim_due',
  params: { limit: pg.int4 },
  columns: {
    ...PAYMENT_COLUMNS,
    ...SUBSCRIPTION_COLUMNS,
    token_active: pg.bool,
    token_type: pg.enum<TokenType>('token_type'),
    token_mode: pg.enum<ProcessingMode>('processing_mode'),
    payment_type: pg.enum<PaymentType>('payment_type'),
    token_confirmed: pg.nullable(pg.bool),
    card_brand: pg.nullable(pg.text),
    qr_gateway: pg.nullable(pg.text),
    three_ds_status: pg.nullable(pg.text),
    /** the token's CVV authorization (data.cvv_authorize), when it has one */
    cvv_authorize_enabled: pg.nullable(pg.bool),
    cvv_authorize_status: pg.nullable(pg.text),
    usage_limit: pg.nullable(pg.text),
  },
  text: (p) => `
    WITH due_now AS MATERIALIZED (
      SELECT sp.id
        FROM scheduled_payments sp
        JOIN subscriptions s ON s.id = sp.subscription_id
       WHERE sp.status = 'pending' AND sp.test_clock_id IS NULL AND sp.next_try_at <= now()
       ORDER BY sp.next_try_at
       LIMIT ${p.limit}
         FOR UPDATE OF sp, s SKIP LOCKED
    ),
    due_on_clocks AS MATERIALIZED (
      SELECT sp.id
        FROM scheduled_payments sp
        JOIN test_clocks tc ON tc.id = sp.test_clock_id
        JOIN subscriptions s ON s.id = sp.subscription_id
       WHERE sp.status = 'pending' AND sp.test_clock_id IS NOT NULL AND tc.deleted_on IS NULL
         AND sp.next_try_at <= tc.frozen_time
       ORDER BY sp.next_try_at
       LIMIT ${p.limit}
         FOR UPDATE OF sp, s SKIP LOCKED
    )
    SELECT ${PAYMENT_SELECT},
           ${SUBSCRIPTION_SELECT},
           t.active AS token_active, t.type AS token_type, t.mode AS token_mode,
           t.payment_type, t.confirmed AS token_confirmed, t.data->'card'->>'brand' AS card_brand,
           CASE WHEN t.payment_type = 'qr_scan'
                THEN COALESCE(t.data->>'gateway', t.data->>'brand') END AS qr_gateway,
           CASE WHEN (t.data->'three_ds'->>'enabled')::boolean
                THEN t.data->'three_ds'->>'status' END AS three_ds_status,
           (t.data->'cvv_authorize'->>'enabled')::boolean AS cvv_authorize_enabled,
           t.data->'cvv_authorize'->>'status' AS cvv_authorize_status,
           t.usage_limit::text AS usage_limit
      FROM scheduled_payments sp
      JOIN subscriptions s ON s.id = sp.subscription_id
      JOIN transaction_tokens t ON t.id = s.transaction_token_id
      JOIN stores st ON st.id = s.store_id
      JOIN merchants m ON m.id = s.merchant_id
      LEFT JOIN test_clocks tc ON tc.id = sp.test_clock_id
     WHERE sp.id IN (SELECT id FROM due_now UNION ALL SELECT id FROM due_on_clocks)
     ORDER BY sp.next_try_at`,
});

/** One claimed payment's charge, as START_PAYMENTS reads it from its jsonb input. */
export interface PaymentChargeInput {
  payment_id: string;
  /** the try this charge is: the payment's attempts + 1 */
  attempt: number;
  charge_id: string;
  subscription_id: string;
  merchant_id: string;
  store_id: string;
  transaction_token_id: string;
  transaction_token_type: TokenType;
  mode: ProcessingMode;
  /** bigint as text */
  amount: string;
  currency: string;
  descriptor: string | null;
  only_direct_currency: boolean;
  /** false: only authorized (a subscription's first charge with first_charge_authorization_only) */
  capture: boolean;
  /** when an authorization is captured (first_charge_capture_after), ISO 8601; else null */
  capture_at: string | null;
  fee_rate_ppm: number;
  /** bigint as text */
  fee_flat_amount: string;
  /** refused before the processor (token no longer chargeable, store rules): failed at once */
  refused: boolean;
  error_code: number | null;
  error_message: string | null;
  error_detail: string | null;
  /**
   * The store's card limit the charge is held to (decision 0076), bigint as text, or null: over it,
   * the charge is inserted failed with START_PAYMENTS' card-limit error.
   */
  card_limit_amount: string | null;
  /** the limit's window opens here (ISO 8601); null without a limit */
  card_limit_since: string | null;
}

/**
 * Starts the claimed payments' tries: each payment becomes `processing` with its attempts counted,
 * and gets its charge — pending with charge_requested (charge-service takes it from there), or,
 * refused before the processor (`refused`, or over the store's card limit: the card-limit error
 * given), failed with charge_finished (settled like any failed try). A charge under a card limit
 * is started by a statement of its own, after the card's lock (LOCK_CARD_LIMITS), so that it sees
 * the charges the ones before it inserted. The
 * charge's (scheduled_payment_id, payment_attempt) is unique in the database, so a payment's try
 * can never have two charges; the conditional UPDATE (still pending, attempts as read) makes a
 * repeat a no-op. Answers the payments it started.
 */
export const START_PAYMENTS = defineStatement({
  name: 'subscription_engine_start_payments',
  params: {
    input: pg.jsonb<readonly PaymentChargeInput[]>(),
    cardLimitErrorCode: pg.int4,
    cardLimitErrorMessage: pg.text,
    cardLimitErrorDetail: pg.nullable(pg.text),
  },
  columns: { payment_id: pg.uuid, charge_id: pg.uuid },
  text: (p) => `
    WITH input AS MATERIALIZED (
      SELECT r.payment_id, r.attempt, r.charge_id, r.subscription_id, r.merchant_id, r.store_id,
             r.transaction_token_id, r.transaction_token_type, r.mode, r.amount, r.currency,
             r.descriptor, r.only_direct_currency, r.capture, r.capture_at, r.fee_rate_ppm,
             r.fee_flat_amount,
             (CASE WHEN r.refused OR l.over_limit THEN 'failed' ELSE 'pending' END)::charge_status AS status,
             CASE WHEN l.over_limit THEN ${p.cardLimitErrorCode} ELSE r.error_code END AS error_code,
             CASE WHEN l.over_limit THEN ${p.cardLimitErrorMessage} ELSE r.error_message END AS error_message,
             CASE WHEN l.over_limit THEN ${p.cardLimitErrorDetail} ELSE r.error_detail END AS error_detail
        FROM jsonb_to_recordset(${p.input}) AS r(
          payment_id uuid, attempt int, charge_id uuid, subscription_id uuid, merchant_id uuid,
          store_id uuid, transaction_token_id uuid, transaction_token_type token_type,
          mode processing_mode, amount bigint, currency text, descriptor text,
          only_direct_currency boolean, capture boolean, capture_at timestamptz, fee_rate_ppm int,
          fee_flat_amount bigint, refused boolean,
          error_code int, error_message text, error_detail text,
          card_limit_amount bigint, card_limit_since timestamptz)
       -- the store's card limit (charges.sql.ts, the rule POST /charges is held to): a charge
       -- refused for another reason is not checked
       CROSS JOIN LATERAL (
         SELECT NOT r.refused AND NOT ${cardLimitOkSql({
           tokenId: 'r.transaction_token_id',
           storeId: 'r.store_id',
           currency: 'r.currency',
           since: 'r.card_limit_since',
           amount: 'r.amount',
           limitAmount: 'r.card_limit_amount',
         })} AS over_limit) l
    ),
    started AS (
      UPDATE scheduled_payments sp
         SET status = 'processing', attempts = i.attempt, next_try_at = NULL, updated_on = now()
        FROM input i
       -- status as text: by primary key, never a full scan of a partial index of pending payments
       -- (LOCK_SETTLEMENTS says why)
       WHERE sp.id = i.payment_id AND sp.status::text = 'pending' AND sp.attempts = i.attempt - 1
      RETURNING sp.id
    ),
    inserted AS (
      INSERT INTO charges (
        id, merchant_id, store_id, transaction_token_id, transaction_token_type, subscription_id,
        scheduled_payment_id, payment_attempt, mode, status, requested_amount, requested_currency,
        capture, capture_at, descriptor, only_direct_currency, fee_rate_ppm, fee_flat_amount,
        error_code, error_message, error_detail, metadata)
      SELECT charge_id, merchant_id, store_id, transaction_token_id, transaction_token_type,
             subscription_id, payment_id, attempt, mode, status, amount, currency, capture,
             capture_at, descriptor, only_direct_currency, fee_rate_ppm, fee_flat_amount, error_code,
             error_message, error_detail, '{}'::jsonb
        FROM input
       WHERE payment_id IN (SELECT id FROM started)
      RETURNING id, store_id, merchant_id, status, scheduled_payment_id, (status = 'failed') AS refused
    ),
    event AS (
      ${outboxInsertFrom('inserted', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: eventSqlWhen('refused', chargeStatusSql('charge_finished'), chargeRequestedSql()),
        correlationId: 'NULL',
      })}
    )
    SELECT scheduled_payment_id AS payment_id, id AS charge_id FROM inserted`,
});

/** A subscription that is never charged again: its due payment only ends, without moving it. */
const ENDED_SUBSCRIPTION = sqlList(ENDED_SUBSCRIPTION_STATUSES);

/**
 * Payments due with `terminate_with_status` (a cancel or suspend "on the next payment"), and
 * payments of subscriptions that ended meanwhile: charged never. A `canceled` termination cancels
 * the payment and the subscription (subscription_canceled); a `suspended` one suspends the
 * subscription (subscription_suspended) and keeps the payment pending, paused (next_try_at NULL) for
 * an unsuspension. A subscription that has ended (ENDED_SUBSCRIPTION_STATUSES) only loses its payment. Run in the claim's
 * transaction; the conditional UPDATEs make a repeat a no-op.
 */
export const TERMINATE_PAYMENTS = defineStatement({
  name: 'subscription_engine_terminate_payments',
  params: { paymentIds: pg.array(pg.uuid) },
  columns: { payment_id: pg.uuid, subscription_status: pg.text },
  text: (p) => `
    WITH target AS MATERIALIZED (
      SELECT sp.id AS payment_id, sp.subscription_id, s.store_id, s.merchant_id,
             CASE WHEN s.status IN ${ENDED_SUBSCRIPTION} THEN NULL
                  ELSE sp.terminate_with_status END AS new_status
        FROM scheduled_payments sp
        JOIN subscriptions s ON s.id = sp.subscription_id
       -- status as text, as in START_PAYMENTS
       WHERE sp.id = ANY(${p.paymentIds}) AND sp.status::text = 'pending'
    ),
    payment AS (
      UPDATE scheduled_payments sp
         SET status = CASE WHEN t.new_status = 'suspended' THEN 'pending'
                           ELSE 'canceled' END::scheduled_payment_status,
             next_try_at = NULL, terminate_with_status = NULL, updated_on = now()
        FROM target t
       WHERE sp.id = t.payment_id
      RETURNING sp.id
    ),
    moved AS (
      UPDATE subscriptions s
         SET status = t.new_status, updated_on = now()
        FROM target t
       WHERE s.id = t.subscription_id AND t.new_status IS NOT NULL
      RETURNING s.id AS subscription_id, s.store_id, s.merchant_id, s.status, t.payment_id
    ),
    event AS (
      ${outboxInsertFrom(
        '(SELECT subscription_id, store_id, merchant_id, status, payment_id AS scheduled_payment_id, NULL::uuid AS charge_id FROM moved) m',
        {
          aggregateType: 'subscription',
          aggregateId: 'subscription_id',
          merchantId: 'merchant_id',
          storeId: 'store_id',
          event: subscriptionEventSql({
            perRow: `CASE WHEN status = 'suspended' THEN 'subscription_suspended' ELSE 'subscription_canceled' END`,
          }),
          correlationId: 'NULL',
        },
      )}
    )
    SELECT t.payment_id, COALESCE(t.new_status::text, 'unchanged') AS subscription_status
      FROM target t`,
});

/** The final statuses of a charge: the try it made is over. */
const FINAL_CHARGE = sqlList(FINAL_CHARGE_STATUSES);
/** What a settlement reads: a final charge, or an authorization-only first charge (not final). */
const SETTLING_CHARGE = sqlList([...FINAL_CHARGE_STATUSES, CAPTURABLE_CHARGE_STATUS]);

/**
 * The payments that the given charges settle: each charge of a scheduled payment's current try
 * (payment `processing`, attempts = the charge's payment_attempt) that is final, or authorized (an
 * authorization-only first charge, which makes the subscription `authorized`). Locks the payments
 * and their subscriptions (in subscription order: two settlers never deadlock), so that a request
 * changing the subscription waits, and a second settler of the same charge finds nothing. Run in the
 * transaction that APPLY_SETTLEMENTS commits.
 */
export const LOCK_SETTLEMENTS = defineStatement({
  name: 'subscription_engine_lock_settlements',
  params: { chargeIds: pg.array(pg.uuid) },
  columns: {
    ...PAYMENT_COLUMNS,
    ...SUBSCRIPTION_COLUMNS,
    charge_id: pg.uuid,
    charge_status: pg.textOf<ChargeStatus>(),
  },
  // Planned from the charges, by primary key, then each payment and subscription by theirs. Two
  // plans the planner chose otherwise, both the engine's hottest statement under load (sampled from
  // pg_stat_activity during bench:recurring): joining charges a second time by (scheduled payment,
  // attempt), which scanned every charge of those statuses; and starting from the partial index of
  // processing payments — estimated at one row by statistics taken before a burst, 33,000 when
  // read (171 ms a call). `sp.status::text` keeps that index out of this statement (it cannot imply
  // the index's predicate); the sweeper's scan is the one that uses it.
  text: (p) => `
    WITH locked AS MATERIALIZED (
      SELECT sp.id, c.id AS charge_id, c.status::text AS charge_status
        FROM charges c
        JOIN scheduled_payments sp ON sp.id = c.scheduled_payment_id
        JOIN subscriptions s ON s.id = sp.subscription_id
       WHERE c.id = ANY(${p.chargeIds}) AND c.status IN ${SETTLING_CHARGE}
         AND sp.status::text = 'processing' AND sp.attempts = c.payment_attempt
       ORDER BY s.id
         FOR UPDATE OF sp, s
    )
    SELECT ${PAYMENT_SELECT},
           ${SUBSCRIPTION_SELECT},
           locked.charge_id, locked.charge_status
      FROM locked
      JOIN scheduled_payments sp ON sp.id = locked.id
      JOIN subscriptions s ON s.id = sp.subscription_id
      JOIN stores st ON st.id = s.store_id
      JOIN merchants m ON m.id = s.merchant_id
      LEFT JOIN test_clocks tc ON tc.id = sp.test_clock_id
     ORDER BY s.id`,
});

/** A settled payment, as APPLY_SETTLEMENTS reads it from its jsonb input. */
export interface SettlementInput {
  payment_id: string;
  /** the try being settled: the payment must still be processing it */
  attempt: number;
  charge_id: string;
  subscription_id: string;
  payment_status: ScheduledPaymentStatus;
  /** a retry's time (payment_status pending); null when paused or over */
  next_try_at: string | null;
  successful_payment_date: string | null;
  subscription_status: SubscriptionStatus;
  payments_left: number | null;
  cycles_left: number | null;
  /** bigint as text */
  amount_left: string | null;
}

/** The payment a settlement schedules next, as APPLY_SETTLEMENTS reads it. */
export interface NextPaymentInput {
  id: string;
  subscription_id: string;
  sequence: number;
  cycle: number | null;
  due_date: string;
  due_at: string;
  zone_id: string;
  /** bigint as text */
  amount: string;
  currency: string;
  is_last_payment: boolean;
  /** null: paused (the subscription is suspended) */
  next_try_at: string | null;
  test_clock_id: string | null;
}

/** An event a settlement writes. */
export interface SettlementEventInput {
  subscription_id: string;
  merchant_id: string;
  store_id: string;
  event_type:
    | 'subscription_payment'
    | 'subscription_failure'
    | 'subscription_suspended'
    | 'subscription_canceled'
    | 'subscription_completed';
  status: SubscriptionStatus;
  scheduled_payment_id: string;
  charge_id: string;
}

/**
 * Applies what the engine decided for the payments LOCK_SETTLEMENTS locked: each payment's new
 * state (paid, a retry, paused, failed), its subscription's status and what is left of its plan,
 * the next payment, and the events, in one statement. A settlement applies only while its payment is
 * still processing the same try: a repeat changes nothing and writes nothing. Answers the payments
 * it settled.
 */
export const APPLY_SETTLEMENTS = defineStatement({
  name: 'subscription_engine_apply_settlements',
  params: {
    settlements: pg.jsonb<readonly SettlementInput[]>(),
    next: pg.jsonb<readonly NextPaymentInput[]>(),
    events: pg.jsonb<readonly SettlementEventInput[]>(),
  },
  columns: { payment_id: pg.uuid },
  text: (p) => `
    WITH settlement AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset(${p.settlements}) AS r(
        payment_id uuid, attempt int, charge_id uuid, subscription_id uuid,
        payment_status scheduled_payment_status, next_try_at timestamptz,
        successful_payment_date timestamptz, subscription_status subscription_status,
        payments_left int, cycles_left int, amount_left bigint)
    ),
    settled AS (
      UPDATE scheduled_payments sp
         SET status = st.payment_status, next_try_at = st.next_try_at,
             successful_payment_date = st.successful_payment_date, updated_on = now()
        FROM settlement st
       -- ::text: by primary key, never from the partial index of processing payments (LOCK_SETTLEMENTS)
       WHERE sp.id = st.payment_id AND sp.status::text = 'processing' AND sp.attempts = st.attempt
      RETURNING sp.id, sp.subscription_id
    ),
    moved AS (
      UPDATE subscriptions s
         SET status = st.subscription_status, payments_left = st.payments_left,
             cycles_left = st.cycles_left, amount_left = st.amount_left, updated_on = now()
        FROM settlement st
       WHERE s.id = st.subscription_id AND st.payment_id IN (SELECT id FROM settled)
      RETURNING s.id
    ),
    next_payment AS (
      INSERT INTO scheduled_payments (
        id, subscription_id, sequence, cycle, due_date, due_at, zone_id, amount, currency,
        is_last_payment, status, attempts, next_try_at, test_clock_id)
      SELECT n.id, n.subscription_id, n.sequence, n.cycle, n.due_date, n.due_at, n.zone_id,
             n.amount, n.currency, n.is_last_payment, 'pending', 0, n.next_try_at, n.test_clock_id
        FROM jsonb_to_recordset(${p.next}) AS n(
          id uuid, subscription_id uuid, sequence int, cycle int, due_date date, due_at timestamptz,
          zone_id text, amount bigint, currency text, is_last_payment boolean,
          next_try_at timestamptz, test_clock_id uuid)
       WHERE n.subscription_id IN (SELECT subscription_id FROM settled)
      RETURNING id
    ),
    event AS (
      ${outboxInsertFrom(
        `(SELECT e.* FROM jsonb_to_recordset(${p.events}) AS e(
            subscription_id uuid, merchant_id uuid, store_id uuid, event_type text,
            status subscription_status, scheduled_payment_id uuid, charge_id uuid)
           WHERE e.scheduled_payment_id IN (SELECT id FROM settled)) ev`,
        {
          aggregateType: 'subscription',
          aggregateId: 'subscription_id',
          merchantId: 'merchant_id',
          storeId: 'store_id',
          event: subscriptionEventSql({ perRow: 'event_type' }),
          correlationId: 'NULL',
        },
      )}
    )
    -- (every data-modifying CTE runs to completion whether read or not; next_payment reads
    -- settled, so the payment left processing before its successor is inserted, which the
    -- one-open-payment index requires)
    SELECT id AS payment_id FROM settled`,
});

/**
 * One window of the payments still `processing` (oldest first, after a cursor), each with its
 * try's charge when that charge has been final for `staleSeconds`: such a payment's settle_payments
 * job was lost, and the sweeper settles it. The window, not the matches, is bounded, so that a sweep
 * costs the same whatever the backlog: with 450,000 payments in flight, a sweep that walked them all
 * looking for a stale final charge took 6.5 s of Postgres, every 10 s in each replica. A payment
 * updated within `staleSeconds` cannot have a charge final for longer (its try's charge is written
 * after it), so it is left out before any charge is read. The cursor is the last row's
 * (`updated_on` as text, full precision; `id`): a batch claimed in one transaction shares one
 * `updated_on`.
 */
export const FIND_UNSETTLED_CHARGES = defineStatement({
  name: 'subscription_engine_find_unsettled',
  params: { staleSeconds: pg.int4, afterUpdatedOn: pg.text, afterId: pg.uuid, windowSize: pg.int4 },
  columns: { payment_updated_on: pg.text, payment_id: pg.uuid, charge_id: pg.nullable(pg.uuid) },
  text: (p) => `
    WITH sweep_window AS MATERIALIZED (
      SELECT sp.id, sp.attempts, sp.updated_on
        FROM scheduled_payments sp
       WHERE sp.status = 'processing'
         AND sp.updated_on < now() - make_interval(secs => ${p.staleSeconds})
         AND sp.updated_on >= ${p.afterUpdatedOn}::timestamptz
         AND (sp.updated_on, sp.id) > (${p.afterUpdatedOn}::timestamptz, ${p.afterId})
       ORDER BY sp.updated_on, sp.id
       LIMIT ${p.windowSize}
    )
    SELECT w.updated_on::text AS payment_updated_on, w.id AS payment_id, c.id AS charge_id
      FROM sweep_window w
      LEFT JOIN charges c
        ON c.scheduled_payment_id = w.id AND c.payment_attempt = w.attempts
       AND c.status IN ${FINAL_CHARGE}
       AND c.updated_on < now() - make_interval(secs => ${p.staleSeconds})
     ORDER BY w.updated_on, w.id`,
});
