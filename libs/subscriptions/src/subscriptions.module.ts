import { Module } from '@nestjs/common';
import { ScheduledPaymentsService } from './scheduled-payments.service';
import { SubscriptionsService } from './subscriptions.service';

const services = [SubscriptionsService, ScheduledPaymentsService];

/**
 * The subscription use cases every front end shares (docs/decisions/0026-use-cases-in-libs.md):
 * simulate a plan, create, read, list, change, cancel, suspend, unsuspend; a scheduled payment's
 * reads and change. Needs the (global) DbModule.
 */
@Module({ providers: services, exports: services })
export class SubscriptionsModule {}
