import type { Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';
import { OUTBOX_BACKLOG_COUNT_CAP, type OutboxRepository } from '@kessai/db';
import { ScrapeCache, type Logger } from '@kessai/observability';

/**
 * Readings taken from Redis or Postgres when Prometheus scrapes: served again for this long, so
 * that however many scrapers (an HA pair, a curious operator) a scrape costs one read per period.
 */
export const SCRAPE_CACHE_TTL_MS = 5_000;
/** A reading that takes longer is left out of the scrape: a scrape never waits on a sick dependency. */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/** The job states whose counts are reported per queue. */
export const QUEUE_DEPTH_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/**
 * kessai_queue_jobs{queue,state}: how many jobs each of `queues` holds in each state, read from
 * Redis (one pipelined read per queue) at scrape time, cached. When Redis does not answer the
 * gauge has no samples in that scrape (alert on its absence; /health says why).
 */
export function registerQueueDepth(registry: Registry, queues: readonly Queue[], logger: Logger): void {
  if (queues.length === 0) return;
  const counts = new ScrapeCache(
    () => Promise.all(queues.map((queue) => queue.getJobCounts(...QUEUE_DEPTH_STATES))),
    { ttlMs: SCRAPE_CACHE_TTL_MS, timeoutMs: SCRAPE_READ_TIMEOUT_MS },
  );
  new Gauge({
    name: 'kessai_queue_jobs',
    help: 'Jobs in a queue by state (waiting, active, delayed, failed), read at scrape time',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      let read;
      try {
        read = await counts.get();
      } catch (error) {
        logger.warn({ err: error }, 'queue depth unavailable for metrics');
        return;
      }
      read.forEach((byState, i) => {
        for (const state of QUEUE_DEPTH_STATES)
          this.set({ queue: queues[i].name, state }, byState[state] ?? 0);
      });
    },
  });
}

/**
 * kessai_outbox_unpublished_events and kessai_outbox_oldest_unpublished_age_seconds: the relay's
 * backlog, from one query on the partial index of unpublished events (OutboxRepository.backlog) at
 * scrape time, cached. An age that grows means no relay is publishing.
 */
export function registerOutboxLag(registry: Registry, outbox: OutboxRepository, logger: Logger): void {
  const backlog = new ScrapeCache(() => outbox.backlog(), {
    ttlMs: SCRAPE_CACHE_TTL_MS,
    timeoutMs: SCRAPE_READ_TIMEOUT_MS,
  });
  const read = async () => {
    try {
      return await backlog.get();
    } catch (error) {
      logger.warn({ err: error }, 'outbox backlog unavailable for metrics');
      return null;
    }
  };
  new Gauge({
    name: 'kessai_outbox_unpublished_events',
    help: `Outbox events not yet published (counted up to ${OUTBOX_BACKLOG_COUNT_CAP})`,
    registers: [registry],
    async collect() {
      this.reset();
      const found = await read();
      if (found) this.set(found.unpublished);
    },
  });
  new Gauge({
    name: 'kessai_outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest outbox event not yet published; 0 when there is none',
    registers: [registry],
    async collect() {
      this.reset();
      const found = await read();
      if (found) this.set(found.oldestAgeSeconds);
    },
  });
}
