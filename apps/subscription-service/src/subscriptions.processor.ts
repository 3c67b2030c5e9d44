import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { SUBSCRIPTIONS_QUEUE, type QueueJob } from '@kessai/contracts';
import { QueueProcessor, unhandledJob } from '@kessai/runtime';
import { PaymentSettlementService } from './payment-settlement.service';

/** subscription-service's worker of the subscriptions queue. */
@Processor(SUBSCRIPTIONS_QUEUE.name)
export class SubscriptionsProcessor extends QueueProcessor<typeof SUBSCRIPTIONS_QUEUE> {
  constructor(
    private readonly settlement: PaymentSettlementService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(SUBSCRIPTIONS_QUEUE, {
      concurrency: config.SUBSCRIPTION_WORKER_CONCURRENCY,
      lockDuration: config.SUBSCRIPTION_JOB_LOCK_MS,
    });
  }

  protected async handle(job: QueueJob<typeof SUBSCRIPTIONS_QUEUE>): Promise<void> {
    switch (job.name) {
      case 'settle_payments':
        await this.settlement.settle(job.data.events.map((event) => event.aggregateId));
        return;
      default:
        // one job name: TypeScript narrows the name, not the job, so check the name exhaustively
        job.name satisfies never;
        return unhandledJob(job as never);
    }
  }
}
