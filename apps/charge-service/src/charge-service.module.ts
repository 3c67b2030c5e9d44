import { Module } from '@nestjs/common';
import { ChargeOutcomesRepository } from '@kessai/db';
import { vaultProviders } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { ChargeProcessingService } from './charge-processing.service';
import { ChargeSweeper } from './charge-sweeper';
import { ChargesProcessor } from './charges.processor';
import { PaymentProcessors } from './payment-processors';

/**
 * Charge processing: the charges queue's processor, the processors (payment), the sweeper. The
 * config, Postgres, Redis, BullMQ's queues and the logger come from the worker service's root.
 */
@Module({
  providers: [
    ...vaultProviders,
    ChargeOutcomesRepository,
    ChargeJobs,
    PaymentProcessors,
    ChargeProcessingService,
    ChargeSweeper,
    ChargesProcessor,
  ],
  exports: [ChargeProcessingService, ChargeSweeper],
})
export class ChargeServiceModule {}
