import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { WEBHOOK_DELIVERIES_QUEUE, type QueueJob } from '@kessai/contracts';
import { postponeJob, QueueProcessor, unhandledJob } from '@kessai/runtime';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookDispatchService } from './webhook-dispatch.service';

/** webhook-service's worker of the webhook-events queue: each job to its use case. */
@Processor(WEBHOOK_DELIVERIES_QUEUE.name)
export class WebhookDeliveriesProcessor extends QueueProcessor<typeof WEBHOOK_DELIVERIES_QUEUE> {
  constructor(
    private readonly dispatcher: WebhookDispatchService,
    private readonly deliveries: WebhookDeliveryService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(WEBHOOK_DELIVERIES_QUEUE, {
      // jobs taken at once; their tries share the DeliveryPool's global cap (WEBHOOK_WORKER_CONCURRENCY)
      concurrency: config.WEBHOOK_JOB_CONCURRENCY,
      lockDuration: config.WEBHOOK_JOB_LOCK_MS,
    });
  }

  protected handle(job: QueueJob<typeof WEBHOOK_DELIVERIES_QUEUE>, raw: Job, token?: string): Promise<void> {
    switch (job.name) {
      case 'dispatch_events':
        return this.dispatcher.dispatchMany(job.data.events.map((event) => event.eventId));
      case 'dispatch_event':
        return this.dispatcher.dispatch(job.data.eventId);
      case 'replay_delivery':
        return this.deliveries.replay(job.data.aggregateId, (_tries, at) => postponeJob(raw, token, at));
      case 'deliver_webhook':
        return this.deliveries.deliver([job.data], (_tries, at) => postponeJob(raw, token, at));
      case 'deliver_webhooks':
        // the tries put back are all the job holds when it runs again
        return this.deliveries.deliver(job.data.tries, async (tries, at) => {
          await raw.updateData({ ...job.data, tries });
          return postponeJob(raw, token, at);
        });
      default:
        return unhandledJob(job);
    }
  }
}
