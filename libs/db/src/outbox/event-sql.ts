import {
  BANK_TRANSFER_STATUS_UPDATED,
  CANCEL_FINISHED,
  CANCEL_REQUESTED,
  CAPTURE_REQUESTED,
  CHARGE_FINISHED,
  CHARGE_RECONCILE_REQUESTED,
  CHARGE_REQUESTED,
  CHARGE_UPDATED,
  PROCESSOR_NOTICE_RECEIVED,
  RECURRING_TOKEN_DELETED,
  REFUND_FINISHED,
  REFUND_REQUESTED,
  SUBSCRIPTION_CANCELED,
  SUBSCRIPTION_COMPLETED,
  SUBSCRIPTION_CREATED,
  SUBSCRIPTION_FAILURE,
  SUBSCRIPTION_PAYMENT,
  SUBSCRIPTION_SUSPENDED,
  SUBSCRIPTION_UPDATED,
  TOKEN_CREATED,
  TOKEN_CVV_AUTH_REQUESTED,
  TOKEN_CVV_AUTH_UPDATED,
  TOKEN_REPLACED,
  TOKEN_THREE_DS_NOTICE_RECEIVED,
  TOKEN_THREE_DS_REQUESTED,
  TOKEN_THREE_DS_UPDATED,
  TOKEN_UPDATED,
  TRANSFER_CREATED,
  TRANSFER_FINALIZED,
  TRANSFER_UPDATED,
} from '@kessai/contracts';
import { FINAL_TRANSFER_STATUSES, type ChargeStatusEvent } from '@kessai/domain';
import { sqlLiteral } from '../sql/statement';
import { eventSql, eventSqlPerRow, eventSqlWhen } from './outbox-writer';

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

/**
 * bank_transfer_status_updated, over charge_deposits rows (id, charge_id, amount, currency, matched)
 * joined with their charge's store_id.
 */
export const bankTransferStatusUpdatedSql = () =>
  eventSql(BANK_TRANSFER_STATUS_UPDATED, {
    charge_id: 'charge_id::text',
    store_id: 'store_id::text',
    deposit_id: 'id::text',
    amount: 'amount::text',
    currency: 'currency::text',
    matched: 'matched',
  });

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

/** refund_requested, over refund rows (id, charge_id, store_id, amount, currency). */
export const refundRequestedSql = () =>
  eventSql(REFUND_REQUESTED, {
    refund_id: 'id::text',
    charge_id: 'charge_id::text',
    store_id: 'store_id::text',
    amount: 'amount::text',
    currency: 'currency::text',
  });

/** refund_finished, over refund rows (id, charge_id, store_id, status, amount, currency). */
export const refundFinishedSql = () =>
  eventSql(REFUND_FINISHED, {
    refund_id: 'id::text',
    charge_id: 'charge_id::text',
    store_id: 'store_id::text',
    status: 'status::text',
    amount: 'amount::text',
    currency: 'currency::text',
  });

/** cancel_requested, over cancel rows (id, charge_id, store_id). */
export const cancelRequestedSql = () =>
  eventSql(CANCEL_REQUESTED, {
    cancel_id: 'id::text',
    charge_id: 'charge_id::text',
    store_id: 'store_id::text',
  });

/** cancel_finished, over cancel rows (id, charge_id, store_id, status). */
export const cancelFinishedSql = () =>
  eventSql(CANCEL_FINISHED, {
    cancel_id: 'id::text',
    charge_id: 'charge_id::text',
    store_id: 'store_id::text',
    status: 'status::text',
  });

/** charge_reconcile_requested after a cancel that did not void, over charge rows (id). */
export const chargeReconcileAfterCancelSql = () =>
  eventSql(CHARGE_RECONCILE_REQUESTED, { charge_id: 'id::text', cause: "'cancel_not_voided'" });

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

/** token_replaced, over the new token's rows (id, previous_id, store_id). */
export const tokenReplacedSql = () =>
  eventSql(TOKEN_REPLACED, {
    transaction_token_id: 'id::text',
    previous_id: 'previous_id::text',
    store_id: 'store_id::text',
  });

/** recurring_token_deleted, over transaction_tokens rows (id, store_id). */
export const recurringTokenDeletedSql = () =>
  eventSql(RECURRING_TOKEN_DELETED, { transaction_token_id: 'id::text', store_id: 'store_id::text' });

/** token_three_ds_requested, over transaction_tokens rows (id, store_id, data with three_ds.attempt). */
export const tokenThreeDsRequestedSql = () =>
  eventSql(TOKEN_THREE_DS_REQUESTED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    attempt: "COALESCE((data->'three_ds'->>'attempt')::int, 1)",
  });

/** token_three_ds_updated, over transaction_tokens rows (id, store_id, data with three_ds.status and enabled). */
export const tokenThreeDsUpdatedSql = () =>
  eventSql(TOKEN_THREE_DS_UPDATED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    status: "data->'three_ds'->>'status'",
    enabled: "COALESCE((data->'three_ds'->>'enabled')::boolean, false)",
  });

/** token_cvv_auth_requested, over transaction_tokens rows (id, store_id, data with cvv_authorize.attempt). */
export const tokenCvvAuthRequestedSql = () =>
  eventSql(TOKEN_CVV_AUTH_REQUESTED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    attempt: "COALESCE((data->'cvv_authorize'->>'attempt')::int, 1)",
  });

/** token_cvv_auth_updated, over transaction_tokens rows (id, store_id, data with cvv_authorize.status and enabled). */
export const tokenCvvAuthUpdatedSql = () =>
  eventSql(TOKEN_CVV_AUTH_UPDATED, {
    transaction_token_id: 'id::text',
    store_id: 'store_id::text',
    status: "data->'cvv_authorize'->>'status'",
    enabled: "COALESCE((data->'cvv_authorize'->>'enabled')::boolean, false)",
  });

/** token_three_ds_notice_received, over transaction_tokens rows (id), the notice's fields being expressions. */
export const tokenThreeDsNoticeReceivedSql = (notice: { noticeId: string; status: string }) =>
  eventSql(TOKEN_THREE_DS_NOTICE_RECEIVED, {
    transaction_token_id: 'id::text',
    notice_id: notice.noticeId,
    status: notice.status,
  });

/** The subscription events whose payload is SubscriptionEventPayload. */
export const SUBSCRIPTION_STATUS_EVENTS = [
  SUBSCRIPTION_CREATED,
  SUBSCRIPTION_PAYMENT,
  SUBSCRIPTION_FAILURE,
  SUBSCRIPTION_SUSPENDED,
  SUBSCRIPTION_CANCELED,
  SUBSCRIPTION_COMPLETED,
] as const;
export type SubscriptionStatusEvent = (typeof SUBSCRIPTION_STATUS_EVENTS)[number];

/**
 * A subscription event over rows with the columns `subscription_id`, `store_id`, `status` (the
 * subscription's, after the change), `scheduled_payment_id` and `charge_id` (either may be null);
 * `eventType` a constant, or an expression naming one of SUBSCRIPTION_STATUS_EVENTS per row.
 */
export const subscriptionEventSql = (eventType: SubscriptionStatusEvent | { perRow: string }) => {
  const payload = {
    subscription_id: 'subscription_id::text',
    store_id: 'store_id::text',
    status: 'status::text',
    scheduled_payment_id: 'scheduled_payment_id::text',
    charge_id: 'charge_id::text',
  };
  return typeof eventType === 'string'
    ? eventSql(eventType, payload)
    : eventSqlPerRow<SubscriptionStatusEvent>(eventType.perRow, SUBSCRIPTION_STATUS_EVENTS, payload);
};

/**
 * subscription_updated, over rows with the columns `subscription_id`, `store_id` and `status` (the
 * subscription's after the change); `changed` an expression yielding the changed fields as text[].
 */
export const subscriptionUpdatedSql = (changed: string) =>
  eventSql(SUBSCRIPTION_UPDATED, {
    subscription_id: 'subscription_id::text',
    store_id: 'store_id::text',
    changed: `to_jsonb(${changed})`,
    status: 'status::text',
  });

/** transfer_created, over transfer rows (id, status): a transfer made, in its first status. */
export const transferCreatedSql = () =>
  eventSql(TRANSFER_CREATED, { transfer_id: 'id::text', status: 'status::text' });

/**
 * transfer_finalized when `status` (an expression: the status moved to) ends the transfer (paid,
 * failed, canceled), transfer_updated otherwise; over transfer rows (id).
 */
export const transferChangedSql = (status: string) => {
  const payload = { transfer_id: 'id::text', status: `${status}::text` };
  return eventSqlWhen(
    `${status}::text IN (${FINAL_TRANSFER_STATUSES.map(sqlLiteral).join(', ')})`,
    eventSql(TRANSFER_FINALIZED, payload),
    eventSql(TRANSFER_UPDATED, payload),
  );
};
