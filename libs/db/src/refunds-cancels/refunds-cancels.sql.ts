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
 * (one row when it exists, for the refusal's reason).
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
       WHERE c.id = target.id AND c.status = ${sqlLiteral(REFUNDABLE_CHARGE_STATUS)}
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

/** A pending refund with what its processor call needs. */
export const FIND_PENDING_REFUND = defineStatement({
  name: 'refunds_find_pending',
  params: { refundId: pg.uuid },
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
     WHERE r.id = ${p.refundId} AND r.status = ${sqlLiteral(OPERATION_ENTRY_STATUS)}`,
});

/**
 * Ends a pending refund (from → to) with its refund_finished event, and settles its amount on the
 * charge in the same statement: successful adds it to refunded_amount; `releases` (a failed refund,
 * which took nothing back) frees its reservation. Nothing happens when the refund is not `from`.
 */
export const RECORD_REFUND_OUTCOME = defineStatement({
  name: 'refunds_record_outcome',
  params: {
    refundId: pg.uuid,
    from: pg.enum<OperationStatus>('operation_status'),
    to: pg.enum<OperationStatus>('operation_status'),
    releases: pg.bool,
    processorReference: pg.nullable(pg.text),
    errorCode: pg.nullable(pg.int4),
    errorMessage: pg.nullable(pg.text),
    errorDetail: pg.nullable(pg.text),
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { recorded: pg.bool },
  text: (p) => `
    WITH moved AS (
      UPDATE refunds
         SET status = ${p.to}, processor_reference = ${p.processorReference},
             error_code = ${p.errorCode}, error_message = ${p.errorMessage},
             error_detail = ${p.errorDetail}, updated_on = now()
       WHERE id = ${p.refundId} AND status = ${p.from}
      RETURNING id, charge_id, merchant_id, store_id, status, amount, currency
    ),
    settled AS (
      UPDATE charges c
         SET refund_reserved_amount =
               c.refund_reserved_amount - CASE WHEN ${p.releases} THEN moved.amount ELSE 0 END,
             refunded_amount =
               c.refunded_amount + CASE WHEN moved.status = 'successful' THEN moved.amount ELSE 0 END,
             updated_on = CASE WHEN moved.status = 'successful' THEN now() ELSE c.updated_on END
        FROM moved
       WHERE c.id = moved.charge_id
      RETURNING c.id
    ),
    event AS (
      ${outboxInsertFrom('moved', {
        aggregateType: 'refund',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: refundFinishedSql(),
        correlationId: correlationOf(p.causeEventId),
      })}
    )
    SELECT EXISTS (SELECT 1 FROM moved) AS recorded`,
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

/** A pending cancel with its charge, as the void needs it. */
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
     WHERE k.id = ${p.cancelId} AND k.status = ${sqlLiteral(OPERATION_ENTRY_STATUS)}`,
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
       WHERE id = ${p.cancelId} AND status = ${p.from}
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
