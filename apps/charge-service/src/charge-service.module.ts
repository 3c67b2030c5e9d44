import { Module } from '@nestjs/common';
import { ChargeOutcomesRepository, TokenThreeDsRepository } from '@kessai/db';
import { vaultProviders } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { ChargeMetrics } from './charge-metrics';
import { ChargeProcessingService } from './charge-processing.service';
import { ChargeSweeper } from './charge-sweeper';
import { ChargesProcessor } from './charges.processor';
import { TokenAuthenticationService } from './token-authentication.service';
import { paymentProcessorsProvider } from '@kessai/processor';

/**
 * Charge processing: the charges queue's processor, the processors (payment), the sweeper. The
 * config, Postgres, Redis, BullMQ's queues and the logger come from the worker service's root.
 */
@Module({
  providers: [
    ...vaultProviders,
    ChargeOutcomesRepository,
    TokenThreeDsRepository,
    ChargeJobs,
    ChargeMetrics,
    paymentProcessorsProvider,
    ChargeProcessingService,
    TokenAuthenticationService,
    ChargeSweeper,
    ChargesProcessor,
  ],
  exports: [ChargeProcessingService, ChargeSweeper],
})
export class ChargeServiceModule {}
