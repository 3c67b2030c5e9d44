import { Module } from '@nestjs/common';
import { PaymentSettlementService } from './payment-settlement.service';
import { SubscriptionMetrics } from './subscription-metrics';
import { SubscriptionScheduler } from './subscription-scheduler';
import { SubscriptionSweeper } from './subscription-sweeper';
import { SubscriptionsProcessor } from './subscriptions.processor';

/**
 * The subscription engine: the scheduler, the subscriptions queue's processor (settlement) and
 * the sweeper. The config, Postgres (SubscriptionEngineRepository), Redis, BullMQ and the logger
 * come from the worker service's root.
 */
@Module({
  providers: [
    SubscriptionMetrics,
    PaymentSettlementService,
    SubscriptionsProcessor,
    SubscriptionScheduler,
    SubscriptionSweeper,
  ],
})
export class SubscriptionServiceModule {}
