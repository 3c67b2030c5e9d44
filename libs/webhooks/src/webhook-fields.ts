import { z } from 'zod';

/**
 * The form of a webhook's fields (api-reference §5.10), one definition for every front end: the
 * gateway's request schemas and the console's forms. The rules between the fields and the owner
 * (triggers of its scope, the URL's addresses) are WebhooksService's.
 */

/** A trigger's scope is checked by the service (INVALID_EVENT_FOR_STORE / _MERCHANT); here only its form. */
export const webhookTriggers = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(50)
  .refine((list) => new Set(list).size === list.length, {
    params: { reason: 'MUST_CONTAIN_UNIQUE_ELEMENTS_ONLY' },
  });

/** The URL's rules (scheme, addresses) are the service's; here only its length. */
export const webhookUrl = z.string().trim().min(1).max(2_048);

/**
 * Sent as the receiver's Authorization header value, so visible ASCII only (0x21-0x7E), with single
 * spaces inside (`Bearer mytoken`): a control character or a character beyond ASCII cannot be sent
 * in a header, and would fail every try. A refusal is VALIDATION_ERROR on `auth_token`, reason
 * INVALID_FORMAT.
 */
export const webhookAuthToken = z
  .string()
  .min(1)
  .max(1_024)
  .regex(/^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/);
