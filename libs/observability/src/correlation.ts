import { AsyncLocalStorage } from 'node:async_hooks';

const current = new AsyncLocalStorage<string>();

/**
 * Runs `fn` with `correlationId` as the correlation of everything it does, awaited work included:
 * every line the process's logger writes meanwhile carries it (createLogger's mixin). The gateway
 * enters the request's id (X-Request-Id, or one it made) for each request; a worker the id its job
 * carries (the event's `correlation_id`). Without an id, `fn` runs as it is.
 */
export function withCorrelation<T>(correlationId: string | null | undefined, fn: () => T): T {
  return correlationId ? current.run(correlationId, fn) : fn();
}

/** The correlation id of the work running now, if it has one. */
export function currentCorrelationId(): string | undefined {
  return current.getStore();
}

/**
 * Where a write came from, carried into the outbox events it records (their `correlation_id`): the
 * gateway passes the request's id, another front end its own request's. The use cases take it
 * explicitly rather than from withCorrelation, so that an event's correlation is never implicit.
 */
export interface Correlation {
  correlationId: string;
}
