import { z } from 'zod';

/** The payload of every job the outbox relay publishes: the event's id and what it is about, no state. */
export const outboxJobSchema = z.object({
  eventId: z.string().uuid(),
  eventType: z.string().min(1),
  aggregateId: z.string().uuid(),
  /**
   * the request the event comes from (its X-Request-Id), carried into the worker's log lines;
   * absent in jobs queued before it was carried, and for events no request caused
   */
  correlationId: z.string().nullish(),
});
export type OutboxJobData = z.infer<typeof outboxJobSchema>;

/** The payload of a batched route's job: the events of one relay batch, in their order. */
export const outboxBatchJobSchema = z.object({ events: z.array(outboxJobSchema).min(1) });
export type OutboxBatchJobData = z.infer<typeof outboxBatchJobSchema>;
