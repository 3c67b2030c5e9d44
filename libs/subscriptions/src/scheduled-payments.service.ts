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
  isFinalSubscriptionStatus,
  isUuid,
  NotFoundError,
  ValidationError,
  type PageRequest,
} from '@kessai/domain';
import { localDateOf, paymentDueAt } from '@kessai/schedule';
import { effectiveConfiguration } from '@kessai/store-configuration';
import type { Correlation } from '@kessai/observability';
import type { ScheduledPaymentChangesInput } from './subscription-inputs';
import { paymentInFlight, subscriptionRefusal } from './subscription-refusals';

/**
 * A subscription's scheduled payments (api-reference §5.3, the SDK's subscriptions.payments): list,
 * read, and a merchant's change of a pending payment's due date or amount, as the store's
 * subscription_configuration allows. `subscription` as SubscriptionsService.find read it; answers
 * are rows, which each front end presents (with the subscription's retry interval).
 */
@Injectable()
export class ScheduledPaymentsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly stores: StoresRepository,
    private readonly clocks: TestClocksRepository,
  ) {}

  /** A page of the subscription's payments, with the total count on a first page. */
  async list(subscription: SubscriptionWithNextPayment, page: PageRequest) {
    const rows = await this.subscriptions.listPayments(subscription.id, page);
    if (page.cursor !== null) return { rows, totalHits: null };
    return { rows, totalHits: await this.subscriptions.countPayments(subscription.id) };
  }

  /** A payment of the subscription; a malformed id is the same 404 as an unknown one. */
  find(scope: AccessScope, subscription: SubscriptionWithNextPayment, id: string): Promise<ScheduledPayment> {
    return this.findPayment(scope, subscription.id, id);
  }

  /**
   * PATCH …/payments/{id}: `due_date` when the store's subscription_configuration
   * allow_merchant_due_date_patch says so (due 09:00 local on the new date, not before today in the
   * payment's zone), `amount` when allow_merchant_amount_patch says so; a pending payment only.
   */
  async update(
    scope: AccessScope,
    subscription: SubscriptionWithNextPayment,
    payment: ScheduledPayment,
    request: ScheduledPaymentChangesInput,
    correlation: Correlation,
  ): Promise<ScheduledPayment> {
    const id = payment.id;
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
    if (changed.length === 0) return payment;

    const result = await this.subscriptions.updatePayment(
      scope,
      subscription.id,
      id,
      changes,
      changed,
      correlation.correlationId,
    );
    if (!result.moved) {
      if (result.paymentStatus === null) throw new NotFoundError('scheduled_payment');
      if (result.paymentStatus === 'processing') throw paymentInFlight();
      if (isFinalSubscriptionStatus(subscription.status)) throw subscriptionRefusal(subscription.status);
      throw new BusinessRuleError('INVALID_CHARGE_STATUS', [{ field: 'status', reason: 'NOT_ALLOWED' }]);
    }
    return this.findPayment(scope, subscription.id, id);
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
