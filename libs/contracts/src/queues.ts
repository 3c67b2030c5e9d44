/**
 * Queue and job names shared by producers and workers. Job ids built from these must not contain
 * ':' (BullMQ reserves it); see jobId().
 */
export interface QueueDefinition {
  readonly name: string;
  readonly jobs: readonly string[];
}

/** Deterministic job id for one business operation, e.g. jobId('process-charge', chargeId). */
export function jobId(job: string, ...parts: string[]): string {
  const id = [job, ...parts].join('.');
  if (id.includes(':')) throw new Error(`job id must not contain ':' (${id})`);
  return id;
}
