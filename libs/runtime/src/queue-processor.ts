import { WorkerHost } from '@nestjs/bullmq';
import { DelayedError, UnrecoverableError, type Job, type WorkerOptions } from 'bullmq';
import { InvalidJobError, parseJob, type QueueDefinition, type QueueJob } from '@kessai/contracts';
import { withCorrelation } from '@kessai/observability';

/** What a processor may tune of its BullMQ worker from the config. */
export type ProcessorWorkerOptions = Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval'>;

/**
 * The base of every `…Processor`: the worker host of one queue of libs/contracts. A received job is
 * validated against the queue's contract first; one that does not match (an unknown name, a
 * malformed payload) fails at once and for good (UnrecoverableError): retrying cannot fix it. A
 * valid one goes to `handle`, which subclasses write as an exhaustive switch on `job.name`, so that
 * a job without a handler (or a handler without a job) fails to compile.
 */
export abstract class QueueProcessor<Q extends QueueDefinition> extends WorkerHost {
  /**
   * `queue`: the queue of libs/contracts it consumes (the one its `@Processor` names);
   * `workerOptions`: its worker's options from the config (concurrency, lock duration), which
   * startWorkerService applies.
   */
  protected constructor(
    readonly queue: Q,
    readonly workerOptions: ProcessorWorkerOptions,
  ) {
    super();
  }

  /** `token`: the worker's lock on the job, for a handler that moves it itself (moveToDelayed) */
  protected abstract handle(job: QueueJob<Q>, raw: Job, token?: string): Promise<unknown>;

  async process(raw: Job, token?: string): Promise<unknown> {
    let job: QueueJob<Q>;
    try {
      job = parseJob(this.queue, raw.name, raw.data);
    } catch (error) {
      if (error instanceof InvalidJobError) throw new UnrecoverableError(error.message);
      throw error;
    }
    return withCorrelation(correlationOf(raw.data), () => this.handle(job, raw, token));
  }
}

/**
 * The correlation id a job's log lines carry: the one its event carries on (OutboxJobData), or, for
 * a batch of events, theirs when they all share one (a batch's handler may enter each event's own).
 */
function correlationOf(data: unknown): string | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  const { correlationId, events } = data as { correlationId?: unknown; events?: unknown };
  if (typeof correlationId === 'string') return correlationId;
  if (!Array.isArray(events) || events.length === 0) return undefined;
  const first: unknown = (events[0] as { correlationId?: unknown } | undefined)?.correlationId;
  if (typeof first !== 'string') return undefined;
  return events.every((event) => (event as { correlationId?: unknown }).correlationId === first)
    ? first
    : undefined;
}

/**
 * Puts the running job back as delayed until `at` and ends this run without counting it as a
 * failed attempt (BullMQ's DelayedError pattern): for work that must wait, not fail.
 */
export async function postponeJob(raw: Job, token: string | undefined, at: number): Promise<never> {
  await raw.moveToDelayed(at, token);
  throw new DelayedError();
}

/** For the `default` branch of a processor's switch: a job name the union does not have. */
export function unhandledJob(job: never): never {
  throw new UnrecoverableError(`no handler for job ${(job as { name?: string }).name}`);
}
