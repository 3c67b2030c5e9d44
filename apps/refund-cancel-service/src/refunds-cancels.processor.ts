import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import type { Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { REFUNDS_CANCELS_QUEUE, type QueueJob } from '@kessai/contracts';
import { QueueProcessor, unhandledJob } from '@kessai/runtime';
import type { Attempt } from './attempts';
import { CancelProcessingService } from './cancel-processing.service';
import { RefundProcessingService } from './refund-processing.service';

/** refund-cancel-service's worker of the refunds-cancels queue: each job to its use case. */
@Processor(REFUNDS_CANCELS_QUEUE.name)
export class RefundsCancelsProcessor extends QueueProcessor<typeof REFUNDS_CANCELS_QUEUE> {
  constructor(
    private readonly refunds: RefundProcessingService,
    private readonly cancels: CancelProcessingService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(REFUNDS_CANCELS_QUEUE, {
      concurrency: config.REFUND_CANCEL_WORKER_CONCURRENCY,
      // a killed worker's jobs are handed to another once this lock expires (plus one stalled check)
      lockDuration: config.REFUND_CANCEL_JOB_LOCK_MS,
    });
  }

  protected handle(job: QueueJob<typeof REFUNDS_CANCELS_QUEUE>, raw: Job): Promise<void> {
    // BullMQ counts the attempts that failed before this one
    const attempt: Attempt = { last: raw.attemptsMade + 1 >= (raw.opts.attempts ?? 1) };
    switch (job.name) {
      case 'process_refunds':
        return this.refunds.processRefunds(
          job.data.events.map((event) => ({
            refundId: event.aggregateId,
            causeEventId: event.eventId,
            correlationId: event.correlationId,
          })),
        );
      case 'process_refund':
        return this.refunds.processRefund(job.data.aggregateId, job.data.eventId ?? null, attempt);
      case 'process_cancel':
        return this.cancels.processCancel(job.data.aggregateId, job.data.eventId ?? null, attempt);
      default:
        return unhandledJob(job);
    }
  }
}
