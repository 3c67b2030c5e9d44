import { outboxJobSchema } from './jobs';
import { defineQueue } from './queues';

/**
 * webhook-service's queue: every event of kind `webhook` (events.ts), for delivery to the endpoints
 * subscribed to it. No service consumes it yet (the webhooks issue adds the consumer): until then
 * `consumer` is null and the relay publishes nothing to it; webhook events stay in outbox_events,
 * marked published with no job (docs/architecture.md, "Queues").
 */
export const WEBHOOK_EVENTS_QUEUE = defineQueue({
  name: 'webhook-events',
  consumer: null,
  jobs: { dispatch_event: outboxJobSchema },
  jobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 100_000 },
    removeOnFail: { age: 7 * 86_400, count: 100_000 },
  },
});
