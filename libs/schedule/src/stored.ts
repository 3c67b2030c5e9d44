import { NAMED_PERIODS, parseCalendarPeriod, SUBSCRIPTION_PERIODS, type CalendarPeriod } from './period';
import { DEFAULT_RETRY_INTERVAL, type ScheduleInput, type SchedulePlan } from './schedule';

/**
 * A subscription as it is stored (the subscriptions row: the request's values, plans as the wire's
 * objects), for the engine that charges it. The gateway computes the first payment from the request
 * (scheduleInputOf); the engine computes every later one from the row, with the same engine and the
 * same creation instant, so both see one schedule.
 */
export interface StoredSchedule {
  scheduleCreatedAt: Date;
  period: string | null;
  cyclicalPeriod: string | null;
  zoneId: string;
  /** YYYY-MM-DD */
  startOn: string | null;
  preserveEndOfMonth: boolean;
  amount: bigint;
  initialAmount: bigint | null;
  installmentPlan: unknown;
  subscriptionPlan: unknown;
  retryInterval: string | null;
}

/** A stored schedule that does not parse: a row no gateway could have written. */
export class StoredScheduleError extends Error {}

export function storedScheduleInput(stored: StoredSchedule): ScheduleInput {
  return {
    createdAt: stored.scheduleCreatedAt,
    period: storedPeriod(stored),
    zoneId: stored.zoneId,
    startOn: stored.startOn,
    preserveEndOfMonth: stored.preserveEndOfMonth,
    amount: stored.amount,
    initialAmount: stored.initialAmount,
    plan: storedPlan(stored.installmentPlan, stored.subscriptionPlan),
  };
}

/** The interval between tries of a failed payment: the stored retry_interval, or one day. */
export function storedRetryInterval(stored: Pick<StoredSchedule, 'retryInterval'>): CalendarPeriod {
  if (stored.retryInterval === null) return DEFAULT_RETRY_INTERVAL;
  const parsed = parseCalendarPeriod(stored.retryInterval);
  if (!parsed) throw new StoredScheduleError(`retry_interval ${stored.retryInterval} does not parse`);
  return parsed;
}

function storedPeriod(stored: Pick<StoredSchedule, 'period' | 'cyclicalPeriod'>): CalendarPeriod {
  if (stored.cyclicalPeriod !== null) {
    const parsed = parseCalendarPeriod(stored.cyclicalPeriod);
    if (!parsed) throw new StoredScheduleError(`cyclical_period ${stored.cyclicalPeriod} does not parse`);
    return parsed;
  }
  const named = SUBSCRIPTION_PERIODS.find((name) => name === stored.period);
  if (!named) throw new StoredScheduleError(`period ${String(stored.period)} is not a period`);
  return NAMED_PERIODS[named];
}

type PlanObject = { plan_type?: unknown; fixed_cycles?: unknown; fixed_cycle_amount?: unknown };

const isPlanObject = (value: unknown): value is PlanObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function storedPlan(installmentPlan: unknown, subscriptionPlan: unknown): SchedulePlan {
  if (isPlanObject(installmentPlan)) {
    if (installmentPlan.plan_type === 'revolving') return { type: 'revolving' };
    return { type: 'installments', cycles: Number(installmentPlan.fixed_cycles) };
  }
  if (isPlanObject(subscriptionPlan)) {
    if (subscriptionPlan.plan_type === 'fixed_cycles')
      return { type: 'fixed_cycles', cycles: Number(subscriptionPlan.fixed_cycles) };
    const total = subscriptionPlan.fixed_cycle_amount;
    if (typeof total !== 'number' && typeof total !== 'string')
      throw new StoredScheduleError('subscription_plan has no fixed_cycle_amount');
    return { type: 'fixed_cycle_amount', total: BigInt(total) };
  }
  return { type: 'open_ended' };
}
