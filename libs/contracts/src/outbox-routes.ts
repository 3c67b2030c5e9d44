import { CAPTURE_REQUESTED, CHARGE_REQUESTED, PROCESSOR_NOTICE_RECEIVED } from './events';
import type { QueueDefinition } from './queues';

/** Every recorded event goes to webhook-service, which finds the endpoints subscribed to it. */
export const WEBHOOK_EVENTS_QUEUE = {
  name: 'webhook-events',
  jobs: ['dispatch_event'],
} as const satisfies QueueDefinition;

/**
 * charge-service's queue. Every job carries OutboxJobData whose aggregateId is the charge id (or,
 * process_charges, a list of them); the worker reloads the charge and does nothing when the job no
 * longer applies (a repeat, a final charge), so a job delivered twice is harmless.
 * - process_charges: authorize the pending charges of one relay batch together (OutboxBatchJobData):
 *   one read, their processor calls side by side, their outcomes recorded in shared statements; a
 *   charge whose outcome stays unknown continues as its own process_charge job
 * - process_charge: authorize a pending charge (or create the operator payment)
 * - capture_charge: capture an authorized charge (payload: capture_id)
 * - reconcile_charge: ask the processor what became of an awaiting or pending charge
 */
export const CHARGES_QUEUE = {
  name: 'charges',
  jobs: ['process_charges', 'process_charge', 'capture_charge', 'reconcile_charge'],
  // A job fails when the processor stays unreachable: try again later, for about 17 minutes in
  // all (1 s doubling, jittered); past that the sweeper re-enqueues what is still unfinished.
  // Finished jobs are kept an hour so that a relay's republish within that window is ignored.
  jobOptions: {
    attempts: 10,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: { age: 3_600, count: 100_000 },
    removeOnFail: { age: 7 * 86_400 },
  },
} as const satisfies QueueDefinition;

/** The payload of every job the outbox relay publishes: the event's id, nothing else (the row is the state). */
export interface OutboxJobData {
  eventId: string;
  eventType: string;
  aggregateId: string;
}

/** The payload of a batched route's job: the events of one relay batch, in their order. */
export interface OutboxBatchJobData {
  events: OutboxJobData[];
}

export interface OutboxRoute {
  queue: QueueDefinition;
  job: string;
  /**
   * Batched: the events of one relay batch that take this route go out as jobs of at most
   * `maxEvents` events each (OutboxBatchJobData), instead of one job per event. Every job costs
   * Redis and the consumer a round trip or more; a batch lets the consumer share its reads and
   * writes too.
   */
  batch?: { maxEvents: number };
}

/** How many charges one process_charges job carries at most. */
export const PROCESS_CHARGES_BATCH = 50;

/** Commands for workers: published to the worker's queue only. */
export const COMMAND_ROUTES: Readonly<Record<string, OutboxRoute[]>> = {
  [CHARGE_REQUESTED]: [
    { queue: CHARGES_QUEUE, job: 'process_charges', batch: { maxEvents: PROCESS_CHARGES_BATCH } },
  ],
  [CAPTURE_REQUESTED]: [{ queue: CHARGES_QUEUE, job: 'capture_charge' }],
  [PROCESSOR_NOTICE_RECEIVED]: [{ queue: CHARGES_QUEUE, job: 'reconcile_charge' }],
};

/**
 * Where an outbox event is published: a command goes to its worker's queue; every other event
 * (a fact) is offered to webhook delivery. `extraRoutes` adds routes (tests).
 */
export function outboxRoutes(
  eventType: string,
  extraRoutes: Record<string, OutboxRoute[]> = {},
): OutboxRoute[] {
  const extra = extraRoutes[eventType] ?? [];
  const command = COMMAND_ROUTES[eventType];
  if (command) return [...command, ...extra];
  return [...extra, { queue: WEBHOOK_EVENTS_QUEUE, job: 'dispatch_event' }];
}
