import { CHARGES_QUEUE, PROCESS_CHARGES_BATCH } from './charges.queue';
import type { JobName, QueueDefinition } from './queues';
import { PROCESS_REFUNDS_BATCH, REFUNDS_CANCELS_QUEUE } from './refunds-cancels.queue';
import { SETTLE_PAYMENTS_BATCH, SUBSCRIPTIONS_QUEUE } from './subscriptions.queue';
import { DISPATCH_EVENTS_BATCH, WEBHOOK_DELIVERIES_QUEUE } from './webhooks.queue';

/**
 * Where an outbox event goes as a job. `batch`: the events of one relay batch that take this route
 * go out as jobs of at most `maxEvents` events each (OutboxBatchJobData) instead of one job per
 * event: every job costs Redis and the consumer a round trip or more, and a batch lets the consumer
 * share its reads and writes too.
 */
export interface OutboxRoute<Q extends QueueDefinition = QueueDefinition> {
  queue: Q;
  job: JobName<Q>;
  batch?: { maxEvents: number };
}

function route<Q extends QueueDefinition>(
  queue: Q,
  job: JobName<Q>,
  batch?: { maxEvents: number },
): OutboxRoute {
  return { queue, job, ...(batch ? { batch } : {}) };
}

/**
 * What an outbox event is:
 * - `command`: asks a worker to do something; routed to the queue that executes it, never announced;
 * - `webhook`: a fact announced to merchants (api-reference §6, WebHookTrigger): routed to
 *   webhook-service, and the value is what it delivers as `event`;
 * - `internal`: a fact kept for the record and for Kessai's own consumers, never announced.
 * Payloads carry ids and facts only, never card data; their types are libs/db's
 * (`src/outbox/outbox-events.ts`), which writes them, checked against this catalogue.
 */
export type EventKind = 'command' | 'webhook' | 'internal';

export interface EventDefinition {
  kind: EventKind;
  /** the queue(s) the event is published to (a webhook event's route is added by eventRoutes) */
  routes?: readonly OutboxRoute[];
  description: string;
}

/** Every event type written to outbox_events.event_type, with its kind and routes. */
export const EVENT_CATALOGUE = {
  token_created: { kind: 'webhook', description: 'a transaction token was created' },
  token_updated: { kind: 'webhook', description: 'a transaction token changed (metadata, cvv, deactivated)' },
  token_replaced: {
    kind: 'webhook',
    description: 'a recurring or subscription token was renewed: a new token replaced it (previous_id)',
  },
  recurring_token_deleted: {
    kind: 'webhook',
    description: 'a recurring transaction token was deleted (DELETE …/tokens/{id}): the token, now inactive',
  },
  token_three_ds_updated: {
    kind: 'webhook',
    description: "a card token's 3-D Secure status changed (awaiting, successful, failed, or pending again)",
  },
  token_three_ds_requested: {
    kind: 'command',
    description: "a card token's 3-D Secure is to be authenticated: charge-service asks the processor",
    routes: [route(CHARGES_QUEUE, 'authenticate_token')],
  },
  token_three_ds_notice_received: {
    kind: 'command',
    description: "the processor told us about a token's 3-D Secure: charge-service looks it up",
    routes: [route(CHARGES_QUEUE, 'authenticate_token')],
  },
  token_cvv_auth_updated: {
    kind: 'webhook',
    description: "a card token's CVV authorization status changed (pending, current, failed, or inactive)",
  },
  token_cvv_auth_requested: {
    kind: 'command',
    description: "a card token's CVV is to be authorized: charge-service asks the processor",
    routes: [route(CHARGES_QUEUE, 'authorize_token_cvv')],
  },
  charge_updated: {
    kind: 'webhook',
    description:
      'a charge moved to a status that does not end it (awaiting, authorized), or an awaiting bank-transfer or konbini charge was extended at its deadline',
    // an authorization-only first charge of a subscription makes the subscription `authorized`
    routes: [route(SUBSCRIPTIONS_QUEUE, 'settle_payments', { maxEvents: SETTLE_PAYMENTS_BATCH })],
  },
  charge_finished: {
    kind: 'webhook',
    description: 'a charge reached successful, failed, error or canceled',
    // a scheduled payment's charge settles the payment (other charges are skipped there)
    routes: [route(SUBSCRIPTIONS_QUEUE, 'settle_payments', { maxEvents: SETTLE_PAYMENTS_BATCH })],
  },
  bank_transfer_status_updated: {
    kind: 'webhook',
    description:
      'money arrived for a bank-transfer charge (a transfer into its virtual account), matching its amount or not',
  },
  charge_requested: {
    kind: 'command',
    description: 'a charge was accepted (pending): charge-service asks the processor',
    routes: [route(CHARGES_QUEUE, 'process_charges', { maxEvents: PROCESS_CHARGES_BATCH })],
  },
  capture_requested: {
    kind: 'command',
    description: 'a capture of an authorized charge was requested (API or capture_at)',
    routes: [route(CHARGES_QUEUE, 'capture_charge')],
  },
  processor_notice_received: {
    kind: 'command',
    description: 'the processor told us something about a charge: charge-service looks it up',
    routes: [route(CHARGES_QUEUE, 'reconcile_charge')],
  },
  refund_requested: {
    kind: 'command',
    description: 'a refund of a successful charge was accepted (pending): refund-cancel-service refunds',
    routes: [route(REFUNDS_CANCELS_QUEUE, 'process_refunds', { maxEvents: PROCESS_REFUNDS_BATCH })],
  },
  refund_finished: { kind: 'webhook', description: 'a refund reached successful, failed or error' },
  cancel_requested: {
    kind: 'command',
    description: 'a cancel of an authorized or awaiting charge was accepted: refund-cancel-service voids',
    routes: [route(REFUNDS_CANCELS_QUEUE, 'process_cancel')],
  },
  cancel_finished: { kind: 'webhook', description: 'a cancel reached successful, failed or error' },
  charge_reconcile_requested: {
    kind: 'command',
    description: 'a cancel of an awaiting charge did not void it: charge-service looks the charge up',
    routes: [route(CHARGES_QUEUE, 'reconcile_charge')],
  },
  subscription_created: {
    kind: 'webhook',
    description: 'a subscription was created; its first payment is scheduled',
  },
  subscription_payment: { kind: 'webhook', description: "a subscription's scheduled payment was paid" },
  subscription_failure: {
    kind: 'webhook',
    description: "a subscription's scheduled payment failed (the subscription is unpaid or unconfirmed)",
  },
  subscription_suspended: {
    kind: 'webhook',
    description: 'a subscription was suspended (its failed payment used up its tries, or on request)',
  },
  subscription_canceled: { kind: 'webhook', description: 'a subscription was canceled' },
  subscription_completed: { kind: 'webhook', description: "a subscription's plan was paid in full" },
  transfer_created: {
    kind: 'webhook',
    description: "a transfer (a merchant's payout of a currency for a payout day) was made",
  },
  transfer_updated: {
    kind: 'webhook',
    description: "a transfer's status moved on without ending it (approved, processing)",
  },
  transfer_finalized: {
    kind: 'webhook',
    description: 'a transfer ended: paid by the bank, or failed or canceled (its money back)',
  },
  subscription_updated: {
    kind: 'internal',
    description: 'a subscription was changed on request (amount, token, metadata, unsuspended…)',
  },
  webhook_replay_requested: {
    kind: 'command',
    description: 'a merchant asked for one more try of a webhook delivery: webhook-service sends it now',
    routes: [route(WEBHOOK_DELIVERIES_QUEUE, 'replay_delivery')],
  },
  password_reset_requested: {
    kind: 'internal',
    description: 'a merchant user asked for a password reset (the delivery record; never the token)',
  },
  password_reset_completed: {
    kind: 'internal',
    description: 'a password reset was used: the password changed and the user’s sessions were revoked',
  },
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EVENT_CATALOGUE;

export const TOKEN_CREATED = 'token_created' satisfies EventType;
export const TOKEN_UPDATED = 'token_updated' satisfies EventType;
/** a token was renewed: the new token, with previous_id */
export const TOKEN_REPLACED = 'token_replaced' satisfies EventType;
/** a recurring token was deleted: the token, inactive (its token_updated is written too) */
export const RECURRING_TOKEN_DELETED = 'recurring_token_deleted' satisfies EventType;
/** a card token's 3-D Secure status changed */
export const TOKEN_THREE_DS_UPDATED = 'token_three_ds_updated' satisfies EventType;
/** a card token's 3-D Secure is to be authenticated (created with it, or enableThreeDs) */
export const TOKEN_THREE_DS_REQUESTED = 'token_three_ds_requested' satisfies EventType;
/** the processor's signed notice about a token's 3-D Secure: charge-service looks it up */
export const TOKEN_THREE_DS_NOTICE_RECEIVED = 'token_three_ds_notice_received' satisfies EventType;
/** a card token's CVV authorization status changed */
export const TOKEN_CVV_AUTH_UPDATED = 'token_cvv_auth_updated' satisfies EventType;
/** a card token's CVV is to be authorized (created with cvv_authorize, or enabled by PATCH) */
export const TOKEN_CVV_AUTH_REQUESTED = 'token_cvv_auth_requested' satisfies EventType;
/** any status transition of a charge that does not end it (pending → awaiting, → authorized) */
export const CHARGE_UPDATED = 'charge_updated' satisfies EventType;
/** a charge reached `successful`, `failed`, `error` or `canceled` */
export const CHARGE_FINISHED = 'charge_finished' satisfies EventType;
/** money arrived for a bank-transfer charge, matching it or not (docs/bank-transfer-and-konbini.md) */
export const BANK_TRANSFER_STATUS_UPDATED = 'bank_transfer_status_updated' satisfies EventType;
/** a charge was accepted (status pending): charge-service asks the processor */
export const CHARGE_REQUESTED = 'charge_requested' satisfies EventType;
/** a capture of an authorized charge was requested (API or capture_at): charge-service captures */
export const CAPTURE_REQUESTED = 'capture_requested' satisfies EventType;
/** the processor told us something about a charge (signed callback): charge-service looks it up */
export const PROCESSOR_NOTICE_RECEIVED = 'processor_notice_received' satisfies EventType;

/** a refund was accepted (pending): refund-cancel-service refunds it at the processor */
export const REFUND_REQUESTED = 'refund_requested' satisfies EventType;
/** a refund reached successful, failed or error */
export const REFUND_FINISHED = 'refund_finished' satisfies EventType;
/** a cancel was accepted (pending): refund-cancel-service voids the charge at the processor */
export const CANCEL_REQUESTED = 'cancel_requested' satisfies EventType;
/** a cancel reached successful, failed or error */
export const CANCEL_FINISHED = 'cancel_finished' satisfies EventType;

export const SUBSCRIPTION_CREATED = 'subscription_created' satisfies EventType;
export const SUBSCRIPTION_PAYMENT = 'subscription_payment' satisfies EventType;
export const SUBSCRIPTION_FAILURE = 'subscription_failure' satisfies EventType;
export const SUBSCRIPTION_SUSPENDED = 'subscription_suspended' satisfies EventType;
export const SUBSCRIPTION_CANCELED = 'subscription_canceled' satisfies EventType;
export const SUBSCRIPTION_COMPLETED = 'subscription_completed' satisfies EventType;
export const SUBSCRIPTION_UPDATED = 'subscription_updated' satisfies EventType;

/** a transfer was made (a payout day's run), in its first status */
export const TRANSFER_CREATED = 'transfer_created' satisfies EventType;
/** a transfer moved to a status that does not end it (approved, processing) */
export const TRANSFER_UPDATED = 'transfer_updated' satisfies EventType;
/** a transfer reached paid, failed or canceled */
export const TRANSFER_FINALIZED = 'transfer_finalized' satisfies EventType;

/** a merchant asked for one more try of a webhook delivery */
export const WEBHOOK_REPLAY_REQUESTED = 'webhook_replay_requested' satisfies EventType;

/** a cancel of an awaiting charge did not void it: charge-service looks the charge up */
export const CHARGE_RECONCILE_REQUESTED = 'charge_reconcile_requested' satisfies EventType;

/** The event types of kind `webhook`: what webhook-service delivers, and the trigger's name. */
export type WebhookEventType = {
  [K in EventType]: (typeof EVENT_CATALOGUE)[K]['kind'] extends 'webhook' ? K : never;
}[EventType];

/** The webhook events (api-reference §6 triggers) that exist today. */
export const WEBHOOK_EVENT_TYPES = (Object.keys(EVENT_CATALOGUE) as EventType[]).filter(
  (type): type is WebhookEventType => EVENT_CATALOGUE[type].kind === 'webhook',
);

export function isWebhookEventType(value: string): value is WebhookEventType {
  return isEventType(value) && EVENT_CATALOGUE[value].kind === 'webhook';
}

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_CATALOGUE, value);
}

/**
 * Where an outbox event is published: its catalogue routes (a webhook event: webhook-service's
 * queue), then `extraRoutes` (tests), keeping only the queues that some service consumes. An
 * event type the catalogue does not know has no route.
 */
export function eventRoutes(
  eventType: string,
  extraRoutes: Readonly<Record<string, readonly OutboxRoute[]>> = {},
): OutboxRoute[] {
  const routes: OutboxRoute[] = [];
  if (isEventType(eventType)) {
    const definition: EventDefinition = EVENT_CATALOGUE[eventType];
    routes.push(...(definition.routes ?? []));
    if (definition.kind === 'webhook')
      routes.push(route(WEBHOOK_DELIVERIES_QUEUE, 'dispatch_events', { maxEvents: DISPATCH_EVENTS_BATCH }));
  }
  if (Object.hasOwn(extraRoutes, eventType)) routes.push(...(extraRoutes[eventType] ?? []));
  return routes.filter((candidate) => candidate.queue.consumer !== null);
}

/** Every queue of the system. */
export const QUEUES: readonly QueueDefinition[] = [
  CHARGES_QUEUE,
  REFUNDS_CANCELS_QUEUE,
  SUBSCRIPTIONS_QUEUE,
  WEBHOOK_DELIVERIES_QUEUE,
];
