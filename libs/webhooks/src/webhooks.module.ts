import { Module } from '@nestjs/common';
import { webhookSecretsCipherProvider } from '@kessai/vault';
import { WebhookUrlPolicy } from './webhook-url.policy';
import { WebhooksService } from './webhooks.service';

const services = [WebhooksService, WebhookUrlPolicy];

/**
 * Webhook management every front end shares (docs/decisions/0026-use-cases-in-libs.md): create,
 * read, list, change, rotate the secret, delete, replay a delivery; the URL rules of decision 0024.
 * Needs the (global) ConfigModule and DbModule; seals webhooks' secrets with VAULT_KEYS.
 */
@Module({ providers: [...services, webhookSecretsCipherProvider], exports: services })
export class WebhooksModule {}
