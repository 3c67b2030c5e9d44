import type { QueueDefinition } from './queues';

/** Every recorded event goes to webhook-service, which finds the endpoints subscribed to it. */
export const WEBHOOK_EVENTS_QUEUE = {
  name: 'webhook-events',
  jobs: ['dispatch_event'],
} as const satisfies QueueDefinition;

/** The payload of every job the outbox relay publishes: the event's id, nothing else (the row is the state). */
export interface OutboxJobData {
  eventId: string;
  eventType: string;
  aggregateId: string;
}

export interface OutboxRoute {
  queue: QueueDefinition;
  job: string;
}

/**
 * Where an outbox event is published. Commands for a worker (e.g. "process this charge") get their
 * own routes as those workers arrive; every event is also offered to webhook delivery.
 */
export function outboxRoutes(
  eventType: string,
  extraRoutes: Record<string, OutboxRoute[]> = {},
): OutboxRoute[] {
  return [...(extraRoutes[eventType] ?? []), { queue: WEBHOOK_EVENTS_QUEUE, job: 'dispatch_event' }];
}
