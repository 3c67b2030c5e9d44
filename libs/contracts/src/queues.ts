import type { z } from 'zod';

/**
 * A BullMQ queue as the whole system knows it: its name, the schema of each job's payload (the
 * producer types against it, the consumer validates it again on receipt), the options every job of
 * it gets whoever adds it, and the service that consumes it. A queue nobody consumes (`consumer:
 * null`) receives no job: the outbox relay skips its routes, so Redis never fills with work that
 * nothing takes.
 */
export interface QueueDefinition<Jobs extends JobSchemas = JobSchemas> {
  readonly name: string;
  readonly jobs: Jobs;
  readonly jobOptions: QueueJobOptions;
  /** the service whose processor consumes this queue; null while none does */
  readonly consumer: string | null;
}

export type JobSchemas = Readonly<Record<string, z.ZodTypeAny>>;

/** The subset of BullMQ's job options a queue definition fixes (structurally BullMQ's JobsOptions). */
export interface QueueJobOptions {
  /** total tries, the first included */
  readonly attempts: number;
  readonly backoff?: {
    readonly type: 'exponential' | 'fixed';
    readonly delay: number;
    readonly jitter?: number;
  };
  /** finished jobs kept at most this long (seconds) and/or this many: always bounded */
  readonly removeOnComplete: KeepJobs;
  readonly removeOnFail: KeepJobs;
}

type KeepJobs = { readonly age: number; readonly count?: number } | { readonly count: number };

/**
 * A relayed job's retries and retention: ten tries over about 17 minutes (1 s doubling, jittered),
 * finished jobs kept as `keepCompleted` says (long enough that a relay's republish is ignored),
 * failed ones a week (at most 100,000) for the operator.
 */
export function retriedJobOptions<const K extends KeepJobs>(keepCompleted: K) {
  return {
    attempts: 10,
    backoff: { type: 'exponential', delay: 1_000, jitter: 0.5 },
    removeOnComplete: keepCompleted,
    removeOnFail: { age: 7 * 86_400, count: 100_000 },
  } as const satisfies QueueJobOptions;
}

/** Finished jobs kept an hour, at most 100,000: a relay's republish within that window is ignored. */
export const KEEP_FINISHED_AN_HOUR = { age: 3_600, count: 100_000 } as const;

/** A queue definition, checked: at least one job, and bounded retention (QueueJobOptions). */
export function defineQueue<const D extends QueueDefinition>(definition: D): D {
  if (Object.keys(definition.jobs).length === 0) throw new Error(`queue ${definition.name} has no job`);
  return definition;
}

/** The names of a queue's jobs. */
export type JobName<Q extends QueueDefinition> = keyof Q['jobs'] & string;

/** One job of the queue as its consumer sees it, validated: a union discriminated by `name`. */
export type QueueJob<Q extends QueueDefinition> = {
  [N in JobName<Q>]: { name: N; data: z.output<Q['jobs'][N]> };
}[JobName<Q>];

/** The payload a producer passes for job `N` of the queue. */
export type JobData<Q extends QueueDefinition, N extends JobName<Q>> = z.input<Q['jobs'][N]>;

/** A job whose name or payload does not match its queue's contract: retrying cannot help. */
export class InvalidJobError extends Error {
  constructor(
    readonly queue: string,
    readonly job: string,
    reason: string,
  ) {
    super(`invalid ${queue}/${job} job: ${reason}`);
  }
}

/** Validates a received job against its queue's contract; InvalidJobError when it does not match. */
export function parseJob<Q extends QueueDefinition>(queue: Q, name: string, data: unknown): QueueJob<Q> {
  const schema = Object.hasOwn(queue.jobs, name) ? queue.jobs[name] : undefined;
  if (!schema) throw new InvalidJobError(queue.name, name, 'unknown job name');
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidJobError(queue.name, name, `${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return { name, data: parsed.data as unknown };
}

/** Deterministic job id for one business operation, e.g. jobId('process_charge', chargeId). */
export function jobId(job: string, ...parts: string[]): string {
  const id = [job, ...parts].join('.');
  if (id.includes(':')) throw new Error(`job id must not contain ':' (${id})`);
  return id;
}

/**
 * The time bucket a sweeper's job ids carry (a part of jobId): one per `windowSeconds`, so that
 * replicas and consecutive sweeps queue a lost job again at most once a window.
 */
export function sweepBucket(windowSeconds: number, now: number = Date.now()): string {
  return String(Math.floor(now / (windowSeconds * 1000)));
}
