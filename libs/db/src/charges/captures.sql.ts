import {
  CAPTURABLE_CHARGE_STATUS,
  CAPTURE_ENTRY_STATUS,
  captureTransition,
  type ChargeStatus,
} from '@kessai/domain';
import type { CaptureStatus as ChargeCaptureStatus, ChargeOperation } from '../generated/prisma/enums';
import { captureRequestedSql } from '../outbox/event-sql';
import { outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg, sqlLiteral } from '../sql/statement';

const CAPTURE: ChargeOperation = 'capture';
const CANCEL: ChargeOperation = 'cancel';

/** the capture a new request may replace (nothing was captured): failed → pending */
const REPLACED = captureTransition('failed', CAPTURE_ENTRY_STATUS);

/**
 * Inserts a pending capture and its capture_requested command, only while the charge is capturable
 * (authorized) and has no capture — or only a failed one, which is replaced under the new id (the
 * processor's idempotency key, so the new attempt is a new request). The charge row is locked (FOR
 * UPDATE) so the status seen is the latest, not a snapshot racing charge-service. The charge's
 * pending_operation is marked `capture` while the capture runs: a cancel requested meanwhile is
 * refused (REQUEST_CANCEL), and a capture is refused while a cancel runs. One row per charge found.
 */
export const REQUEST_CAPTURE = defineStatement({
  name: 'captures_request',
  params: {
    chargeId: pg.uuid,
    captureId: pg.uuid,
    amount: pg.int8,
    currency: pg.text,
    correlationId: pg.nullable(pg.text),
  },
  columns: {
    status: pg.enum<ChargeStatus>('charge_status'),
    capture_status: pg.nullable(pg.enum<ChargeCaptureStatus>('capture_status')),
    cancel_pending: pg.bool,
    had_capture: pg.bool,
    created: pg.bool,
  },
  text: (p) => `
    WITH target AS (
      SELECT id, merchant_id, store_id, status, capture_status,
             pending_operation IS NOT DISTINCT FROM ${sqlLiteral(CANCEL)} AS cancel_pending,
             EXISTS (SELECT 1 FROM captures
                      WHERE charge_id = charges.id AND status <> ${sqlLiteral(REPLACED.from)}) AS had_capture
        FROM charges
       WHERE id = ${p.chargeId}
         FOR UPDATE
    ),
    created AS (
      INSERT INTO captures (id, charge_id, amount, currency, status)
      SELECT ${p.captureId}, id, ${p.amount}, ${p.currency}, ${sqlLiteral(CAPTURE_ENTRY_STATUS)}
        FROM target
       WHERE status = ${sqlLiteral(CAPTURABLE_CHARGE_STATUS)} AND NOT had_capture AND NOT cancel_pending
      ON CONFLICT (charge_id) DO UPDATE
         SET id = EXCLUDED.id, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
             status = ${sqlLiteral(REPLACED.to)},
             error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
       WHERE captures.status = ${sqlLiteral(REPLACED.from)}
      RETURNING id, charge_id
    ),
    marked AS (
      UPDATE charges SET pending_operation = ${sqlLiteral(CAPTURE)}
       WHERE id IN (SELECT charge_id FROM created)
      RETURNING id
    ),
    event AS (
      ${outboxInsertFrom('target', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: captureRequestedSql(p.captureId),
        correlationId: p.correlationId,
        where: 'EXISTS (SELECT 1 FROM created)',
      })}
    )
    SELECT status, capture_status, cancel_pending, had_capture, EXISTS (SELECT 1 FROM created) AS created
      FROM target`,
});
