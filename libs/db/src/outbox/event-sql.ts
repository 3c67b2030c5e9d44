import {
  CAPTURE_REQUESTED,
  CHARGE_FINISHED,
  CHARGE_REQUESTED,
  CHARGE_UPDATED,
  PROCESSOR_NOTICE_RECEIVED,
  TOKEN_CREATED,
  TOKEN_UPDATED,
} from '@kessai/contracts';
import type { ChargeStatusEvent } from '@kessai/domain';
import { eventSql, eventSqlPerRow } from './outbox-writer';

/**
 * The payload of each event type that statements write, built here and nowhere else. Each reads a
 * source CTE's columns by the names given (`id`, `store_id`, …), or the SQL expressions passed.
 */

/** charge_requested, over charge rows (id, store_id). */
export const chargeRequestedSql = () =>
  eventSql(CHARGE_REQUESTED, { charge_id: 'id::text', store_id: 'store_id::text' });

/**
 * charge_updated / charge_finished, over charge rows (id, store_id, status); `eventType` is a
 * constant or an expression naming one of the two per row (the charge machine's decision).
 */
export const chargeStatusSql = (eventType: ChargeStatusEvent | { perRow: string }) => {
  const payload = { charge_id: 'id::text', store_id: 'store_id::text', status: 'status::text' };
  return typeof eventType === 'string'
    ? eventSql(eventType, payload)
    : eventSqlPerRow<ChargeStatusEvent>(eventType.perRow, [CHARGE_UPDATED, CHARGE_FINISHED], payload);
};

/** capture_requested, over charge rows (id), for the capture `captureId` (an expression). */
export const captureRequestedSql = (captureId: string) =>
  eventSql(CAPTURE_REQUESTED, { charge_id: 'id::text', capture_id: `${captureId}::text` });

/** processor_notice_received, over charge rows (id), the notice's fields being expressions. */
export const processorNoticeReceivedSql = (notice: { noticeId: string; event: string; status: string }) =>
  eventSql(PROCESSOR_NOTICE_RECEIVED, {
    charge_id: 'id::text',
    notice_id: notice.noticeId,
    event: notice.event,
    status: notice.status,
  });

/** token_created, over transaction_tokens rows. */
export const tokenCreatedSql = () =>
  eventSql(TOKEN_CREATED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    type: 'type::text',
    payment_type: 'payment_type::text',
    mode: 'mode::text',
  });

/** token_updated, over transaction_tokens rows, `changed` being an expression (a jsonb array of names). */
export const tokenUpdatedSql = (changed: string) =>
  eventSql(TOKEN_UPDATED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    changed,
    active: 'active',
  });
