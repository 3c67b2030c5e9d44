import type { LoggedDelivery } from '@kessai/db';
import type { CreatedWebhook, WebhookListEntry, WebhookResource } from '@kessai/webhooks';
import { optionalField } from '@kessai/presenters';

/**
 * The Webhook resource (api-reference §5.10). `signing_secret` is in the creation answer only
 * (presentCreatedWebhook); `disabled_reason` (Kessai's own) says why delivery turned it off.
 */
export function presentWebhook(webhook: WebhookResource) {
  return {
    id: webhook.id,
    merchant_id: webhook.merchantId,
    store_id: webhook.storeId,
    triggers: webhook.triggers,
    url: webhook.url,
    ...optionalField('auth_token', webhook.authToken),
    // Kessai's own: the URL rules it is held to (docs/webhooks.md)
    mode: webhook.mode,
    active: webhook.active,
    ...optionalField('disabled_reason', webhook.disabledReason),
    // Kessai's own: until when deliveries are signed with the secret before the last rotation too
    ...optionalField('previous_secret_expires_on', webhook.previousSecretExpiresOn?.toISOString()),
    created_on: webhook.createdOn.toISOString(),
    updated_on: webhook.updatedOn.toISOString(),
  };
}

/** A list item (api-reference §5.10): the webhook with `merchant_name` and `store_name` (null for the merchant's own). */
export function presentWebhookListItem(webhook: WebhookListEntry) {
  return {
    ...presentWebhook(webhook),
    merchant_name: webhook.merchant.name,
    store_name: webhook.store?.name ?? null,
  };
}

/** The creation answer: the webhook and, this once, its Standard Webhooks signing secret. */
export function presentCreatedWebhook(webhook: CreatedWebhook) {
  return { ...presentWebhook(webhook), signing_secret: webhook.signingSecret };
}

/**
 * A delivery in the webhook's log (GET …/webhooks/{id}/events): UnivaPay's fields (`successful`,
 * `fired_on` — the last try's time —, `error_message` — the last try's failure) and Kessai's own:
 * `status`, `attempt_count`, `next_attempt_on`, `delivered_on` and every try.
 */
export function presentDelivery(delivery: LoggedDelivery) {
  const last = delivery.attempts.at(-1);
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    event: delivery.event,
    successful: delivery.status === 'delivered',
    fired_on: last?.createdOn.toISOString() ?? null,
    error_message: last?.errorMessage ?? null,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    ...optionalField('next_attempt_on', delivery.nextAttemptOn?.toISOString()),
    ...optionalField('delivered_on', delivery.deliveredOn?.toISOString()),
    attempts: delivery.attempts.map((attempt) => ({
      number: attempt.number,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error_message: attempt.errorMessage,
      response_snippet: attempt.responseSnippet,
      created_on: attempt.createdOn.toISOString(),
    })),
    created_on: delivery.createdOn.toISOString(),
  };
}
