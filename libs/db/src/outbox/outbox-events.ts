import type { EventType } from '@kessai/contracts';
import type { ChargeStatus, OperationStatus } from '@kessai/domain';

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

/**
 * bank_transfer_status_updated: one transfer into a bank-transfer charge's virtual account, and
 * whether the charge's received total matched its match_amount rule once it arrived.
 */
export interface BankTransferStatusUpdatedPayload {
  charge_id: string;
  store_id: string;
  /** our charge_deposits row */
  deposit_id: string;
  /** minor units, as a decimal string (bigint) */
  amount: string;
  currency: string;
  matched: boolean;
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

/** refund_requested */
export interface RefundRequestedPayload {
  refund_id: string;
  charge_id: string;
  store_id: string;
  /** minor units, as a decimal string (bigint) */
  amount: string;
  currency: string;
}

/** cancel_requested */
export interface CancelRequestedPayload {
  cancel_id: string;
  charge_id: string;
  store_id: string;
}

/** refund_finished */
export interface RefundFinishedPayload {
  refund_id: string;
  charge_id: string;
  store_id: string;
  status: OperationStatus;
  amount: string;
  currency: string;
}

/** charge_reconcile_requested: why the charge is to be looked up again */
export interface ChargeReconcileRequestedPayload {
  charge_id: string;
  cause: 'cancel_not_voided';
}

/** cancel_finished */
export interface CancelFinishedPayload {
  cancel_id: string;
  charge_id: string;
  store_id: string;
  status: OperationStatus;
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

/** token_replaced: the new token and the one it replaced */
export interface TokenReplacedPayload {
  transaction_token_id: string;
  previous_id: string;
  store_id: string;
}

/** recurring_token_deleted: the recurring token deleted (deactivated) */
export interface RecurringTokenDeletedPayload {
  transaction_token_id: string;
  store_id: string;
}

/** token_three_ds_requested: the authentication attempt (1 at creation, one more per enableThreeDs) */
export interface TokenThreeDsRequestedPayload {
  transaction_token_id: string;
  store_id: string;
  attempt: number;
}

/** token_three_ds_notice_received: the notice's id and status only; charge-service asks the processor */
export interface TokenThreeDsNoticeReceivedPayload {
  transaction_token_id: string;
  notice_id: string;
  status: string;
}

/** token_three_ds_updated: the token's 3-D Secure status as it is now */
export interface TokenThreeDsUpdatedPayload {
  transaction_token_id: string;
  store_id: string;
  status: string;
  enabled: boolean;
}

/** token_cvv_auth_requested: the CVV authorization attempt (1 at creation, one more each time it is enabled again) */
export interface TokenCvvAuthRequestedPayload {
  transaction_token_id: string;
  store_id: string;
  attempt: number;
}

/** token_cvv_auth_updated: the token's CVV authorization status as it is now */
export interface TokenCvvAuthUpdatedPayload {
  transaction_token_id: string;
  store_id: string;
  status: string;
  enabled: boolean;
}

/**
 * subscription_created, _payment, _failure, _suspended, _canceled, _completed: the subscription's
 * status after the change, and the scheduled payment (and its charge) that caused it, if any.
 */
export interface SubscriptionEventPayload {
  subscription_id: string;
  store_id: string;
  status: string;
  scheduled_payment_id: string | null;
  charge_id: string | null;
}

/** subscription_updated: what a request changed */
export interface SubscriptionUpdatedPayload {
  subscription_id: string;
  store_id: string;
  changed: string[];
  status: string;
}

/** transfer_created, transfer_updated, transfer_finalized: the transfer's status after the change */
export interface TransferEventPayload {
  transfer_id: string;
  status: string;
}

/** webhook_replay_requested */
export interface WebhookReplayRequestedPayload {
  delivery_id: string;
  webhook_id: string;
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
 * Every event type written to outbox_events, with its payload, by its name in the contracts' event
 * catalogue (EventCatalogueAgrees below fails the build on a name the catalogue lacks, or the other
 * way round).
 */
export interface OutboxEventPayloads {
  charge_requested: ChargeRequestedPayload;
  charge_updated: ChargeStatusPayload;
  charge_finished: ChargeStatusPayload;
  bank_transfer_status_updated: BankTransferStatusUpdatedPayload;
  capture_requested: CaptureRequestedPayload;
  processor_notice_received: ProcessorNoticeReceivedPayload;
  refund_requested: RefundRequestedPayload;
  refund_finished: RefundFinishedPayload;
  cancel_requested: CancelRequestedPayload;
  cancel_finished: CancelFinishedPayload;
  charge_reconcile_requested: ChargeReconcileRequestedPayload;
  token_created: TokenCreatedPayload;
  token_updated: TokenUpdatedPayload;
  token_replaced: TokenReplacedPayload;
  recurring_token_deleted: RecurringTokenDeletedPayload;
  token_three_ds_requested: TokenThreeDsRequestedPayload;
  token_three_ds_notice_received: TokenThreeDsNoticeReceivedPayload;
  token_three_ds_updated: TokenThreeDsUpdatedPayload;
  token_cvv_auth_requested: TokenCvvAuthRequestedPayload;
  token_cvv_auth_updated: TokenCvvAuthUpdatedPayload;
  webhook_replay_requested: WebhookReplayRequestedPayload;
  subscription_created: SubscriptionEventPayload;
  subscription_payment: SubscriptionEventPayload;
  subscription_failure: SubscriptionEventPayload;
  subscription_suspended: SubscriptionEventPayload;
  subscription_canceled: SubscriptionEventPayload;
  subscription_completed: SubscriptionEventPayload;
  subscription_updated: SubscriptionUpdatedPayload;
  transfer_created: TransferEventPayload;
  transfer_updated: TransferEventPayload;
  transfer_finalized: TransferEventPayload;
  password_reset_requested: PasswordResetRequestedPayload;
  password_reset_completed: PasswordResetCompletedPayload;
}

export type OutboxEventType = keyof OutboxEventPayloads;

/** outbox_events.aggregate_type: whose id aggregate_id is */
export type OutboxAggregateType =
  | 'charge'
  | 'refund'
  | 'cancel'
  | 'transaction_token'
  | 'merchant_user'
  | 'webhook_delivery'
  | 'subscription'
  | 'transfer';

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
