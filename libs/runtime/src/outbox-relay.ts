import type { OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  eventRoutes,
  jobId,
  type OutboxJobData,
  type OutboxRoute,
  type QueueDefinition,
} from '@kessai/contracts';
import type { OutboxRepository, UnpublishedEvent } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import type { ContractJob, ContractQueue } from './contract-queue';
import { PeriodicTask } from './periodic-task';

export interface OutboxRelayOptions {
  /** the producer of a queue (registered with its contract's job options) */
  queue: (queue: QueueDefinition) => ContractQueue<QueueDefinition>;
  /** events taken per transaction */
  batchSize?: number;
  /** how long to wait before looking again when there was nothing to publish */
  idleDelayMs?: number;
  /** how long to wait after a partial batch, letting events accumulate (latency traded for cost) */
  lingerMs?: number;
  /** routes beyond the catalogue's, per event type (tests) */
  routes?: Record<string, OutboxRoute[]>;
}

/** A batch job's id part: the digest of its events' ids, in order (160 bits, hex). */
function batchDigest(events: OutboxJobData[]): string {
  const hash = createHash('sha256');
  for (const event of events) hash.update(event.eventId).update(',');
  return hash.digest('hex').slice(0, 40);
}

/**
 * Publishes committed outbox events to BullMQ, along the routes of the event catalogue
 * (libs/contracts, eventRoutes): only to queues that some service consumes. An event with no such
 * route (an internal event, or one whose queue has no consumer) is marked published with no job:
 * it stays in outbox_events, the record. Safe in every replica and across crashes:
 * - each batch is taken and marked by OutboxRepository.takeBatch, whose transaction commits only
 *   after the jobs were added, and whose rows two relays never share;
 * - jobs get their queue's options (attempts, backoff, bounded retention) as the queue's defaults;
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
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly batchSize: number;
  private readonly lingerMs: number;
  private readonly task: PeriodicTask;

  constructor(
    private readonly outbox: OutboxRepository,
    logger: Logger,
    private readonly options: OutboxRelayOptions,
  ) {
    this.batchSize = options.batchSize ?? 200;
    this.lingerMs = options.lingerMs ?? 20;
    this.task = new PeriodicTask({
      name: 'outbox relay batch',
      // nothing to publish (or a failed batch): look again after this
      intervalMs: options.idleDelayMs ?? 50,
      runAtStart: true,
      run: async () => {
        const published = await this.publishBatch();
        if (published === 0) return;
        // a full batch: go on at once; a partial one: linger a little so the next batch is fuller
        // (one transaction and one addBulk per batch is most of the relay's cost per event)
        return { pauseMs: published < this.batchSize ? this.lingerMs : 0 };
      },
      logger,
    });
  }

  /** Publishes one batch; resolves to how many events it took (published, or held with no route). */
  publishBatch(): Promise<number> {
    return this.outbox.takeBatch(this.batchSize, (events) => this.publish(events));
  }

  private async publish(events: UnpublishedEvent[]): Promise<void> {
    const byQueue = new Map<QueueDefinition, ContractJob<QueueDefinition>[]>();
    const add = (queue: QueueDefinition, job: ContractJob<QueueDefinition>) => {
      const jobs = byQueue.get(queue) ?? [];
      jobs.push(job);
      byQueue.set(queue, jobs);
    };
    const batched = new Map<string, { route: OutboxRoute; events: OutboxJobData[] }>();
    for (const event of events) {
      const data: OutboxJobData = {
        eventId: event.id,
        eventType: event.eventType,
        aggregateId: event.aggregateId,
        ...(event.correlationId === null ? {} : { correlationId: event.correlationId }),
      };
      for (const route of eventRoutes(event.eventType, this.options.routes)) {
        if (route.batch) {
          const key = `${route.queue.name}\u0000${route.job}`;
          const entry = batched.get(key) ?? { route, events: [] };
          entry.events.push(data);
          batched.set(key, entry);
          continue;
        }
        add(route.queue, { name: route.job, data, opts: { jobId: jobId(route.job, event.id) } });
      }
    }
    for (const { route, events: routed } of batched.values()) {
      const max = route.batch?.maxEvents ?? routed.length;
      for (let start = 0; start < routed.length; start += max) {
        const chunk = routed.slice(start, start + max);
        add(route.queue, {
          name: route.job,
          data: { events: chunk },
          opts: { jobId: jobId(route.job, batchDigest(chunk)) },
        });
      }
    }
    for (const [queue, jobs] of byQueue) await this.options.queue(queue).addBulk(jobs);
  }

  /** Publishes continuously until stop(): batch after batch while there is work, polling when idle. */
  start(): void {
    this.task.start();
  }

  /** Lets the batch in progress finish, so that nothing is half-published. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }
}
