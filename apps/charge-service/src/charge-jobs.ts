import { Injectable } from '@nestjs/common';
import { CHARGES_QUEUE, jobId, type ChargeJobData, type JobName } from '@kessai/contracts';
import { ContractQueue, InjectContractQueue } from '@kessai/runtime';

/** A job of the charges queue for one charge. */
export interface ChargeJobRequest {
  name: Exclude<JobName<typeof CHARGES_QUEUE>, 'process_charges'>;
  chargeId: string;
  /** the outbox event behind it, when there is one */
  causeEventId: string | null;
  eventType: string;
  /** parts of the job id after the job name and charge id: one job per charge and parts */
  idParts: string[];
  delayMs?: number;
  /** the request the charge comes from, carried into the job's log lines */
  correlationId?: string | null;
}

/**
 * charge-service's own additions to the charges queue (the sweeper's, and batch charges retried
 * alone). The queue is registered with the contract's job options (retries, retention) as defaults.
 */
@Injectable()
export class ChargeJobs {
  constructor(
    @InjectContractQueue(CHARGES_QUEUE) private readonly queue: ContractQueue<typeof CHARGES_QUEUE>,
  ) {}

  /** Adds the jobs in one call; a job whose id exists already is left as it is (BullMQ). */
  async add(requests: readonly ChargeJobRequest[]): Promise<void> {
    if (requests.length === 0) return;
    await this.queue.addBulk(
      requests.map((request) => {
        const data: ChargeJobData = {
          aggregateId: request.chargeId,
          eventType: request.eventType,
          ...(request.causeEventId ? { eventId: request.causeEventId } : {}),
          ...(request.correlationId ? { correlationId: request.correlationId } : {}),
        };
        return {
          name: request.name,
          data,
          opts: {
            jobId: jobId(request.name, request.chargeId, ...request.idParts),
            ...(request.delayMs ? { delay: request.delayMs } : {}),
          },
        };
      }),
    );
  }
}
