import { z } from 'zod';
import { outboxBatchJobSchema } from './jobs';
import { defineQueue, KEEP_FINISHED_AN_HOUR, retriedJobOptions } from './queues';

/**
 * A job about one charge: from the relay (eventId: the command's outbox event) or from
 * charge-service itself (the sweeper, a batch charge retried alone), which has no event. Either way
 * aggregateId is the charge id (the transaction token's for authenticate_token and
 * authorize_token_cvv).
 */
export const chargeJobSchema = z.object({
  aggregateId: z.string().uuid(),
  eventId: z.string().uuid().optional(),
  eventType: z.string().min(1),
  /** the request the charge comes from, for the log lines (OutboxJobData) */
  correlationId: z.string().nullish(),
});
export type ChargeJobData = z.infer<typeof chargeJobSchema>;

/** How many charges one process_charges job carries at most. */
export const PROCESS_CHARGES_BATCH = 50;

/**
 * charge-service's queue. The worker reloads the charge and does nothing when the job no longer
 * applies (a repeat, a final charge), so a job delivered twice is harmless.
 * - process_charges: authorize the pending charges of one relay batch together: one read, their
 *   processor calls side by side, their outcomes recorded in shared statements; a charge whose
 *   outcome stays unknown continues as its own process_charge job
 * - process_charge: authorize a pending charge (or create the operator payment)
 * - capture_charge: capture an authorized charge's pending capture
 * - reconcile_charge: ask the processor what became of an awaiting or pending charge
 * - authenticate_token: take a card token's 3-D Secure one step on (aggregateId: the token id):
 *   pending → the authentication is asked of the processor; awaiting → the processor is asked how
 *   it ended (docs/transaction-tokens.md, "3-D Secure")
 * - authorize_token_cvv: a card token's CVV authorization (aggregateId: the token id): pending → the
 *   smallest amount is authorized with the CVV and voided (docs/transaction-tokens.md, "CVV
 *   authorization")
 */
export const CHARGES_QUEUE = defineQueue({
  name: 'charges',
  consumer: 'charge-service',
  jobs: {
    process_charges: outboxBatchJobSchema,
    process_charge: chargeJobSchema,
    capture_charge: chargeJobSchema,
    reconcile_charge: chargeJobSchema,
    authenticate_token: chargeJobSchema,
    authorize_token_cvv: chargeJobSchema,
  },
  // A job fails when the processor stays unreachable: try again later, for about 17 minutes in
  // all (1 s doubling, jittered); past that the sweeper re-enqueues what is still unfinished.
  // Finished jobs are kept an hour (at most 100,000) so that a relay's republish within that
  // window is ignored; failed ones a week, for the operator.
  jobOptions: retriedJobOptions(KEEP_FINISHED_AN_HOUR),
});
