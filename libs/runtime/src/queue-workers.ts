import type { Job } from 'bullmq';
import { Worker } from 'bullmq';
import type { QueueDefinition } from '@kessai/contracts';
import type { Logger } from '@kessai/observability';

export type JobHandler = (job: Job) => Promise<unknown>;

export interface QueueConsumer {
  queue: QueueDefinition;
  concurrency: number;
  handlers: Record<string, JobHandler>;
  /**
   * How long a job stays locked to its worker without a lock renewal (BullMQ lockDuration, default
   * 30 s). A live worker renews it; a killed one's jobs are found stalled within about this long
   * (the stalled check runs at the same interval) and handed to another worker.
   */
  lockDurationMs?: number;
}

/**
 * How often a job may be found stalled (its worker died) before BullMQ fails it. Handlers reload
 * the row and are safe to repeat, so a job survives several crashes rather than one.
 */
const MAX_STALLED_COUNT = 5;

export class MissingJobHandlerError extends Error {}

/**
 * Runs the BullMQ workers of one service. Refuses to start when a job of a consumed queue has no
 * handler; on close, stops taking jobs and waits for the ones in flight.
 */
export class QueueWorkers {
  private readonly workers: Worker[] = [];

  constructor(
    private readonly consumers: QueueConsumer[],
    private readonly connection: { url: string; prefix: string },
    private readonly logger: Logger,
  ) {
    for (const consumer of consumers) {
      const missing = consumer.queue.jobs.filter((job) => !consumer.handlers[job]);
      if (missing.length > 0) {
        throw new MissingJobHandlerError(
          `queue ${consumer.queue.name} has no handler for: ${missing.join(', ')}`,
        );
      }
    }
  }

  start(): void {
    for (const consumer of this.consumers) {
      const worker = new Worker(
        consumer.queue.name,
        async (job) => {
          const handler = consumer.handlers[job.name];
          if (!handler) throw new Error(`unknown job ${job.name}`);
          return handler(job);
        },
        {
          connection: { url: this.connection.url, maxRetriesPerRequest: null },
          prefix: this.connection.prefix,
          concurrency: consumer.concurrency,
          maxStalledCount: MAX_STALLED_COUNT,
          // BullMQ copies undefined over its defaults, so only a given duration is passed
          ...(consumer.lockDurationMs
            ? { lockDuration: consumer.lockDurationMs, stalledInterval: consumer.lockDurationMs }
            : {}),
        },
      );
      worker.on('failed', (job, error) =>
        this.logger.warn(
          { queue: consumer.queue.name, job: job?.name, jobId: job?.id, err: error.message },
          'job failed',
        ),
      );
      worker.on('error', (error) =>
        this.logger.error({ queue: consumer.queue.name, err: error.message }, 'worker error'),
      );
      this.workers.push(worker);
    }
  }

  /** Stops fetching new jobs and resolves once every in-flight job has finished. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.close()));
    this.workers.length = 0;
  }
}
