import { Injectable } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { REQUEST_DURATION_BUCKETS } from '@kessai/observability';
import type { RateLimitFamily } from '@kessai/rate-limits';

/** Methods labelled as themselves; any other is `other`, so that a client cannot add series. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of a request the router matched to no route (404s, probing). */
export const UNMATCHED_ROUTE = 'unmatched';

export type IdempotencyConflict = 'different_request' | 'request_in_progress';

/**
 * The gateway's metrics (docs/operations.md, "Metrics"). Requests are labelled with the router's
 * route pattern (`/stores/:storeId/charges/:chargeId`), never the path: ids would make a series per
 * resource.
 */
@Injectable()
export class GatewayMetrics {
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #duration: Histogram<'method' | 'route' | 'status'>;
  readonly #rateLimitRefusals: Counter<'family'>;
  readonly #rateLimiterFailures: Counter;
  readonly #idempotencyReplays: Counter;
  readonly #idempotencyConflicts: Counter<'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#requests = new Counter({
      name: 'kessai_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'kessai_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers,
    });
    this.#rateLimitRefusals = new Counter({
      name: 'kessai_rate_limit_refusals_total',
      help: 'Requests refused with 429 by the rate limiter, by bucket family (charge, standard; callback: an IP blocked for refused processor-callback signatures)',
      labelNames: ['family'],
      registers,
    });
    this.#rateLimiterFailures = new Counter({
      name: 'kessai_rate_limiter_failures_total',
      help:
        'Requests the rate limiter could not count, by reason: unavailable (Redis unreachable; ' +
        'RATE_LIMIT_REDIS_FAILURE decided) or slow (connected, no answer in RATE_LIMIT_REDIS_TIMEOUT_MS; let through)',
      labelNames: ['reason'],
      registers,
    });
    this.#idempotencyReplays = new Counter({
      name: 'kessai_idempotency_replays_total',
      help: 'Requests answered with the stored response of an earlier request with the same Idempotency-Key',
      registers,
    });
    this.#idempotencyConflicts = new Counter({
      name: 'kessai_idempotency_conflicts_total',
      help: 'Requests refused with 409 IDEMPOTENCY_KEY_CONFLICT, by reason',
      labelNames: ['reason'],
      registers,
    });
  }

  /** One answered request; `route` is the router's pattern, undefined when nothing matched. */
  requestAnswered(method: string, route: string | undefined, status: number, durationMs: number): void {
    const labels = {
      method: KNOWN_METHODS.has(method) ? method : 'other',
      route: route ?? UNMATCHED_ROUTE,
      status: String(status),
    };
    this.#requests.inc(labels);
    this.#duration.observe(labels, durationMs / 1000);
  }

  rateLimited(family: RateLimitFamily | 'callback'): void {
    this.#rateLimitRefusals.inc({ family });
  }

  rateLimiterFailed(reason: 'unavailable' | 'slow'): void {
    this.#rateLimiterFailures.inc({ reason });
  }

  idempotentReplay(): void {
    this.#idempotencyReplays.inc();
  }

  idempotencyConflict(reason: IdempotencyConflict): void {
    this.#idempotencyConflicts.inc({ reason });
  }
}
