import { z } from 'zod';
import { outboxBatchJobSchema } from './jobs';
import { defineQueue, KEEP_FINISHED_AN_HOUR, retriedJobOptions } from './queues';

/**
 * A job about one refund or cancel: from the relay (eventId: the command's outbox event) or from
 * refund-cancel-service's sweeper, which has none. aggregateId is the refund's or cancel's id.
 */
export const operationJobSchema = z.object({
  aggregateId: z.string().uuid(),
  eventId: z.string().uuid().optional(),
  eventType: z.string().min(1),
});
export type OperationJobData = z.infer<typeof operationJobSchema>;

/** How many refunds one process_refunds job carries at most. */
export const PROCESS_REFUNDS_BATCH = 50;

/**
 * refund-cancel-service's queue. The worker reloads the refund or cancel and does nothing when it is
 * no longer pending, and the processor is keyed by its id, so a job delivered twice is harmless.
 * - process_refunds: the refund_requested commands of one relay batch together: one read, their
 *   processor calls side by side, their outcomes recorded in shared statements; a refund whose
 *   outcome stays unknown continues as its own process_refund job
 * - process_refund: refund a pending refund at the processor and record the outcome (the sweeper's,
 *   a batch's refund retried alone)
 * - process_cancel: void the charge of a pending cancel at the processor and record the outcome
 */
export const REFUNDS_CANCELS_QUEUE = defineQueue({
  name: 'refunds-cancels',
  consumer: 'refund-cancel-service',
  jobs: {
    process_refunds: outboxBatchJobSchema,
    process_refund: operationJobSchema,
    process_cancel: operationJobSchema,
  },
  // As the charges queue: about 17 minutes of retries while the processor stays unreachable (the
  // last attempt ends the operation as `error`); finished jobs kept an hour so that a relay's
  // republish within it is ignored, failed ones a week for the operator.
  jobOptions: retriedJobOptions(KEEP_FINISHED_AN_HOUR),
});
