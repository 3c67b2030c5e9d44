import type { Queue } from 'bullmq';
import { eventually, type EventuallyOptions } from './eventually';

const FINISHED = new Set(['completed', 'failed']);

/**
 * Resolves once each job is finished for good, completed or failed (one waiting for a retry is not),
 * with their states: what a test awaits instead of sleeping while a worker runs them. A job that is
 * not in the queue (not added yet, or removed) is awaited like an unfinished one.
 */
export async function waitForJobs(queue: Queue, jobIds: string[], options: EventuallyOptions = {}) {
  let states: string[] = [];
  try {
    await eventually(
      async () => {
        states = await Promise.all(jobIds.map((id) => queue.getJobState(id)));
        return states.every((state) => FINISHED.has(state));
      },
      { what: `jobs of ${queue.name} to finish`, ...options },
    );
  } catch (error) {
    const seen = jobIds.map((id, i) => `${id}: ${states[i] ?? 'not read'}`).join(', ');
    throw new Error(`${error instanceof Error ? error.message : String(error)} (${seen})`);
  }
  return states;
}
