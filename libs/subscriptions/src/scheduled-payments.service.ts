import { Injectable } from '@nestjs/common';
import {
  StoresRepository,
  SubscriptionsRepository,
  TestClocksRepository,
  type AccessScope,
  type ScheduledPayment,
  type ScheduledPaymentChanges,
  type SubscriptionWithNextPayment,
} from '@kessai/db';
import {
  BusinessRuleError,
  isUuid,
  NotFoundError,
  parsePageRequest,
  toPage,
  ValidationError,
} from '@kessai/domain';
import { ChargesService } from '@kessai/payments';
import { presentScheduledPayment } from '@kessai/presenters';
import { localDateOf, paymentDueAt } from '@kessai/schedule';
import { effectiveConfiguration } from '@kessai/store-configuration';
import type { Correlation } from '@kessai/observability';
import { paymentInFlight, subscriptionRefusal } from '@kessai/subscriptions';
import { subscriptionScopeOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { listChargesFor } from '../charges/charge-list';
import { parseInput } from '../http/validation';
import { updateScheduledPaymentSchema } from './subscription.schemas';

/**
 * A subscription's scheduled payments (api-reference §5.3, the SDK's subscriptions.payments): list,
 * read, their charges, and a merchant's change of a pending payment's due date or amount, as the
 * store's subscription_configuration allows.
 */
@Injectable()
export class ScheduledPaymentsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly charges: ChargesService,
    private readonly stores: StoresRepository,
    private readonly clocks: TestClocksRepository,
  ) {}

  async list(principal: Principal, storeId: string, subscriptionId: string, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const subscription = await this.findSubscription(principal, storeId, subscriptionId);
    const rows = await this.subscriptions.listPayments(subscription.id, page);
    const present = (payment: ScheduledPayment) =>
      presentScheduledPayment(payment, subscription.retryInterval);
    const result = toPage(rows, page.limit, present);
    if (page.cursor !== null) return result;
    return { ...result, total_hits: await this.subscriptions.countPayments(subscription.id) };
  }

  async get(principal: Principal, storeId: string, subscriptionId: string, id: string) {
    const subscription = await this.findSubscription(principal, storeId, subscriptionId);
    const payment = await this.findPayment(subscriptionScopeOf(principal, storeId), subscription.id, id);
    return presentScheduledPayment(payment, subscription.retryInterval);
  }

  /** GET …/payments/{id}/charges: the charges made for the payment (one per try). */
  async listCharges(
    principal: Principal,
    storeId: string,
    subscriptionId: string,
    id: string,
    query: Record<string, unknown>,
  ) {
    const subscription = await this.findSubscription(principal, storeId, subscriptionId);
    const payment = await this.findPayment(subscriptionScopeOf(principal, storeId), subscription.id, id);
    const merchant = { merchantId: principal.merchantId, storeId: null };
    return listChargesFor(this.charges, merchant, null, query, { scheduledPaymentId: payment.id });
  }

  /**
   * PATCH …/payments/{id}: `due_date` when the store's subscription_configuration
   * allow_merchant_due_date_patch says so (due 09:00 local on the new date, not before today in the
   * payment's zone), `amount` when allow_merchant_amount_patch says so; a pending payment only.
   */
  async update(
    principal: Principal,
    storeId: string,
    subscriptionId: string,
    id: string,
    body: unknown,
    context: Correlation,
  ) {
    const scope = subscriptionScopeOf(principal, storeId);
    const subscription = await this.findSubscription(principal, storeId, subscriptionId);
    const payment = await this.findPayment(scope, subscription.id, id);
    const request = parseInput(updateScheduledPaymentSchema, body);
    const allowed = await this.patchPermissions(subscription);

    const changes: ScheduledPaymentChanges = {};
    const changed: string[] = [];
    if (request.due_date !== undefined && request.due_date !== localDateOf(payment.dueAt, payment.zoneId)) {
      if (!allowed.dueDate) throw ValidationError.field('due_date', 'FORBIDDEN_PARAMETER');
      const at = paymentDueAt(request.due_date, payment.zoneId);
      if (at === null) throw ValidationError.field('due_date', 'INVALID_FORMAT_DATE');
      const today = localDateOf(await this.now(subscription), payment.zoneId);
      if (request.due_date < today) throw ValidationError.field('due_date', 'NOT_WITHIN_BOUNDS');
      changes.due = { date: request.due_date, at };
      changed.push('next_payment.due_date');
    }
    if (request.amount !== undefined && BigInt(request.amount) !== payment.amount) {
      if (!allowed.amount) throw ValidationError.field('amount', 'FORBIDDEN_PARAMETER');
      changes.amount = BigInt(request.amount);
      changed.push('next_payment.amount');
    }
    if (changed.length === 0) return presentScheduledPayment(payment, subscription.retryInterval);

    const result = await this.subscriptions.updatePayment(
      scope,
      subscription.id,
      id,
      changes,
      changed,
      context.correlationId,
    );
    if (!result.moved) {
      if (result.paymentStatus === null) throw new NotFoundError('scheduled_payment');
      if (result.paymentStatus === 'processing') throw paymentInFlight();
      if (subscription.status === 'canceled' || subscription.status === 'completed')
        throw subscriptionRefusal(subscription.status);
      throw new BusinessRuleError('INVALID_CHARGE_STATUS', [{ field: 'status', reason: 'NOT_ALLOWED' }]);
    }
    return presentScheduledPayment(
      await this.findPayment(scope, subscription.id, id),
      subscription.retryInterval,
    );
  }

  private async findSubscription(
    principal: Principal,
    storeId: string,
    id: string,
  ): Promise<SubscriptionWithNextPayment> {
    const scope = subscriptionScopeOf(principal, storeId, id);
    const subscription = await this.subscriptions.findInScope(scope, id);
    if (!subscription) throw new NotFoundError('subscription');
    return subscription;
  }

  private async findPayment(
    scope: AccessScope,
    subscriptionId: string,
    id: string,
  ): Promise<ScheduledPayment> {
    const payment = isUuid(id) ? await this.subscriptions.findPayment(scope, subscriptionId, id) : null;
    if (!payment) throw new NotFoundError('scheduled_payment');
    return payment;
  }

  private async patchPermissions(subscription: SubscriptionWithNextPayment) {
    const store = await this.stores.findVisibleWithMerchant(
      { merchantId: subscription.merchantId, storeId: null },
      subscription.storeId,
    );
    const configuration = effectiveConfiguration(
      store?.merchant.configuration,
      store?.configuration,
    ).subscription_configuration;
    return {
      dueDate: configuration.allow_merchant_due_date_patch,
      amount: configuration.allow_merchant_amount_patch,
    };
  }

  /** Now for the subscription: its test clock's time, or the wall clock. */
  private async now(subscription: SubscriptionWithNextPayment): Promise<Date> {
    if (subscription.testClockId === null) return new Date();
    const clock = await this.clocks.findActive(subscription.merchantId, subscription.testClockId);
    return clock?.frozenTime ?? new Date();
  }
}
