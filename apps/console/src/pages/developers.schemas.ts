import { z } from 'zod';
import { APP_TOKEN_DOMAINS_MAX } from '@kessai/accounts';
import { webhookAuthToken, webhookTriggers, webhookUrl } from '@kessai/webhooks';

/**
 * Request schemas of the console's developer pages (query strings and forms, as browsers send them);
 * a webhook's fields have the API's form (libs/webhooks), the rules between them the use cases'.
 */

const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const optional = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(blankAsUndefined, schema.optional());
const store = optional(z.string().uuid());

/** Whose keys and webhooks a page shows and a form acts for: the merchant's own (no store), or one of its stores. */
export const ownerQuery = z.object({ store });
export const ownerForm = ownerQuery;

/** POST /developers/app-tokens: the origins its public use may come from, separated by spaces, commas or lines. */
export const appTokenForm = z.object({
  store,
  domains: z.preprocess(
    (value) => (typeof value === 'string' ? value.split(/[\s,]+/).filter((domain) => domain !== '') : []),
    z.array(z.string().max(253)).max(APP_TOKEN_DOMAINS_MAX),
  ),
});

/** A checkbox group: absent (none ticked), one value, or several. */
const ticked = z.preprocess(
  (value: unknown): unknown[] =>
    value === undefined ? [] : Array.isArray(value) ? (value as unknown[]) : [value],
  webhookTriggers,
);

/** POST /developers/webhooks: a new webhook. */
export const webhookForm = z.object({
  store,
  url: webhookUrl,
  triggers: ticked,
  auth_token: optional(webhookAuthToken),
});

/** POST /developers/webhooks/:id: its changes (the active checkbox sends "on" when ticked). */
export const webhookChangesForm = webhookForm.extend({ active: optional(z.literal('on')) });
