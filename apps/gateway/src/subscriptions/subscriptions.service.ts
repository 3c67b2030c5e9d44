import { Injectable } from '@nestjs/common';
import { StoresRepository } from '@kessai/db';
import { isUuid, NotFoundError } from '@kessai/domain';
import { computeSchedule } from '@kessai/schedule';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentPlannedPayment } from '@kessai/presenters';
import { retryIntervalOf, scheduleInputOf } from './subscription-schedule';
import { simulatePlanSchema } from './subscription.schemas';

/**
 * The subscription use cases of the gateway (api-reference §5.3, docs/subscriptions.md). Today:
 * simulate_plan, the schedule a subscription created now would follow, computed by the same engine
 * and from the same input translation as the subscription itself.
 */
@Injectable()
export class SubscriptionsService {
  constructor(private readonly stores: StoresRepository) {}

  /**
   * `storeId` from the path, or null for POST /subscriptions/simulate_plan, which needs no store.
   * Another merchant's store, or another store than a store token's, is 404 as an unknown one.
   */
  async simulatePlan(principal: Principal, storeId: string | null, body: unknown) {
    if (storeId !== null && (!isUuid(storeId) || !(await this.stores.findVisible(principal, storeId)))) {
      throw new NotFoundError('store');
    }
    const request = parseInput(simulatePlanSchema, body);
    const schedule = computeSchedule(scheduleInputOf(request, new Date()));
    const retryInterval = retryIntervalOf(request);
    return schedule.payments.map((payment) =>
      presentPlannedPayment(payment, request.currency, retryInterval),
    );
  }
}
