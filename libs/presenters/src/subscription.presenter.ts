import type { SubscriptionListItem, SubscriptionWithNextPayment } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { DEFAULT_RETRY_INTERVAL, formatCalendarPeriod, scheduleStartsAt } from '@kessai/schedule';
import { presentThreeDs } from './charge.presenter';
import { optionalField } from './optional-field';
import { calendarDateOf, presentScheduledPayment } from './scheduled-payment.presenter';

const amountOrNull = (amount: bigint | null) => (amount === null ? null : Number(amount));

/**
 * The Subscription resource (api-reference §5.3), as GET answers it and as the subscription_*
 * webhooks carry it, with every key univapay-node's SubscriptionItem requires (decision 0044).
 * Amounts in minor units, `*_formatted` in major; `amount_left` and `payments_left` are 0 for an
 * open-ended subscription (nothing counted down; its plan says it is open-ended), `cycles_left`
 * is left out there. `period` or `cyclical_period`, whichever the subscription was created with.
 * `next_payment` is the open scheduled payment (pending, or its charge in flight), or, when there is
 * none (ended, canceled, unconfirmed), the last one it had; `next_payment_date` only with an open
 * one. `schedule_settings.start_on` is the instant the schedule starts, ISO 8601 with the zone's offset
 * (the creation's local day when none was given; scheduleStartsAt), `retry_interval`
 * the one applied. `descriptor` is `""` without one. `test_clock_id` (Kessai's) only on a subscription that
 * lives on a test clock.
 */
export function presentSubscription(subscription: SubscriptionWithNextPayment) {
  const { currency, nextPayment, latestPayment } = subscription;
  const amount = Number(subscription.amount);
  const amountLeft = Number(subscription.amountLeft ?? 0n);
  const initialAmount = amountOrNull(subscription.initialAmount);
  return {
    id: subscription.id,
    store_id: subscription.storeId,
    transaction_token_id: subscription.transactionTokenId,
    mode: subscription.mode,
    status: subscription.status,
    amount,
    amount_formatted: formatAmount(amount, currency),
    currency,
    amount_left: amountLeft,
    amount_left_formatted: formatAmount(amountLeft, currency),
    payments_left: subscription.paymentsLeft ?? 0,
    ...optionalField('cycles_left', subscription.cyclesLeft),
    initial_amount: initialAmount,
    ...optionalField(
      'initial_amount_formatted',
      initialAmount === null ? null : formatAmount(initialAmount, currency),
    ),
    ...optionalField('period', subscription.period),
    ...optionalField('cyclical_period', subscription.cyclicalPeriod),
    ...optionalField('installment_plan', subscription.installmentPlan),
    ...optionalField('subscription_plan', subscription.subscriptionPlan),
    schedule_settings: {
      // the instant the schedule starts (none given: its creation's local day), never left out: the
      // SDK's pollSubscriptionWithFirstCharge reads `new Date(start_on) <= now` to wait for a first charge
      start_on: scheduleStartsAt(
        subscription.startOn === null ? null : calendarDateOf(subscription.startOn),
        subscription.scheduleCreatedAt,
        subscription.zoneId,
      ),
      zone_id: subscription.zoneId,
      preserve_end_of_month: subscription.preserveEndOfMonth,
      retry_interval: subscription.retryInterval ?? formatCalendarPeriod(DEFAULT_RETRY_INTERVAL),
      termination_mode: subscription.terminationMode,
    },
    next_payment:
      latestPayment === null ? null : presentScheduledPayment(latestPayment, subscription.retryInterval),
    ...optionalField('next_payment_date', nextPayment === null ? null : calendarDateOf(nextPayment.dueDate)),
    descriptor: subscription.descriptor ?? '',
    only_direct_currency: subscription.onlyDirectCurrency,
    ...optionalField('three_ds', presentThreeDs(subscription.threeDs)),
    first_charge_authorization_only: subscription.firstChargeAuthorizationOnly,
    ...optionalField('first_charge_capture_after', subscription.firstChargeCaptureAfter),
    metadata: subscription.metadata ?? {},
    ...optionalField('test_clock_id', subscription.testClockId),
    created_on: subscription.createdOn.toISOString(),
    updated_on: subscription.updatedOn.toISOString(),
  };
}

/** A subscription in a list (api-reference §4): the resource with its merchant's and store's names. */
export function presentSubscriptionListItem(subscription: SubscriptionListItem) {
  return {
    ...presentSubscription(subscription),
    merchant_name: subscription.store.merchant.name,
    store_name: subscription.store.name,
  };
}
