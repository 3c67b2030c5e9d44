/**
 * Outbox event types that are also webhook triggers (api-reference §6, WebHookTrigger): the value
 * is written to outbox_events.event_type and is what webhook-service delivers as `event`.
 * Payloads carry ids and facts only, never card data.
 */
export const TOKEN_CREATED = 'token_created';
export const TOKEN_UPDATED = 'token_updated';
/** any status transition of a charge that does not end it (pending → awaiting, → authorized) */
export const CHARGE_UPDATED = 'charge_updated';
/** a charge reached `successful`, `failed` or `error` */
export const CHARGE_FINISHED = 'charge_finished';

/**
 * Internal commands: outbox events that ask a worker to do something. They are routed to the
 * worker's queue only (outbox-routes.ts), never offered to webhooks.
 */
/** a charge was accepted (status pending): charge-service asks the processor */
export const CHARGE_REQUESTED = 'charge_requested';
/** a capture of an authorized charge was requested (API or capture_at): charge-service captures */
export const CAPTURE_REQUESTED = 'capture_requested';
/** the processor told us something about a charge (signed callback): charge-service looks it up */
export const PROCESSOR_NOTICE_RECEIVED = 'processor_notice_received';

/** Payload of CHARGE_UPDATED / CHARGE_FINISHED. */
export interface ChargeEventPayload {
  charge_id: string;
  store_id: string;
  status: string;
  [key: string]: string | number | boolean | null;
}
