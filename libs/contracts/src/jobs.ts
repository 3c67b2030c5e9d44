import { z } from 'zod';

/** The payload of every job the outbox relay publishes: the event's id and what it is about, no state. */
export const outboxJobSchema = z.object({
  eventId: z.string().uuid(),
  eventType: z.string().min(1),
  aggregateId: z.string().uuid(),
});
export type OutboxJobData = z.infer<typeof outboxJobSchema>;

/** The payload of a batched route's job: the events of one relay batch, in their order. */
export const outboxBatchJobSchema = z.object({ events: z.array(outboxJobSchema).min(1) });
export type OutboxBatchJobData = z.infer<typeof outboxBatchJobSchema>;
