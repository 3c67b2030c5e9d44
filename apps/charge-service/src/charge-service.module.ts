import { Module } from '@nestjs/common';
import { ChargeOutcomesRepository } from '@kessai/db';
import { RedisService } from '@kessai/redis';
import { vaultProviders } from '@kessai/vault';
import { ChargeJobs } from './charge-jobs';
import { chargeLoggerProvider } from './charge-logger';
import { ChargeProcessingService } from './charge-processing.service';
import { ChargeSweeper } from './charge-sweeper';
import { PaymentProcessors } from './payment-processors';

/**
 * Charge processing: the charges queue's handlers, the processors and the sweeper. RedisService is
 * registered here beside the vault providers (the pending CVVs live in Redis); DbModule is global.
 */
@Module({
  providers: [
    RedisService,
    ...vaultProviders,
    chargeLoggerProvider,
    ChargeOutcomesRepository,
    ChargeJobs,
    PaymentProcessors,
    ChargeProcessingService,
    ChargeSweeper,
  ],
  exports: [ChargeProcessingService, ChargeSweeper],
})
export class ChargeServiceModule {}
