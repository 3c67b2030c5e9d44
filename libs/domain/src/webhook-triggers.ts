/**
 * Webhook triggers (api-reference §6, the SDK's WebHookTrigger), by the scope a webhook may
 * subscribe to them in. A store webhook takes the store-level triggers, a merchant-level webhook
 * (store_id null) the merchant-level ones; any other is refused with VALIDATION_ERROR and the reason
 * INVALID_EVENT_FOR_STORE or INVALID_EVENT_FOR_MERCHANT. The merchant-level ones are the
 * merchant's transfers' events (the payouts' status changes). The triggers of facts Kessai has no
 * way to produce (UNEMITTED_WEBHOOK_TRIGGERS) are refused, so that no webhook waits for an event
 * that cannot come.
 */
export const STORE_WEBHOOK_TRIGGERS = [
  'token_created',
  'token_updated',
  'token_replaced',
  'token_cvv_auth_updated',
  'token_cvv_auth_check_updated',
  'token_three_ds_updated',
  'recurring_token_deleted',
  'charge_updated',
  'charge_finished',
  'refund_finished',
  'cancel_finished',
  'customs_declaration_finished',
  'subscription_created',
  'subscription_payment',
  'subscription_failure',
  'subscription_canceled',
  'subscription_completed',
  'subscription_suspended',
  'bank_transfer_status_updated',
] as const;

export const MERCHANT_WEBHOOK_TRIGGERS = [
  'transfer_created',
  'transfer_updated',
  'transfer_finalized',
] as const;

/**
 * Store triggers whose fact does not exist in Kessai: a CVV authorization's periodic re-check
 * (`cvv_authorize_check`: Kessai authorizes a token's CVV once, and again only when the merchant
 * enables it again, which is token_cvv_auth_updated) and WeChat customs declarations (no WeChat
 * customs route). Refused at creation and update with INVALID_EVENT_FOR_STORE (issue 30, gap 6).
 */
export const UNEMITTED_WEBHOOK_TRIGGERS = [
  'token_cvv_auth_check_updated',
  'customs_declaration_finished',
] as const;

export type WebhookTrigger =
  (typeof STORE_WEBHOOK_TRIGGERS)[number] | (typeof MERCHANT_WEBHOOK_TRIGGERS)[number];

export type WebhookScopeKind = 'store' | 'merchant';

/** The reason a trigger is refused for a scope, or null when the scope may subscribe to it. */
export function webhookTriggerRefusal(
  trigger: string,
  scope: WebhookScopeKind,
): 'INVALID_EVENT_FOR_STORE' | 'INVALID_EVENT_FOR_MERCHANT' | null {
  const allowed: readonly string[] = scope === 'store' ? STORE_WEBHOOK_TRIGGERS : MERCHANT_WEBHOOK_TRIGGERS;
  const unemitted: readonly string[] = UNEMITTED_WEBHOOK_TRIGGERS;
  if (allowed.includes(trigger) && !unemitted.includes(trigger)) return null;
  return scope === 'store' ? 'INVALID_EVENT_FOR_STORE' : 'INVALID_EVENT_FOR_MERCHANT';
}
