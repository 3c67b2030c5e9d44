import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CHARGES_QUEUE, jobId } from '@kessai/contracts';
import type { ChargeJobData } from './charge-consumers';

type ChargeJob = (typeof CHARGES_QUEUE.jobs)[number];

/** A job of the charges queue for one charge, with the queue's retry and retention options. */
export interface ChargeJobRequest {
  name: Exclude<ChargeJob, 'process_charges'>;
  chargeId: string;
  /** the outbox event behind it, when there is one */
  causeEventId: string | null;
  eventType: string;
  /** parts of the job id after the job name and charge id: one job per charge and parts */
  idParts: string[];
  delayMs?: number;
}

/** charge-service's own additions to the charges queue (the sweeper's, and batch charges retried alone). */
@Injectable()
export class ChargeJobs implements OnModuleDestroy {
  readonly #queue: Queue;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.#queue = new Queue(CHARGES_QUEUE.name, {
      connection: { url: config.REDIS_URL, maxRetriesPerRequest: null },
      prefix: config.REDIS_PREFIX,
    });
  }

  /** Adds the jobs in one call; a job whose id exists already is left as it is (BullMQ). */
  async add(requests: readonly ChargeJobRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await this.#queue.addBulk(
      requests.map((request) => {
        const data: ChargeJobData = {
          aggregateId: request.chargeId,
          eventType: request.eventType,
          ...(request.causeEventId ? { eventId: request.causeEventId } : {}),
        };
        return {
          name: request.name,
          data,
          opts: {
            ...CHARGES_QUEUE.jobOptions,
            jobId: jobId(request.name, request.chargeId, ...request.idParts),
            ...(request.delayMs ? { delay: request.delayMs } : {}),
          },
        };
      }),
    );
  }

  async onModuleDestroy() {
    await this.#queue.close();
  }
}
