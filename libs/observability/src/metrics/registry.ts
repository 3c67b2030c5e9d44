import type { Provider } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one Prometheus registry, with Node's process metrics (CPU, memory, event loop lag,
 * GC, handles) registered. Every Kessai metric is registered here, never in prom-client's global
 * registry, so that two apps in one process (tests) keep their own numbers.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Provides the process's registry under prom-client's `Registry` class: inject it by that type. */
export const metricsRegistryProvider: Provider = { provide: Registry, useFactory: createMetricsRegistry };

/** Durations of quick work (HTTP requests), in seconds: prom-client's default buckets. */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Durations of background work (jobs, which may wait on the processor's retries), in seconds. */
export const JOB_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
