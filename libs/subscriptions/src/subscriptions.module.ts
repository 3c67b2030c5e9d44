import { Module } from '@nestjs/common';
import { PaymentsModule } from '@kessai/payments';
import { CustomerSubscriptionsService } from './customer-subscriptions.service';
import { ScheduledPaymentsService } from './scheduled-payments.service';
import { SubscriptionBatchesService } from './subscription-batches.service';
import { SubscriptionsService } from './subscriptions.service';
import { TestClocksService } from './test-clocks.service';

const services = [
  SubscriptionsService,
  ScheduledPaymentsService,
  SubscriptionBatchesService,
  TestClocksService,
  CustomerSubscriptionsService,
];

/**
 * The subscription use cases every front end shares (docs/decisions/0026-use-cases-in-libs.md):
 * simulate a plan, create, read, list, change, cancel, suspend, unsuspend; a scheduled payment's
 * reads and change; batches (whose charge is libs/payments'); test clocks; what a customer's own
 * token may do to its subscriptions (decision 0058). Needs the (global)
 * DbModule.
 */
@Module({ imports: [PaymentsModule], providers: services, exports: services })
export class SubscriptionsModule {}
