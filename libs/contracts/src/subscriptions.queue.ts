import { outboxBatchJobSchema } from './jobs';
import { defineQueue, KEEP_FINISHED_AN_HOUR, retriedJobOptions } from './queues';

/** How many charge_finished events one settle_payments job carries at most. */
export const SETTLE_PAYMENTS_BATCH = 200;

/**
 * subscription-service's queue (docs/subscriptions.md, "The engine").
 * - settle_payments: the charge_finished (and charge_updated) events of one relay batch. For each
 *   charge of a scheduled
 *   payment, settle that payment (paid, or a retry, or its tries used up), move the subscription
 *   and create its next payment, with their events, in one transaction. Other charges are skipped.
 *   A payment settles only while `processing` with the charge's attempt, so a job delivered twice
 *   settles nothing twice.
 */
export const SUBSCRIPTIONS_QUEUE = defineQueue({
  name: 'subscriptions',
  consumer: 'subscription-service',
  jobs: {
    settle_payments: outboxBatchJobSchema,
  },
  // A job fails only when Postgres does: retry for about 17 minutes, then the sweeper settles what
  // is still processing with a final charge. Finished jobs are kept an hour so that a relay's
  // republish within it is ignored, failed ones a week for the operator.
  jobOptions: retriedJobOptions(KEEP_FINISHED_AN_HOUR),
});
