/**
 * Outbox event types that are also webhook triggers (api-reference §6, WebHookTrigger): the value
 * is written to outbox_events.event_type and is what webhook-service delivers as `event`.
 * Payloads carry ids and facts only, never card data.
 */
export const TOKEN_CREATED = 'token_created';
export const TOKEN_UPDATED = 'token_updated';
