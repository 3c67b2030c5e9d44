import {
  DEFAULT_RETRY_INTERVAL,
  DEFAULT_ZONE_ID,
  NAMED_PERIODS,
  type CalendarPeriod,
  type ScheduleInput,
  type SchedulePlan,
} from '@kessai/schedule';
import type { ScheduleFieldsInput } from './subscription-inputs';

/** The schedule fields of a parsed subscription request (simulate_plan's; POST /subscriptions' later). */
type ScheduleRequest = ScheduleFieldsInput;

/**
 * The schedule engine's input for a request: the one translation from the wire, so that a
 * simulation and the subscription it simulates are computed from the same values (defaults included:
 * Asia/Tokyo, no end-of-month following, open-ended).
 */
export function scheduleInputOf(request: ScheduleRequest, createdAt: Date): ScheduleInput {
  const settings = request.schedule_settings;
  return {
    createdAt,
    period: periodOf(request),
    zoneId: settings?.zone_id ?? DEFAULT_ZONE_ID,
    startOn: settings?.start_on ?? null,
    preserveEndOfMonth: settings?.preserve_end_of_month ?? false,
    amount: BigInt(request.amount),
    initialAmount: request.initial_amount == null ? null : BigInt(request.initial_amount),
    plan: planOf(request),
  };
}

/** The interval between tries of a failed payment: schedule_settings.retry_interval, or one day. */
export function retryIntervalOf(request: ScheduleRequest): CalendarPeriod {
  return request.schedule_settings?.retry_interval ?? DEFAULT_RETRY_INTERVAL;
}

function periodOf(request: ScheduleRequest): CalendarPeriod {
  if (request.cyclical_period != null) return request.cyclical_period;
  // the schema requires one of the two
  if (request.period == null) throw new Error('a parsed subscription request names its period');
  return NAMED_PERIODS[request.period];
}

function planOf(request: ScheduleRequest): SchedulePlan {
  const installment = request.installment_plan;
  if (installment != null) {
    return installment.plan_type === 'revolving'
      ? { type: 'revolving' }
      : { type: 'installments', cycles: installment.fixed_cycles ?? 0 };
  }
  const plan = request.subscription_plan;
  if (plan == null) return { type: 'open_ended' };
  return plan.plan_type === 'fixed_cycles'
    ? { type: 'fixed_cycles', cycles: plan.fixed_cycles ?? 0 }
    : { type: 'fixed_cycle_amount', total: BigInt(plan.fixed_cycle_amount ?? 0) };
}
