import type { ScheduledPayment } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import {
  DEFAULT_RETRY_INTERVAL,
  formatCalendarPeriod,
  type CalendarPeriod,
  type PlannedPayment,
} from '@kessai/schedule';
import { optionalField } from './optional-field';

/** A stored calendar date (Prisma reads a `date` column as UTC midnight) as YYYY-MM-DD. */
export function calendarDateOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * One payment of a simulated plan: the SDK's SimulationInstallmentPayment (`due_date`, `zone_id`,
 * `amount`, `currency`, `is_paid`, `is_last_payment`) with UnivaPay's `amount_formatted` and
 * `retry_interval`, and Kessai's `due_at`. `due_date` is the local date in `zone_id`, as UnivaPay
 * writes a scheduled payment's; `due_at` is the exact instant the engine will charge it.
 */
export function presentPlannedPayment(
  payment: PlannedPayment,
  currency: string,
  retryInterval: CalendarPeriod,
) {
  return {
    due_date: payment.dueDate,
    due_at: payment.dueAt.toISOString(),
    zone_id: payment.zoneId,
    amount: Number(payment.amount),
    amount_formatted: formatAmount(payment.amount, currency),
    currency,
    is_paid: false,
    is_last_payment: payment.isLastPayment,
    retry_interval: formatCalendarPeriod(retryInterval),
  };
}

/**
 * The ScheduledPayment resource (api-reference §5.3): one stored payment of a subscription.
 * `due_date` is the local date in `zone_id`; `due_at` (Kessai's) the instant it falls due.
 * `retry_date` is when a failed payment is tried again (while it is pending after a try);
 * `retry_interval` is the subscription's (one day unless it set one).
 */
export function presentScheduledPayment(payment: ScheduledPayment, retryInterval: string | null) {
  const amount = Number(payment.amount);
  const retrying = payment.status === 'pending' && payment.attempts > 0 && payment.nextTryAt !== null;
  return {
    id: payment.id,
    due_date: calendarDateOf(payment.dueDate),
    due_at: payment.dueAt.toISOString(),
    zone_id: payment.zoneId,
    amount,
    amount_formatted: formatAmount(amount, payment.currency),
    currency: payment.currency,
    is_paid: payment.status === 'paid',
    is_last_payment: payment.isLastPayment,
    created_on: payment.createdOn.toISOString(),
    updated_on: payment.updatedOn.toISOString(),
    ...optionalField('successful_payment_date', payment.successfulPaymentDate?.toISOString()),
    ...optionalField('terminate_with_status', payment.terminateWithStatus),
    ...optionalField('retry_date', retrying ? payment.nextTryAt?.toISOString() : null),
    retry_interval: retryInterval ?? formatCalendarPeriod(DEFAULT_RETRY_INTERVAL),
  };
}
