import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import {
  DELIVER_WEBHOOKS_BATCH,
  isWebhookEventType,
  jobId,
  WEBHOOK_DELIVERIES_QUEUE,
  type DeliveriesJobData,
  type DeliveryJobData,
} from '@kessai/contracts';
import { WebhooksRepository, type DeliveryToSend, type NewDelivery } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { ContractQueue, InjectContractQueue } from '@kessai/runtime';
import { DeliverySecrets } from './delivery-secrets';
import { WebhookDataLoader } from './webhook-data-loader';
import { WebhookDeliveryService } from './webhook-delivery.service';

/**
 * dispatch_events (dispatch_event: one event): the outbox events of kind `webhook` of a relay batch
 * become one webhook_deliveries row per active webhook subscribed to each — never two for one
 * webhook and event (unique in Postgres), however often the job runs — each with its body fixed
 * once: `{id, event, data, created_on}`, `id` the delivery's, `data` the resource as the API returns
 * it, `created_on` the event's time. Then the first try of each: the rows this run wrote are tried
 * by this job, with the bodies it holds (WebhookDeliveryService.deliverLoaded, through the process's
 * DeliveryPool); rows an earlier run wrote and nobody tried yet (the job ran again after a crash),
 * and tries that waited too long for their endpoint, go out as deliver_webhooks jobs, one per
 * webhook and DELIVER_WEBHOOKS_BATCH tries. A batch costs one statement to find its subscribed
 * events, one read per resource kind, one statement for its rows, one for its webhooks and shared
 * statements for its tries' records, whatever its size.
 */
@Injectable()
export class WebhookDispatchService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly data: WebhookDataLoader,
    private readonly deliveries: WebhookDeliveryService,
    @InjectContractQueue(WEBHOOK_DELIVERIES_QUEUE)
    private readonly queue: ContractQueue<typeof WEBHOOK_DELIVERIES_QUEUE>,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly secrets: DeliverySecrets,
  ) {}

  async dispatchMany(eventIds: readonly string[]): Promise<void> {
    const events = await this.webhooks.findSubscribedEvents(eventIds);
    if (events.length === 0) return;
    // read side by side: the loaders read the batch's resources together (WebhookDataLoader)
    const data = await Promise.all(
      events.map((event) =>
        isWebhookEventType(event.eventType)
          ? this.data.of(event.eventType, event)
          : Promise.resolve(undefined),
      ),
    );
    const written: NewDelivery[] = [];
    for (const [i, event] of events.entries()) {
      const resource = data[i];
      if (resource === undefined) continue;
      if (resource === null) {
        this.logger.warn(
          { eventId: event.id, eventType: event.eventType },
          'webhook event without its resource; not delivered',
        );
        continue;
      }
      // the body as JSON.stringify({id, event, data, created_on}) writes it, `data` serialised once
      // for all the event's webhooks
      const tail = `,"event":${JSON.stringify(event.eventType)},"data":${JSON.stringify(resource)},"created_on":${JSON.stringify(event.createdOn.toISOString())}}`;
      for (const webhookId of event.webhookIds) {
        const id = randomUUID();
        written.push({
          id,
          webhookId,
          eventId: event.id,
          event: event.eventType,
          body: `{"id":${JSON.stringify(id)}${tail}`,
        });
      }
    }
    const toTry = await this.webhooks.createDeliveries(written);
    const mine = new Map(written.map((delivery) => [delivery.id, delivery]));
    const earlier = toTry.filter((delivery) => !mine.has(delivery.id));
    if (earlier.length > 0) {
      await this.queue.addBulk(
        deliverJobs(earlier.map(({ id, webhookId }) => ({ webhookId, deliveryId: id, attempt: 1 }))),
      );
    }
    const fresh = toTry.flatMap((delivery) => mine.get(delivery.id) ?? []);
    if (fresh.length === 0) return;
    const targets = new Map(
      (
        await this.webhooks.findDeliveryTargets(
          fresh.map((delivery) => delivery.webhookId),
          this.secrets.read,
        )
      ).map((target) => [target.webhookId, target]),
    );
    const tries: { delivery: DeliveryToSend; attempt: number }[] = [];
    for (const { id, webhookId, body } of fresh) {
      const target = targets.get(webhookId);
      // a webhook deleted meanwhile (its deliveries went with it), or whose secrets failed to open
      if (target)
        tries.push({ delivery: { ...target, id, status: 'pending', attemptCount: 0, body }, attempt: 1 });
    }
    const webhookOf = new Map(fresh.map((delivery) => [delivery.id, delivery.webhookId]));
    await this.deliveries.deliverLoaded(tries, async (waited, at) => {
      await this.queue.addBulk(
        deliverJobs(
          waited.map((tried) => ({ ...tried, webhookId: webhookOf.get(tried.deliveryId) ?? '' })),
          { delay: Math.max(0, at - Date.now()), suffix: 'waited' },
        ),
      );
    });
  }

  dispatch(eventId: string): Promise<void> {
    return this.dispatchMany([eventId]);
  }
}

/**
 * Tries as deliver_webhooks jobs: per webhook, DELIVER_WEBHOOKS_BATCH at most, each job's id the
 * digest of its tries (the same tries queued again are one job).
 */
function deliverJobs(
  tries: readonly (DeliveryJobData & { webhookId: string })[],
  { delay = 0, suffix }: { delay?: number; suffix?: string } = {},
) {
  const byWebhook = new Map<string, DeliveryJobData[]>();
  for (const { webhookId, deliveryId, attempt } of tries) {
    const list = byWebhook.get(webhookId);
    if (list) list.push({ deliveryId, attempt });
    else byWebhook.set(webhookId, [{ deliveryId, attempt }]);
  }
  const jobs: {
    name: 'deliver_webhooks';
    data: DeliveriesJobData;
    opts: { jobId: string; delay: number };
  }[] = [];
  for (const [webhookId, list] of byWebhook) {
    list.sort((a, b) => (a.deliveryId < b.deliveryId ? -1 : 1));
    for (let start = 0; start < list.length; start += DELIVER_WEBHOOKS_BATCH) {
      const chunk = list.slice(start, start + DELIVER_WEBHOOKS_BATCH);
      const digest = createHash('sha256')
        .update(chunk.map((tried) => `${tried.deliveryId}.${tried.attempt}`).join(','))
        .digest('hex')
        .slice(0, 40);
      jobs.push({
        name: 'deliver_webhooks',
        data: { webhookId, tries: chunk },
        opts: { jobId: jobId('deliver_webhooks', digest, ...(suffix ? [suffix] : [])), delay },
      });
    }
  }
  return jobs;
}
