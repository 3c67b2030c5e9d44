/**
 * Queue and job names shared by producers and workers. Job ids built from these must not contain
 * ':' (BullMQ reserves it); see jobId().
 */
export interface QueueDefinition {
  readonly name: string;
  readonly jobs: readonly string[];
  /** how every job of the queue is retried and kept, whoever adds it (relay, sweeper) */
  readonly jobOptions?: QueueJobOptions;
}

/** The subset of BullMQ's job options a queue definition fixes (structurally BullMQ's JobsOptions). */
export interface QueueJobOptions {
  /** total tries, the first included */
  readonly attempts?: number;
  readonly backoff?: {
    readonly type: 'exponential' | 'fixed';
    readonly delay: number;
    readonly jitter?: number;
  };
  /** finished jobs kept at most this long (seconds) and/or this many */
  readonly removeOnComplete?: KeepJobs;
  readonly removeOnFail?: KeepJobs;
}

type KeepJobs = { readonly age: number; readonly count?: number } | { readonly count: number };

/** Deterministic job id for one business operation, e.g. jobId('process-charge', chargeId). */
export function jobId(job: string, ...parts: string[]): string {
  const id = [job, ...parts].join('.');
  if (id.includes(':')) throw new Error(`job id must not contain ':' (${id})`);
  return id;
}
