import type { EventType } from '@kessai/contracts';
import type {
  CAPTURE_REQUESTED,
  CHARGE_FINISHED,
  CHARGE_REQUESTED,
  CHARGE_UPDATED,
  PROCESSOR_NOTICE_RECEIVED,
  TOKEN_CREATED,
  TOKEN_UPDATED,
} from '@kessai/contracts';
import type { ChargeStatus } from '@kessai/domain';

/**
 * What each outbox event carries: ids and facts only, never a secret, a token or card data (events
 * reach queues and webhooks). One payload type per event type; the writer (outbox-writer.ts) takes
 * nothing else.
 */
export interface ChargeRequestedPayload {
  charge_id: string;
  store_id: string;
}

/** charge_updated and charge_finished */
export interface ChargeStatusPayload {
  charge_id: string;
  store_id: string;
  status: ChargeStatus;
}

export interface CaptureRequestedPayload {
  charge_id: string;
  capture_id: string;
}

/** The notice's id, event and status only: charge-service asks the processor itself. */
export interface ProcessorNoticeReceivedPayload {
  charge_id: string;
  notice_id: string;
  event: string;
  status: string;
}

export interface TokenCreatedPayload {
  transaction_token_id: string;
  store_id: string;
  type: string;
  payment_type: string;
  mode: string;
}

export interface TokenUpdatedPayload {
  transaction_token_id: string;
  store_id: string;
  /** the fields that changed (`active` when deactivated) */
  changed: string[];
  active: boolean;
}

export interface PasswordResetRequestedPayload {
  user_id: string;
  reset_id: string;
  expires_on: string;
}

export interface PasswordResetCompletedPayload {
  user_id: string;
  reset_id: string;
}

/**
 * Every event type written to outbox_events, with its payload. The password-reset names are
 * libs/accounts' (not in @kessai/contracts yet), hence spelled out here.
 */
export interface OutboxEventPayloads {
  [CHARGE_REQUESTED]: ChargeRequestedPayload;
  [CHARGE_UPDATED]: ChargeStatusPayload;
  [CHARGE_FINISHED]: ChargeStatusPayload;
  [CAPTURE_REQUESTED]: CaptureRequestedPayload;
  [PROCESSOR_NOTICE_RECEIVED]: ProcessorNoticeReceivedPayload;
  [TOKEN_CREATED]: TokenCreatedPayload;
  [TOKEN_UPDATED]: TokenUpdatedPayload;
  password_reset_requested: PasswordResetRequestedPayload;
  password_reset_completed: PasswordResetCompletedPayload;
}

export type OutboxEventType = keyof OutboxEventPayloads;

/** outbox_events.aggregate_type: whose id aggregate_id is */
export type OutboxAggregateType = 'charge' | 'transaction_token' | 'merchant_user';

/**
 * Every event type the writer knows is in the contracts' event catalogue, and the other way round:
 * the compiler fails here when one gains an event the other lacks.
 */
export type EventCatalogueAgrees = [OutboxEventType] extends [EventType]
  ? [EventType] extends [OutboxEventType]
    ? true
    : never
  : never;
export const EVENT_CATALOGUE_AGREES: EventCatalogueAgrees = true;
