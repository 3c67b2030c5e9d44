import { Queue } from 'bullmq';
import { createHash } from 'node:crypto';
import {
  jobId,
  outboxRoutes,
  type OutboxBatchJobData,
  type OutboxJobData,
  type OutboxRoute,
  type QueueJobOptions,
} from '@kessai/contracts';
import type { PrismaService } from '@kessai/db';
import type { Logger } from '@kessai/observability';

export interface OutboxRelayOptions {
  connection: { url: string; prefix: string };
  /** events taken per transaction */
  batchSize?: number;
  /** how long to wait before looking again when there was nothing to publish */
  idleDelayMs?: number;
  /** how long to wait after a partial batch, letting events accumulate (latency traded for cost) */
  lingerMs?: number;
  /** routes beyond the default webhook route, per event type */
  routes?: Record<string, OutboxRoute[]>;
}

interface RelayJob {
  name: string;
  data: OutboxJobData | OutboxBatchJobData;
  opts: QueueJobOptions & { jobId: string };
}

/** A batch job's id part: the digest of its events' ids, in order (160 bits, hex). */
function batchDigest(events: OutboxJobData[]): string {
  const hash = createHash('sha256');
  for (const event of events) hash.update(event.eventId).update(',');
  return hash.digest('hex').slice(0, 40);
}

interface PendingEvent {
  id: string;
  event_type: string;
  aggregate_id: string;
}

/**
 * Takes and marks a batch of at most $1 events, run with OUTBOX_TAKE_BATCH_SETTINGS. The unpublished
 * ones are found through a partial index (outbox_events_unpublished_idx: sequence WHERE published_on
 * IS NULL) read in order, which marks the entries that published rows left behind (their old
 * versions) as it passes them, so that later scans skip them. A bitmap scan, which the planner
 * prefers when it expects few rows, marks nothing and reads every such row again on every poll
 * until a vacuum: it is turned off for this transaction.
 */
export const OUTBOX_TAKE_BATCH_SETTINGS = { enable_bitmapscan: 'off' } as const;
export const OUTBOX_TAKE_BATCH = {
  name: 'outbox_relay_take_batch',
  text: `UPDATE outbox_events SET published_on = now()
          WHERE id IN (SELECT id FROM outbox_events
                        WHERE published_on IS NULL
                        ORDER BY sequence
                        LIMIT $1
                        FOR UPDATE SKIP LOCKED)
          RETURNING id::text AS id, event_type, aggregate_id::text AS aggregate_id, sequence::text AS sequence`,
} as const;

/**
 * Publishes committed outbox events to BullMQ. Safe in every replica and across crashes:
 * - each batch is taken and marked published by one UPDATE (its rows chosen FOR UPDATE SKIP LOCKED,
 *   so two relays never hold the same event) inside a transaction that commits only after the jobs
 *   were added;
 * - jobs get their queue's options (attempts, backoff, retention: QueueDefinition.jobOptions);
 * - a batched route's events go out as jobs of several events, whose id is a digest of exactly
 *   those events: the same batch published again is ignored like a single job, and a different
 *   batch holding some of the same events is a second job for them, which their consumer's state
 *   check makes harmless;
 * - a relay that dies between adding the jobs and committing leaves the events unpublished, and
 *   the next relay adds them again with the same deterministic job ids, which BullMQ ignores while
 *   the first job is kept; past that window, the consumer's own state check (the row is final, or a
 *   unique constraint) makes the repeat a no-op. Nothing is lost: an event is marked only after
 *   its jobs are in Redis.
 */
export class OutboxRelay {
  private readonly queues = new Map<string, Queue>();
  private readonly batchSize: number;
  private readonly idleDelayMs: number;
  private readonly lingerMs: number;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly prisma: PrismaService,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions,
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.idleDelayMs = options.idleDelayMs ?? 50;
    this.lingerMs = options.lingerMs ?? 20;
  }

  /** Publishes one batch; resolves to how many events it published. */
  async publishBatch(): Promise<number> {
    // plain pg on Prisma's pool: an interactive Prisma transaction costs several times the SQL itself
    return this.prisma.inTransaction(
      async (tx) => {
        // takes and marks the batch in one statement; the mark commits only after the jobs are in
        // Redis (a relay dying before its COMMIT leaves the events unpublished)
        const { rows } = await tx.query<PendingEvent & { sequence: string }>({
          ...OUTBOX_TAKE_BATCH,
          values: [this.batchSize],
        });
        if (rows.length === 0) return 0;
        const events = rows.sort((a, b) => (BigInt(a.sequence) < BigInt(b.sequence) ? -1 : 1));

        const byQueue = new Map<string, { queue: Queue; jobs: RelayJob[] }>();
        const add = (queueName: string, job: RelayJob) => {
          const entry = byQueue.get(queueName) ?? { queue: this.queue(queueName), jobs: [] };
          entry.jobs.push(job);
          byQueue.set(queueName, entry);
        };
        const batched = new Map<string, { route: OutboxRoute; events: OutboxJobData[] }>();
        for (const event of events) {
          const data = { eventId: event.id, eventType: event.event_type, aggregateId: event.aggregate_id };
          for (const route of outboxRoutes(event.event_type, this.options.routes)) {
            if (route.batch) {
              const key = `${route.queue.name}\u0000${route.job}`;
              const entry = batched.get(key) ?? { route, events: [] };
              entry.events.push(data);
              batched.set(key, entry);
              continue;
            }
            add(route.queue.name, {
              name: route.job,
              data,
              opts: { ...route.queue.jobOptions, jobId: jobId(route.job, event.id) },
            });
          }
        }
        for (const { route, events: routed } of batched.values()) {
          const max = route.batch?.maxEvents ?? routed.length;
          for (let start = 0; start < routed.length; start += max) {
            const chunk = routed.slice(start, start + max);
            add(route.queue.name, {
              name: route.job,
              data: { events: chunk },
              opts: { ...route.queue.jobOptions, jobId: jobId(route.job, batchDigest(chunk)) },
            });
          }
        }
        for (const { queue, jobs } of byQueue.values()) await queue.addBulk(jobs);
        return events.length;
      },
      { settings: OUTBOX_TAKE_BATCH_SETTINGS },
    );
  }

  /** Publishes continuously until stop(): batch after batch while there is work, polling when idle. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let published = 0;
        try {
          published = await this.publishBatch();
        } catch (error) {
          this.logger.warn({ err: error }, 'outbox relay batch failed; retrying');
        }
        // a full batch: go on at once; a partial one: linger a little so the next batch is fuller
        // (one transaction and one addBulk per batch is most of the relay's cost per event)
        if (published < this.batchSize && this.running)
          await this.sleep(published === 0 ? this.idleDelayMs : this.lingerMs);
      }
    })();
  }

  /** Lets the batch in progress finish (so nothing is half-published), then closes the queues. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
    this.queues.clear();
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: { url: this.options.connection.url, maxRetriesPerRequest: null },
        prefix: this.options.connection.prefix,
      });
      this.queues.set(name, queue);
    }
    return queue;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
