import { z } from 'zod';
import { outboxBatchJobSchema, outboxJobSchema } from './jobs';
import { defineQueue, retriedJobOptions } from './queues';

/**
 * One try of one webhook delivery (a webhook_deliveries row). `attempt` is the try's number, from 1;
 * a try that does not succeed schedules the next one as a new delayed job (docs/webhooks.md).
 */
export const deliveryJobSchema = z.object({
  deliveryId: z.string().uuid(),
  attempt: z.number().int().positive(),
});
export type DeliveryJobData = z.infer<typeof deliveryJobSchema>;

/** How many tries one deliver_webhooks job carries at most. */
export const DELIVER_WEBHOOKS_BATCH = 50;

/**
 * Tries of deliveries to one webhook, made together: the first tries of a dispatched batch, one job
 * per webhook and at most DELIVER_WEBHOOKS_BATCH tries (docs/webhooks.md, "Batches").
 */
export const deliveriesJobSchema = z.object({
  webhookId: z.string().uuid(),
  tries: z.array(deliveryJobSchema).min(1).max(DELIVER_WEBHOOKS_BATCH),
});
export type DeliveriesJobData = z.infer<typeof deliveriesJobSchema>;

/** How many webhook events one dispatch_events job carries at most. */
export const DISPATCH_EVENTS_BATCH = 200;

/**
 * webhook-service's queue (docs/webhooks.md):
 * - dispatch_events: the events of kind `webhook` (events.ts) of one relay batch: for each, one
 *   webhook_deliveries row per active webhook subscribed to it (unique per webhook and event), all
 *   written by one statement, then the first tries as deliver_webhooks jobs, one per webhook;
 * - dispatch_event: the same for one event (jobs queued before dispatch_events existed);
 * - replay_delivery: one more try of a delivery, now, asked for by the merchant (the command
 *   webhook_replay_requested; aggregateId is the delivery's id);
 * - deliver_webhooks: first tries of deliveries to one webhook, sent side by side within the
 *   webhook's bound, recorded in shared statements;
 * - deliver_webhook: one try of one delivery (a retry, a sweep). Its retries are not BullMQ's: a failed try records
 *   itself and adds the next try as a delayed job on the configured schedule (WEBHOOK_RETRY_*), so
 *   the schedule is the config's and every try is a row. BullMQ's own attempts below only cover a
 *   handler that could not run (Postgres away); a try already recorded is not repeated.
 * Jobs carry ids only. Completed jobs are kept 5 minutes and at most 10,000: the rows, not the job
 * ids, keep a dispatch or a try from happening twice (a delivery is unique per webhook and event, a
 * recorded try is not repeated), so the ids need only outlive a relay's republish, which comes
 * within seconds. Failed ones are kept a week for the operator. Redis stays bounded whatever the
 * traffic (bench/README: 53,443 keys, 80 MiB after 21,199 charges with the hour-long retention).
 */
export const WEBHOOK_DELIVERIES_QUEUE = defineQueue({
  // the symbol says what the queue carries (deliveries, and the dispatches that make them); its
  // Redis name stays the one it had as WEBHOOK_EVENTS_QUEUE: delayed retries, jobs in flight and a
  // week of failed jobs live under it, and a new name would strand them in a rolling deploy
  // (docs/decisions/0029-webhook-deliveries-queue-name.md)
  name: 'webhook-events',
  consumer: 'webhook-service',
  jobs: {
    dispatch_events: outboxBatchJobSchema,
    dispatch_event: outboxJobSchema,
    replay_delivery: outboxJobSchema,
    deliver_webhook: deliveryJobSchema,
    deliver_webhooks: deliveriesJobSchema,
  },
  jobOptions: retriedJobOptions({ age: 300, count: 10_000 }),
});
