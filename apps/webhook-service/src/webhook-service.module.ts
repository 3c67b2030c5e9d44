import { Module } from '@nestjs/common';
import { OutboxRelayModule } from '@kessai/runtime';
import { webhookSecretsCipherProvider } from '@kessai/vault';
import { DeliverySecrets } from './delivery-secrets';
import { WebhookDataLoader } from './webhook-data-loader';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookDispatchService } from './webhook-dispatch.service';
import { WebhookDeliveriesProcessor } from './webhook-deliveries.processor';
import { WebhookMetrics } from './webhook-metrics';
import { WebhookSender } from './webhook-sender';
import { WebhookSweeper } from './webhook-sweeper';

/**
 * Webhook delivery (docs/webhooks.md): the webhook-events queue's processor, dispatch, tries and the
 * HTTP sender, the sweep of deliveries whose job was lost, and an outbox relay (as in
 * charge-service); the webhooks' secrets opened with VAULT_KEYS (decision 0086). The config, Postgres (WebhooksRepository and the resources' repositories),
 * Redis, BullMQ and the logger come from the worker service's root.
 */
@Module({
  imports: [OutboxRelayModule],
  providers: [
    webhookSecretsCipherProvider,
    DeliverySecrets,
    WebhookDataLoader,
    WebhookSender,
    WebhookDispatchService,
    WebhookDeliveryService,
    WebhookDeliveriesProcessor,
    WebhookMetrics,
    WebhookSweeper,
  ],
})
export class WebhookServiceModule {}
