import {
  CANCELLABLE_CHARGE_STATUSES,
  OPERATION_ENTRY_STATUS,
  REFUND_REDRIVE,
  REFUNDABLE_CHARGE_STATUS,
  REFUNDABLE_PAYMENT_TYPES,
  type ChargeStatus,
  type OperationStatus,
} from '@kessai/domain';
import type { ChargeOperation, PaymentType, RefundReason } from '../generated/prisma/enums';
import {
  cancelFinishedSql,
  cancelRequestedSql,
  chargeReconcileAfterCancelSql,
  chargeStatusSql,
  refundFinishedSql,
  refundRequestedSql,
} from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg, sqlList, sqlLiteral } from '../sql/statement';

const CANCELLABLE = sqlList(CANCELLABLE_CHARGE_STATUSES);
const REFUNDABLE_TYPES = sqlList(REFUNDABLE_PAYMENT_TYPES);
const CANCEL: ChargeOperation = 'cancel';

/**
 * Accepts a refund: reserves its amount on the charge and inserts the refund (pending) with its
 * refund_requested command, in one statement. The reservation is one conditional UPDATE of the
 * charge row: only a successful charge of a refundable payment type (money received by bank
 * transfer or at a konbini is returned by the merchant, not the processor: api-reference §5.4),
 * in its currency, and only while the refunds reserved
 * (pending and successful) plus this one stay within charged_amount. Concurrent refunds of one
 * charge queue on the row lock and each re-checks the condition against the row as the one before
 * left it (READ COMMITTED re-evaluates an UPDATE's WHERE on the newest version), so their sum never
 * exceeds the charge, whichever gateway they reach. `target` reads the charge in the caller's scope
 * (one row when it exists, for the refusal's reason). The status is compared as text: the planner
 * then reaches the charge by its primary key alone, never ANDed with charges_status_updated_on_idx
 * (every successful charge), which it chose when statistics called successful charges rare
 * (test/database/refund-statements-plan.e2e-spec.ts).
 */
export const REQUEST_REFUND = defineStatement({
  name: 'refunds_request',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    chargeId: pg.uuid,
    amount: pg.int8,
    currency: pg.text,
    reason: pg.nullable(pg.enum<RefundReason>('refund_reason')),
    message: pg.nullable(pg.text),
    metadata: pg.jsonb<Record<string, unknown>>(),
    correlationId: pg.nullable(pg.text),
  },
  columns: {
    status: pg.enum<ChargeStatus>('charge_status'),
    charged_currency: pg.nullable(pg.bpchar),
    payment_type: pg.enum<PaymentType>('payment_type'),
    created: pg.bool,
    /** the refund as inserted (null when refused) */
    mode: pg.nullable(pg.textOf<'test' | 'live' | 'live_test'>()),
    created_on: pg.nullable(pg.timestamptz),
  },
  text: (p) => `
    WITH target AS (
      SELECT c.id, c.status, c.charged_currency, t.payment_type
        FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
       WHERE c.id = ${p.chargeId} AND c.merchant_id = ${p.merchantId} AND c.store_id = ${p.storeId}
    ),
    reserved AS (
      UPDATE charges c
         SET refund_reserved_amount = c.refund_reserved_amount + ${p.amount}
        FROM target
       WHERE c.id = target.id AND c.status::text = ${sqlLiteral(REFUNDABLE_CHARGE_STATUS)}
         AND target.payment_type IN ${REFUNDABLE_TYPES}
         AND c.charged_currency = ${p.currency}
         AND c.refund_reserved_amount + ${p.amount} <= c.charged_amount
      RETURNING c.id, c.merchant_id, c.store_id, c.mode
    ),
    created AS (
      INSERT INTO refunds (id, merchant_id, store_id, charge_id, mode, status, amount, currency,
                           reason, message, metadata)
      SELECT ${p.id}, merchant_id, store_id, id, mode, ${sqlLiteral(OPERATION_ENTRY_STATUS)},
             ${p.amount}, ${p.currency}, ${p.reason}, ${p.message}, ${p.metadata}
        FROM reserved
      RETURNING id, charge_id, merchant_id, store_id, amount, currency, mode, created_on
    ),
    event AS (
      ${outboxInsertFrom('created', {
        aggregateType: 'refund',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: refundRequestedSql(),
        correlationId: p.correlationId,
      })}
    )
    SELECT target.status, target.charged_currency, target.payment_type, created.id IS NOT NULL AS created,
           created.mode::text AS mode, created.created_on
      FROM target LEFT JOIN created ON true`,
});

/**
 * Those of the refunds that are still pending, with what their processor calls need, in one query.
 * The status is compared as text: the planner then reaches the rows by primary key, never through
 * refunds_pending_idx (every pending refund, and their old versions between vacuums), which it
 * would pick when statistics taken before a burst call pending refunds rare.
 */
export const FIND_PENDING_REFUNDS = defineStatement({
  name: 'refunds_find_pending',
  params: { ids: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    charge_id: pg.text,
    mode: pg.textOf<'test' | 'live' | 'live_test'>(),
    amount: pg.int8,
    currency: pg.bpchar,
    processor_reference: pg.nullable(pg.text),
    /** the processor account the charge was routed to (decision 0055); null: the mode's default */
    processor_account_id: pg.nullable(pg.text),
  },
  text: (p) => `
    SELECT r.id::text AS id, r.charge_id::text AS charge_id, r.mode::text AS mode, r.amount,
           r.currency, c.processor_reference, c.processor_account_id::text AS processor_account_id
      FROM refunds r JOIN charges c ON c.id = r.charge_id
     WHERE r.id = ANY(${p.ids}) AND r.status::text = ${sqlLiteral(OPERATION_ENTRY_STATUS)}`,
});

/** One refund's outcome as RECORD_REFUND_OUTCOMES reads it from its jsonb input. */
export interface RefundOutcomeInput {
  id: string;
  status: OperationStatus;
  /** frees the reservation (a failed refund, which took nothing back) */
  releases: boolean;
  processor_reference: string | null;
  error_code: number | null;
  error_message: string | null;
  error_detail: string | null;
  cause_event_id: string | null;
}

/**
 * Ends each pending refund of the input (from → its status) with its refund_finished event, and
 * settles the amounts on their charges in the same statement: a successful refund adds its amount
 * to refunded_amount; one that `releases` (failed: it took nothing back) frees its reservation.
 * The refunds of one charge are summed before its row is updated once (an UPDATE … FROM joining a
 * row to several source rows would apply only one of them). Refunds no longer `from` are left
 * alone, and so are their charges. Answers the ids of the refunds that moved. The input comes
 * sorted by charge and the charges are settled in id order, so that two statements settling the
 * same charges lock them in one order (should a plan not keep it, Postgres breaks the deadlock by
 * rolling one statement back whole, and its refunds are recorded by their jobs' retry). The ids
 * come again as an array and the status is compared as text, as in FIND_PENDING_REFUNDS.
 */
export const RECORD_REFUND_OUTCOMES = defineStatement({
  name: 'refunds_record_outcomes',
  params: {
    outcomes: pg.jsonb<readonly RefundOutcomeInput[]>(),
    ids: pg.array(pg.uuid),
    from: pg.enum<OperationStatus>('operation_status'),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH outcome AS (
      SELECT * FROM jsonb_to_recordset(${p.outcomes}) AS o(
        id uuid, status operation_status, releases boolean, processor_reference text,
        error_code int, error_message text, error_detail text, cause_event_id uuid)
    ),
    moved AS (
      UPDATE refunds r
         SET status = o.status, processor_reference = o.processor_reference,
             error_code = o.error_code, error_message = o.error_message,
             error_detail = o.error_detail, updated_on = now()
        FROM outcome o
       WHERE r.id = ANY(${p.ids}) AND r.id = o.id AND r.status::text = ${p.from}::text
      RETURNING r.id, r.charge_id, r.merchant_id, r.store_id, r.status, r.amount, r.currency,
                o.releases, o.cause_event_id
    ),
    per_charge AS (
      SELECT charge_id,
             sum(CASE WHEN releases THEN amount ELSE 0 END) AS released,
             sum(CASE WHEN status = 'successful' THEN amount ELSE 0 END) AS refunded
        FROM moved GROUP BY charge_id ORDER BY charge_id
    ),
    settled AS (
      UPDATE charges c
         SET refund_reserved_amount = c.refund_reserved_amount - per_charge.released,
             refunded_amount = c.refunded_amount + per_charge.refunded,
             updated_on = CASE WHEN per_charge.refunded > 0 THEN now() ELSE c.updated_on END
        FROM per_charge
       WHERE c.id = per_charge.charge_id
      RETURNING c.id
    ),
    event AS (
      ${outboxInsertFrom('moved', {
        aggregateType: 'refund',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: refundFinishedSql(),
        correlationId: correlationOf('moved.cause_event_id'),
      })}
    )
    SELECT id::text AS id FROM moved`,
});

/**
 * Accepts a cancel: marks the charge's pending operation `cancel` and inserts the cancel (pending)
 * with its cancel_requested command, in one statement — only while the charge is cancellable
 * (authorized or awaiting, with a processor payment to void) and no capture or other cancel runs.
 * A capture request marks the same column (REQUEST_CAPTURE), and both are conditional UPDATEs of
 * the one charge row, so of a cancel and a capture racing exactly one is accepted.
 */
export const REQUEST_CANCEL = defineStatement({
  name: 'cancels_request',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    chargeId: pg.uuid,
    metadata: pg.jsonb<Record<string, unknown>>(),
    correlationId: pg.nullable(pg.text),
  },
  columns: {
    status: pg.enum<ChargeStatus>('charge_status'),
    created: pg.bool,
  },
  text: (p) => `
    WITH target AS (
      SELECT id, status FROM charges
       WHERE id = ${p.chargeId} AND merchant_id = ${p.merchantId} AND store_id = ${p.storeId}
    ),
    marked AS (
      UPDATE charges c SET pending_operation = ${sqlLiteral(CANCEL)}, updated_on = now()
        FROM target
       WHERE c.id = target.id AND c.status IN ${CANCELLABLE} AND c.pending_operation IS NULL
         AND c.processor_reference IS NOT NULL
      RETURNING c.id, c.merchant_id, c.store_id, c.mode
    ),
    created AS (
      INSERT INTO cancels (id, merchant_id, store_id, charge_id, mode, status, metadata)
      SELECT ${p.id}, merchant_id, store_id, id, mode, ${sqlLiteral(OPERATION_ENTRY_STATUS)},
             ${p.metadata}
        FROM marked
      RETURNING id, charge_id, merchant_id, store_id
    ),
    event AS (
      ${outboxInsertFrom('created', {
        aggregateType: 'cancel',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: cancelRequestedSql(),
        correlationId: p.correlationId,
      })}
    )
    SELECT status, EXISTS (SELECT 1 FROM created) AS created FROM target`,
});

/**
 * A pending cancel with its charge, as the void needs it. The status is compared as text, so that
 * the cancel is reached by its primary key and never through cancels_pending_idx (every pending
 * cancel), which the planner picks when statistics call pending cancels rare; the same in
 * RECORD_CANCEL_OUTCOME (test/database/refund-statements-plan.e2e-spec.ts).
 */
export const FIND_PENDING_CANCEL = defineStatement({
  name: 'cancels_find_pending',
  params: { cancelId: pg.uuid },
  columns: {
    id: pg.text,
    charge_id: pg.text,
    mode: pg.textOf<'test' | 'live' | 'live_test'>(),
    charge_status: pg.enum<ChargeStatus>('charge_status'),
    processor_reference: pg.nullable(pg.text),
    /** the processor account the charge was routed to (decision 0055); null: the mode's default */
    processor_account_id: pg.nullable(pg.text),
  },
  text: (p) => `
    SELECT k.id::text AS id, k.charge_id::text AS charge_id, k.mode::text AS mode,
           c.status AS charge_status, c.processor_reference,
           c.processor_account_id::text AS processor_account_id
      FROM cancels k JOIN charges c ON c.id = k.charge_id
     WHERE k.id = ${p.cancelId} AND k.status::text = ${sqlLiteral(OPERATION_ENTRY_STATUS)}`,
});

/**
 * Ends a pending cancel (from → to) with its cancel_finished event and frees the charge's pending
 * operation. A successful cancel also moves the charge (from a cancellable status → chargeTo,
 * canceled) with its charge_finished event; one that did not void an awaiting charge asks
 * charge-service to look it up (charge_reconcile_requested), since reconciliation waited for the
 * cancel (the customer may have paid meanwhile). Nothing happens when the cancel is not `from`.
 */
export const RECORD_CANCEL_OUTCOME = defineStatement({
  name: 'cancels_record_outcome',
  params: {
    cancelId: pg.uuid,
    from: pg.enum<OperationStatus>('operation_status'),
    to: pg.enum<OperationStatus>('operation_status'),
    /** the charge's move when the cancel succeeded; null otherwise */
    chargeTo: pg.nullable(pg.enum<ChargeStatus>('charge_status')),
    chargeEvent: pg.nullable(pg.text),
    errorCode: pg.nullable(pg.int4),
    errorMessage: pg.nullable(pg.text),
    errorDetail: pg.nullable(pg.text),
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { recorded: pg.bool, charge_moved: pg.bool },
  text: (p) => `
    WITH moved AS (
      UPDATE cancels
         SET status = ${p.to}, error_code = ${p.errorCode}, error_message = ${p.errorMessage},
             error_detail = ${p.errorDetail}, updated_on = now()
       WHERE id = ${p.cancelId} AND status::text = ${p.from}::text
      RETURNING id, charge_id, merchant_id, store_id, status
    ),
    charge AS (
      UPDATE charges c
         SET pending_operation = NULL,
             status = CASE WHEN ${p.chargeTo} IS NOT NULL AND c.status IN ${CANCELLABLE}
                           THEN ${p.chargeTo} ELSE c.status END,
             capture_status = CASE WHEN ${p.chargeTo} IS NOT NULL AND c.status IN ${CANCELLABLE}
                                   THEN NULL ELSE c.capture_status END,
             updated_on = now()
        FROM moved
       WHERE c.id = moved.charge_id AND c.pending_operation = ${sqlLiteral(CANCEL)}
      RETURNING c.id, c.merchant_id, c.store_id, c.status
    ),
    charge_event AS (
      ${outboxInsertFrom('charge', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: chargeStatusSql({ perRow: p.chargeEvent }),
        correlationId: correlationOf(p.causeEventId),
        where: `${p.chargeTo} IS NOT NULL AND status = ${p.chargeTo}`,
      })}
    ),
    reconcile_event AS (
      ${outboxInsertFrom('charge', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: chargeReconcileAfterCancelSql(),
        correlationId: correlationOf(p.causeEventId),
        where: `status = 'awaiting'`,
      })}
    ),
    event AS (
      ${outboxInsertFrom('moved', {
        aggregateType: 'cancel',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: cancelFinishedSql(),
        correlationId: correlationOf(p.causeEventId),
      })}
    )
    SELECT EXISTS (SELECT 1 FROM moved) AS recorded,
           EXISTS (SELECT 1 FROM charge WHERE ${p.chargeTo} IS NOT NULL
                                          AND status = ${p.chargeTo}) AS charge_moved`,
});

/**
 * Refunds and cancels pending for `seconds` (their job was lost from Redis), oldest first: the
 * sweeper's. Served by the partial indexes refunds_pending_idx and cancels_pending_idx (in their
 * migration only: Prisma cannot declare a partial index).
 */
export const FIND_STALE_OPERATIONS = defineStatement({
  name: 'refunds_cancels_find_stale',
  params: { seconds: pg.int4, limit: pg.int4 },
  columns: { kind: pg.textOf<'refund' | 'cancel'>(), id: pg.text },
  text: (p) => `
    (SELECT 'refund' AS kind, id::text AS id FROM refunds
      WHERE status = ${sqlLiteral(OPERATION_ENTRY_STATUS)}
        AND updated_on < now() - make_interval(secs => ${p.seconds})
      ORDER BY updated_on LIMIT ${p.limit})
    UNION ALL
    (SELECT 'cancel' AS kind, id::text AS id FROM cancels
      WHERE status = ${sqlLiteral(OPERATION_ENTRY_STATUS)}
        AND updated_on < now() - make_interval(secs => ${p.seconds})
      ORDER BY updated_on LIMIT ${p.limit})`,
});

/**
 * Re-drives refunds that ended `error` (REFUND_REDRIVE: error → pending), each with a new
 * refund_requested command, in one statement: refund-cancel-service then asks the processor again
 * under the refund's own key, which it executes at most once. The amount stays reserved throughout
 * (an `error` refund kept it). The error fields are cleared (the refund is in progress again) and
 * `redrives` counts the re-drive. `FOR UPDATE SKIP LOCKED`: a refund another re-drive holds is left
 * to it. `due` chooses the rows: the sweeper's schedule or an operator's one refund.
 */
function redriveRefundsText(due: string, correlationId: string): string {
  return `
    WITH due AS (${due}
       FOR UPDATE SKIP LOCKED
    ),
    moved AS (
      UPDATE refunds r
         SET status = ${sqlLiteral(REFUND_REDRIVE.to)}, redrives = r.redrives + 1,
             error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
        FROM due
       WHERE r.id = due.id AND r.status = ${sqlLiteral(REFUND_REDRIVE.from)}
      RETURNING r.id, r.charge_id, r.merchant_id, r.store_id, r.amount, r.currency, r.redrives
    ),
    event AS (
      ${outboxInsertFrom('moved', {
        aggregateType: 'refund',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: refundRequestedSql(),
        correlationId,
      })}
    )
    SELECT id::text AS id, redrives FROM moved`;
}

/**
 * The sweeper's re-drives: refunds in `error` re-driven fewer than `maxRedrives` times, whose last
 * change is older than `baseSeconds × 2^redrives` (5 min, 10, 20, … by default), oldest first.
 * Served by the partial index refunds_error_idx.
 */
export const REDRIVE_DUE_REFUNDS = defineStatement({
  name: 'refunds_redrive_due',
  params: { maxRedrives: pg.int4, baseSeconds: pg.int4, limit: pg.int4 },
  columns: { id: pg.text, redrives: pg.int4 },
  text: (p) =>
    redriveRefundsText(
      `
      SELECT id FROM refunds
       WHERE status = ${sqlLiteral(REFUND_REDRIVE.from)} AND redrives < ${p.maxRedrives}
         AND updated_on < now() - make_interval(secs => ${p.baseSeconds} * power(2, redrives))
       ORDER BY updated_on LIMIT ${p.limit}`,
      'NULL',
    ),
});

/** An operator's re-drive of one refund in `error`, whatever the schedule and the count. */
export const REDRIVE_REFUND = defineStatement({
  name: 'refunds_redrive_one',
  params: { refundId: pg.uuid, correlationId: pg.nullable(pg.text) },
  columns: { id: pg.text, redrives: pg.int4 },
  text: (p) =>
    redriveRefundsText(
      `
      SELECT id FROM refunds WHERE id = ${p.refundId} AND status = ${sqlLiteral(REFUND_REDRIVE.from)}`,
      p.correlationId,
    ),
});
