import { Counter, Histogram, type Registry } from 'prom-client';
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import type { QueueDefinition } from '@kessai/contracts';
import { JOB_DURATION_BUCKETS } from '@kessai/observability';

/**
 * Jobs of a worker service's queues, counted and timed from its BullMQ workers' events: completed,
 * failed (`final`: it will not run again, and stays in the failed set as a dead job), and how long
 * each attempt ran. Labels are the queue and the job name of the contract (`unknown` for a name
 * the contract lacks), so that a malformed job cannot add series.
 */
export class JobMetrics {
  readonly #completed: Counter<'queue' | 'job'>;
  readonly #failed: Counter<'queue' | 'job' | 'final'>;
  readonly #duration: Histogram<'queue' | 'job' | 'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#completed = new Counter({
      name: 'kessai_jobs_completed_total',
      help: 'Jobs completed, by queue and job name',
      labelNames: ['queue', 'job'],
      registers,
    });
    this.#failed = new Counter({
      name: 'kessai_jobs_failed_total',
      help: 'Job attempts that failed, by queue and job name; final="true" when the job will not be retried',
      labelNames: ['queue', 'job', 'final'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'kessai_job_duration_seconds',
      help: 'How long a job attempt ran, by queue, job name and outcome (completed, failed)',
      labelNames: ['queue', 'job', 'outcome'],
      buckets: JOB_DURATION_BUCKETS,
      registers,
    });
  }

  /** Counts the jobs `worker` (the worker of `queue`) finishes from now on. */
  watch(worker: Worker, queue: QueueDefinition): void {
    const jobName = (job: Job) => (Object.hasOwn(queue.jobs, job.name) ? job.name : 'unknown');
    const observe = (job: Job, outcome: 'completed' | 'failed') => {
      if (job.processedOn)
        this.#duration.observe(
          { queue: queue.name, job: jobName(job), outcome },
          Math.max(0, Date.now() - job.processedOn) / 1000,
        );
    };
    worker.on('completed', (job) => {
      this.#completed.inc({ queue: queue.name, job: jobName(job) });
      observe(job, 'completed');
    });
    worker.on('failed', (job, error) => {
      // undefined when the job was lost (its lock expired): nothing to attribute
      if (!job) return;
      const final =
        error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1)
          ? 'true'
          : 'false';
      this.#failed.inc({ queue: queue.name, job: jobName(job), final });
      observe(job, 'failed');
    });
  }
}
