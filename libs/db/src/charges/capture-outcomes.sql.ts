import type { CaptureStatus, ChargeStatus } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { chargeStatusSql } from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';
import { FEE_TERMS_COLUMNS } from './fee-terms';

/**
 * The processor's outcomes of captures (charge-service's capture_charge): the pending capture read
 * with its charge, and what the processor answered recorded, on the capture and on the charge.
 */

/** The charge's capture while it is pending (one capture per charge), with the charge's state. */
export const FIND_PENDING_CAPTURE = defineStatement({
  name: 'charge_outcomes_find_pending_capture',
  params: { chargeId: pg.uuid },
  columns: {
    id: pg.text,
    charge_id: pg.text,
    amount: pg.int8,
    currency: pg.bpchar,
    charge_status: pg.textOf<ChargeStatus>(),
    mode: pg.textOf<ProcessingMode>(),
    processor_reference: pg.nullable(pg.text),
    /** the account that took the charge (decisions 0055, 0056); null: its mode's default */
    processor_account_id: pg.nullable(pg.text),
    ...FEE_TERMS_COLUMNS,
  },
  text: (p) => `
    SELECT k.id::text AS id, k.charge_id::text AS charge_id, k.amount, k.currency,
           c.status::text AS charge_status, c.mode::text AS mode, c.processor_reference,
           (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
                 ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
           c.fee_rate_ppm, c.fee_flat_amount
      FROM captures k JOIN charges c ON c.id = k.charge_id
     WHERE k.charge_id = ${p.chargeId} AND k.status = 'pending'`,
});

/**
 * The processor captured: the capture moves (captureFrom → captureTo) and its charge (chargeFrom →
 * chargeTo) with charged_amount = what was captured and its fee, plus the charge's event, in one
 * statement.
 * One row, `captured`: whether the capture was still in captureFrom.
 */
export const RECORD_CAPTURED = defineStatement({
  name: 'charge_outcomes_record_captured',
  params: {
    captureId: pg.uuid,
    capturedAmount: pg.int8,
    feeAmount: pg.nullable(pg.int8),
    captureFrom: pg.enum<CaptureStatus>('operation_status'),
    captureTo: pg.enum<CaptureStatus>('operation_status'),
    chargeFrom: pg.enum<ChargeStatus>('charge_status'),
    chargeTo: pg.enum<ChargeStatus>('charge_status'),
    event: pg.text,
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { captured: pg.bool },
  text: (p) => `
    WITH capture AS (
      UPDATE captures SET status = ${p.captureTo}, updated_on = now()
       WHERE id = ${p.captureId} AND status = ${p.captureFrom}
      RETURNING charge_id, currency
    ), changed AS (
      UPDATE charges c
         SET status = ${p.chargeTo}, capture_status = 'captured',
             charged_amount = ${p.capturedAmount}, charged_currency = capture.currency,
             fee_amount = ${p.feeAmount},
             pending_operation = NULL, updated_on = now()
        FROM capture
       WHERE c.id = capture.charge_id AND c.status = ${p.chargeFrom}
      RETURNING c.id, c.merchant_id, c.store_id, c.status
    ), event AS (
      ${outboxInsertFrom('changed', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: chargeStatusSql({ perRow: p.event }),
        correlationId: correlationOf(p.causeEventId),
      })}
    )
    SELECT EXISTS (SELECT 1 FROM capture) AS captured`,
});

/**
 * The processor refused the capture: it moves (from → to) with the error; the charge stays as it
 * is, free again for another capture or a cancel.
 */
export const RECORD_CAPTURE_FAILED = defineStatement({
  name: 'charge_outcomes_record_capture_failed',
  params: {
    captureId: pg.uuid,
    from: pg.enum<CaptureStatus>('operation_status'),
    to: pg.enum<CaptureStatus>('operation_status'),
    errorCode: pg.int4,
    errorMessage: pg.text,
    errorDetail: pg.nullable(pg.text),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH moved AS (
      UPDATE captures
         SET status = ${p.to}, error_code = ${p.errorCode}, error_message = ${p.errorMessage},
             error_detail = ${p.errorDetail}, updated_on = now()
       WHERE id = ${p.captureId} AND status = ${p.from}
      RETURNING id, charge_id
    ), freed AS (
      UPDATE charges c SET pending_operation = NULL
        FROM moved
       WHERE c.id = moved.charge_id AND c.pending_operation = 'capture'
      RETURNING c.id
    )
    SELECT id::text AS id FROM moved`,
});
