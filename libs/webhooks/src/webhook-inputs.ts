// The inputs of webhook management, as a front end parsed them (the gateway: webhook.schemas.ts),
// with the API's field names (api-reference §5.10). The rules between the fields and the owner
// (triggers of its scope, the URL's addresses) are WebhooksService's.

/** A webhook to create. */
export interface WebhookInput {
  /** distinct event names */
  triggers: string[];
  url: string;
  /** sent as the receiver's Authorization header value */
  auth_token?: string | null;
}

/** A webhook's changes (PATCH). */
export interface WebhookChangesInput {
  triggers?: string[];
  url?: string;
  auth_token?: string | null;
  active?: boolean;
}
