import { z } from 'zod';
import { webhookAuthToken, webhookTriggers, webhookUrl } from '@kessai/webhooks';

/** Request schemas of the webhook routes (api-reference §5.10), in wire (snake_case) form. */

export const createWebhookSchema = z
  .object({ triggers: webhookTriggers, url: webhookUrl, auth_token: webhookAuthToken.nullish() })
  .strict();

export const updateWebhookSchema = z
  .object({
    triggers: webhookTriggers.optional(),
    url: webhookUrl.optional(),
    auth_token: webhookAuthToken.nullish(),
    active: z.boolean().optional(),
  })
  .strict();
