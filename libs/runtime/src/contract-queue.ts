import { Inject, type Provider } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import type { BulkJobOptions, Job, JobsOptions, Queue } from 'bullmq';
import type { JobData, JobName, QueueDefinition } from '@kessai/contracts';

/** One job for ContractQueue.addBulk: its name and payload checked against the queue's contract. */
export type ContractJob<Q extends QueueDefinition> = {
  [N in JobName<Q>]: { name: N; data: JobData<Q, N>; opts?: BulkJobOptions };
}[JobName<Q>];

/**
 * A BullMQ queue as a producer sees it through its contract (libs/contracts): a job's name must be
 * one of the queue's jobs and its payload that job's schema input, or the producer does not compile.
 * The consumer validates the payload again on receipt (QueueProcessor, parseJob). The jobs get the
 * queue's default options (the contract's, registered by bullModules) merged under `opts`.
 */
export class ContractQueue<Q extends QueueDefinition> {
  constructor(
    readonly contract: Q,
    private readonly queue: Queue,
  ) {}

  get name(): string {
    return this.queue.name;
  }

  add<N extends JobName<Q>>(name: N, data: JobData<Q, N>, opts?: JobsOptions): Promise<Job> {
    return this.queue.add(name, data, opts);
  }

  /** Adds the jobs in one call; a job whose id exists already is left as it is (BullMQ). */
  addBulk(jobs: readonly ContractJob<Q>[]): Promise<Job[]> {
    if (jobs.length === 0) return Promise.resolve([]);
    return this.queue.addBulk(jobs.map(({ name, data, opts }) => ({ name, data: data as unknown, opts })));
  }
}

/** The Nest token of a queue's ContractQueue. */
export function contractQueueToken(queue: Pick<QueueDefinition, 'name'>): string {
  return `ContractQueue:${queue.name}`;
}

/** Injects the ContractQueue of `queue` (registered for every queue of libs/contracts by bullModules). */
export function InjectContractQueue(queue: Pick<QueueDefinition, 'name'>): ParameterDecorator {
  return Inject(contractQueueToken(queue));
}

/** The ContractQueue provider of each queue, over the BullMQ queue @nestjs/bullmq registered for it. */
export function contractQueueProviders(queues: readonly QueueDefinition[]): Provider[] {
  return queues.map((queue) => ({
    provide: contractQueueToken(queue),
    inject: [getQueueToken(queue.name)],
    useFactory: (bullQueue: Queue) => new ContractQueue(queue, bullQueue),
  }));
}
