import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { isWebhookEventType, jobId, WEBHOOK_EVENTS_QUEUE, type DeliveryJobData } from '@kessai/contracts';
import { WebhooksRepository, type WebhookEvent } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { WebhookData } from './webhook-data';

/**
 * dispatch_events (dispatch_event: one event): an outbox event of kind `webhook` becomes one
 * webhook_deliveries row per active
 * webhook subscribed to it — never two for one webhook and event (unique in Postgres), however often
 * the job runs — each with its body fixed once: `{id, event, data, created_on}`, `id` the delivery's,
 * `data` the resource as the API returns it, `created_on` the event's time. Then the first try of
 * every delivery of the event not tried yet is queued, under one job id per delivery and try.
 */
@Injectable()
export class WebhookDispatchService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly data: WebhookData,
    @InjectQueue(WEBHOOK_EVENTS_QUEUE.name) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * The events of one relay batch: one statement keeps those some webhook is subscribed to (most
   * events, in most stores, have none), then each is dispatched on its own.
   */
  async dispatchMany(eventIds: readonly string[]): Promise<void> {
    for (const event of await this.webhooks.findSubscribedEvents(eventIds)) await this.dispatchEvent(event);
  }

  async dispatch(eventId: string): Promise<void> {
    const event = await this.webhooks.findEvent(eventId);
    if (event) await this.dispatchEvent(event);
  }

  private async dispatchEvent(event: WebhookEvent): Promise<void> {
    if (!isWebhookEventType(event.eventType)) return;
    const eventId = event.id;
    const webhookIds = await this.webhooks.findSubscribed(event);
    if (webhookIds.length === 0) return;
    const data = await this.data.of(event.eventType, event);
    if (data === null) {
      this.logger.warn(
        { eventId, eventType: event.eventType },
        'webhook event without its resource; not delivered',
      );
      return;
    }
    const createdOn = event.createdOn.toISOString();
    const deliveries = webhookIds.map((webhookId) => {
      const id = randomUUID();
      return {
        id,
        webhookId,
        body: JSON.stringify({ id, event: event.eventType, data, created_on: createdOn }),
      };
    });
    const toTry = await this.webhooks.createDeliveries(event, deliveries);
    await this.queue.addBulk(
      toTry.map((deliveryId) => {
        const job: DeliveryJobData = { deliveryId, attempt: 1 };
        return {
          name: 'deliver_webhook',
          data: job,
          opts: { jobId: jobId('deliver_webhook', deliveryId, '1') },
        };
      }),
    );
  }
}
