import { formatAmount } from '@kessai/domain';
import { formatCalendarPeriod, type CalendarPeriod, type PlannedPayment } from '@kessai/schedule';

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
