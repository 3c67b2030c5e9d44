import { Module } from '@nestjs/common';
import { paymentProcessorsProvider } from '@kessai/processor';
import { CancelProcessingService } from './cancel-processing.service';
import { OperationMetrics } from './operation-metrics';
import { RefundCancelSweeper } from './refund-cancel-sweeper';
import { RefundProcessingService } from './refund-processing.service';
import { RefundsCancelsProcessor } from './refunds-cancels.processor';

/**
 * Refunds and cancels: the refunds-cancels queue's processor, the processors (payment), the
 * sweeper. The config, Postgres (RefundsRepository, CancelsRepository), Redis, BullMQ and the
 * logger come from the worker service's root.
 */
@Module({
  providers: [
    paymentProcessorsProvider,
    OperationMetrics,
    RefundProcessingService,
    CancelProcessingService,
    RefundsCancelsProcessor,
    RefundCancelSweeper,
  ],
})
export class RefundCancelServiceModule {}
