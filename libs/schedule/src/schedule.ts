import { DateTime } from 'luxon';
import { ValidationError, type FieldError } from '@kessai/domain';
import { isMonthBased, NAMED_PERIODS, timesPeriod, type CalendarPeriod } from './period';

/**
 * The schedule engine: when each payment of a subscription falls due and for how much. Pure: the
 * creation instant comes in as an input, and the same input always gives the same schedule, so
 * `simulate_plan` answers exactly what the scheduler will charge. Every rule is in
 * docs/subscriptions.md; dates are computed with luxon in the subscription's IANA zone.
 */

export const DEFAULT_ZONE_ID = 'Asia/Tokyo';
export interface TimeOfDay {
  hour: number;
  minute: number;
}
/** Scheduled payments fall due at 09:00 local time (UnivaPay's start_on rule). */
export const DEFAULT_PAYMENT_TIME: TimeOfDay = { hour: 9, minute: 0 };
/** A failed payment is tried again the next day unless retry_interval says otherwise. */
export const DEFAULT_RETRY_INTERVAL: CalendarPeriod = NAMED_PERIODS.daily;
/** The most cycles a fixed plan may have (a plan of fixed_cycle_amount included). */
export const MAX_FIXED_CYCLES = 1000;
/** How many cycles of an open-ended subscription a schedule lists unless told. */
export const OPEN_ENDED_CYCLES_SHOWN = 12;
/** start_on may be at most this far after the creation date. */
export const MAX_START_ON_AHEAD: CalendarPeriod = NAMED_PERIODS.annually;

/** How much each payment is: api-reference §5.3's subscription_plan and installment_plan. */
export type SchedulePlan =
  /** no plan: `amount` every cycle until the subscription is canceled */
  | { type: 'open_ended' }
  /** subscription_plan fixed_cycles: `amount` for that many cycles */
  | { type: 'fixed_cycles'; cycles: number }
  /** subscription_plan fixed_cycle_amount: `amount` per cycle until the cycles have taken `total` */
  | { type: 'fixed_cycle_amount'; total: bigint }
  /** installment_plan fixed_cycles: `amount` is the whole price, split over that many cycles */
  | { type: 'installments'; cycles: number }
  /** installment_plan revolving: one payment of `amount`; the card issuer spreads it */
  | { type: 'revolving' };

export interface ScheduleInput {
  /** the creation instant: payments due "now" are due at it, and it fixes the zone's today */
  createdAt: Date;
  period: CalendarPeriod;
  /** an IANA zone (isValidZoneId) */
  zoneId: string;
  /** YYYY-MM-DD in zoneId; null: the creation date */
  startOn: string | null;
  preserveEndOfMonth: boolean;
  /** the local time of day of every scheduled (not immediate) payment; 09:00 unless told */
  paymentTime?: TimeOfDay;
  /** minor units; per cycle, or the whole price of installments */
  amount: bigint;
  /** minor units: the first payment's amount (docs/subscriptions.md, "Amounts") */
  initialAmount: bigint | null;
  plan: SchedulePlan;
}

export interface PlannedPayment {
  /** 1-based position in the schedule */
  sequence: number;
  /** the cycle it pays (1-based), or null for an initial payment taken before the cycles start */
  cycle: number | null;
  /** the instant it falls due */
  dueAt: Date;
  /** the local date it falls due in zoneId, YYYY-MM-DD */
  dueDate: string;
  zoneId: string;
  /** minor units */
  amount: bigint;
  /** whether it is made at creation rather than at the payment time of a date */
  immediate: boolean;
  isLastPayment: boolean;
}

export interface Schedule {
  /** the zone as IANA names it (`asia/tokyo` → `Asia/Tokyo`) */
  zoneId: string;
  /** false for an open-ended subscription: `payments` holds its first cycles only */
  finite: boolean;
  payments: PlannedPayment[];
}

/** Whether the runtime's time zone database knows the zone (IANA names, case-insensitive). */
export function isValidZoneId(zoneId: string): boolean {
  return canonicalZoneId(zoneId) !== null;
}

/** The zone's IANA spelling, or null for an unknown zone. Fixed offsets ("+09:00") are not zones. */
export function canonicalZoneId(zoneId: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zoneId)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zoneId }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * The schedule of a subscription: every payment of a finite plan, or the first `openEndedCycles`
 * cycles of an open-ended one (after the initial payment, when that comes first). Throws a
 * ValidationError naming the API's fields when the input breaks a rule of docs/subscriptions.md.
 */
export function computeSchedule(input: ScheduleInput, options: { openEndedCycles?: number } = {}): Schedule {
  const zoneId = canonicalZoneId(input.zoneId);
  if (zoneId === null) throw ValidationError.field('schedule_settings.zone_id', 'INVALID_FORMAT');
  const today = localDate(input.createdAt, zoneId);
  const startOn = input.startOn === null ? null : calendarDate(input.startOn);
  refuseBrokenRules(input, today, startOn);

  const anchor = startOn ?? today;
  const startsLater = startOn !== null && startOn > today;
  // an initial amount with a later start is paid at creation, before the cycles (UnivaPay's model)
  const initialBeforeCycles = startsLater && input.initialAmount !== null;
  const amounts = cycleAmounts(
    input,
    initialBeforeCycles,
    options.openEndedCycles ?? OPEN_ENDED_CYCLES_SHOWN,
  );
  const finite = input.plan.type !== 'open_ended';
  const paymentTime = input.paymentTime ?? DEFAULT_PAYMENT_TIME;
  const now = DateTime.fromJSDate(input.createdAt, { zone: zoneId });

  const payments: PlannedPayment[] = [];
  const add = (cycle: number | null, amount: bigint, due: DateTime | 'now') => {
    const dueAt = due === 'now' ? now : due;
    payments.push({
      sequence: payments.length + 1,
      cycle,
      dueAt: dueAt.toJSDate(),
      dueDate: dueAt.toISODate()!,
      zoneId,
      amount,
      immediate: due === 'now',
      isLastPayment: false,
    });
  };
  if (initialBeforeCycles) add(null, input.initialAmount!, 'now');
  const dates = cycleDates(anchor, input.period, input.preserveEndOfMonth);
  amounts.forEach((amount, index) => {
    const date = dates.next().value;
    // the first cycle is due at once unless start_on puts it on a later date
    const due = index === 0 && !startsLater ? 'now' : atLocalTime(date, paymentTime, zoneId);
    add(index + 1, amount, due);
  });
  if (finite) payments[payments.length - 1].isLastPayment = true;
  return { zoneId, finite, payments };
}

/**
 * When the `attempt`-th retry (1, 2, …) of a failed payment falls due: `attempt` retry intervals
 * after the local date the payment was due, at the payment time (the default interval, one day,
 * makes it 09:00 the next day).
 */
export function retryDueAt(
  payment: { dueAt: Date; zoneId: string },
  attempt: number,
  retryInterval: CalendarPeriod = DEFAULT_RETRY_INTERVAL,
  paymentTime: TimeOfDay = DEFAULT_PAYMENT_TIME,
): Date {
  const due = localDate(payment.dueAt, payment.zoneId);
  return atLocalTime(due.plus(timesPeriod(retryInterval, attempt)), paymentTime, payment.zoneId).toJSDate();
}

/**
 * The cycles' dates: the anchor, then one period after another. Without preserve_end_of_month each
 * date is the previous one plus the period, so a day lost to a short month stays lost (01-31, 02-28,
 * 03-28). With it, each date is the anchor plus n periods, so the day of month comes back (01-30,
 * 02-28, 03-30), and an anchor on the last day of its month gives the last day of every month
 * (01-31, 02-28, 03-31; 06-30, 07-31).
 */
function* cycleDates(
  anchor: DateTime,
  period: CalendarPeriod,
  preserveEndOfMonth: boolean,
): Generator<DateTime, never> {
  const followsMonthEnd = preserveEndOfMonth && isMonthBased(period) && anchor.day === anchor.daysInMonth;
  let date = anchor;
  yield date;
  for (let n = 1; ; n += 1) {
    if (!preserveEndOfMonth) date = date.plus(period);
    else {
      date = anchor.plus(timesPeriod(period, n));
      if (followsMonthEnd) date = date.endOf('month').startOf('day');
    }
    yield date;
  }
}

/** The amount of each cycle, first to last (the first `openEndedCycles` of an open-ended plan). */
function cycleAmounts(input: ScheduleInput, initialBeforeCycles: boolean, openEndedCycles: number): bigint[] {
  const { amount, initialAmount, plan } = input;
  // the initial amount replaces the first cycle's, unless it was paid before the cycles
  const firstCycle = initialAmount !== null && !initialBeforeCycles ? initialAmount : amount;
  const repeated = (cycles: number) =>
    Array.from({ length: cycles }, (_, index) => (index === 0 ? firstCycle : amount));
  switch (plan.type) {
    case 'open_ended':
      return repeated(openEndedCycles);
    case 'fixed_cycles':
      return repeated(plan.cycles);
    case 'fixed_cycle_amount': {
      const amounts: bigint[] = [];
      let left = plan.total;
      while (left > 0n) {
        const next = amounts.length === 0 ? firstCycle : amount;
        const payment = next < left ? next : left;
        amounts.push(payment);
        left -= payment;
      }
      return amounts;
    }
    case 'installments': {
      const split = installmentSplit(input, plan.cycles, initialBeforeCycles);
      return initialAmount !== null && !initialBeforeCycles ? [initialAmount, ...split] : split;
    }
    case 'revolving':
      return [amount];
  }
}

/**
 * The installments after the initial payment: what is left of the price, split evenly, the first
 * of them carrying the remainder (10,000 over 3: 3,334, 3,333, 3,333).
 */
function installmentSplit(input: ScheduleInput, cycles: number, initialBeforeCycles: boolean): bigint[] {
  const { amount, initialAmount } = input;
  const left = initialAmount === null ? amount : amount - initialAmount;
  const count = initialAmount !== null && !initialBeforeCycles ? cycles - 1 : cycles;
  if (count < 1) return [];
  const each = left / BigInt(count);
  const remainder = left - each * BigInt(count);
  return Array.from({ length: count }, (_, index) => (index === 0 ? each + remainder : each));
}

function refuseBrokenRules(input: ScheduleInput, today: DateTime, startOn: DateTime | null): void {
  const errors: FieldError[] = [];
  const refuse = (field: string, reason: string) => errors.push({ field, reason });
  const { plan, initialAmount, amount } = input;
  const startsLater = startOn !== null && startOn > today;

  if (input.startOn !== null && startOn === null) refuse('schedule_settings.start_on', 'INVALID_FORMAT_DATE');
  else if (startOn !== null && startOn < today)
    refuse('schedule_settings.start_on', 'INVALID_SUBSCRIPTION_START_ON');
  else if (startOn !== null && startOn > today.plus(MAX_START_ON_AHEAD))
    refuse('schedule_settings.start_on', 'START_ON_EXCEEDS_LIMIT');
  if (input.preserveEndOfMonth && !isMonthBased(input.period))
    refuse('schedule_settings.preserve_end_of_month', 'MUST_BE_MONTH_BASED_TO_SET');
  if (amount < 1n) refuse('amount', 'CHARGE_AMOUNT_TOO_LOW');
  if (initialAmount !== null && initialAmount < 1n)
    refuse('initial_amount', 'CANNOT_SET_INITIAL_AMOUNT_TO_ZERO');

  switch (plan.type) {
    case 'open_ended':
      break;
    case 'fixed_cycles':
      if (!withinCycles(plan.cycles, 1)) refuse('subscription_plan.fixed_cycles', 'NOT_WITHIN_BOUNDS');
      break;
    case 'fixed_cycle_amount': {
      const firstCycle = initialAmount !== null && !startsLater ? initialAmount : amount;
      if (amount < 1n || firstCycle < 1n) break;
      const cyclesNeeded = plan.total <= firstCycle ? 1n : 1n + ceilDiv(plan.total - firstCycle, amount);
      if (plan.total < firstCycle || cyclesNeeded > BigInt(MAX_FIXED_CYCLES))
        refuse('subscription_plan.fixed_cycle_amount', 'NOT_WITHIN_BOUNDS');
      break;
    }
    case 'installments': {
      if (!withinCycles(plan.cycles, 2)) {
        refuse('installment_plan.fixed_cycles', 'INSTALLMENT_INVALID_CYCLES_COUNT');
        break;
      }
      if (initialAmount !== null && initialAmount >= amount) {
        refuse('initial_amount', 'MUST_BE_LOWER_THAN_FULL_AMOUNT');
        break;
      }
      const split = installmentSplit(input, plan.cycles, startsLater && initialAmount !== null);
      if (split.some((payment) => payment < 1n))
        refuse('amount', 'INSTALLMENT_INSUFFICIENT_AMOUNT_PER_CHARGE');
      break;
    }
    case 'revolving':
      if (initialAmount !== null)
        refuse('initial_amount', 'INSTALLMENT_REVOLVING_PLAN_CANNOT_SET_INITIAL_AMOUNT');
      if (startsLater)
        refuse('schedule_settings.start_on', 'INSTALLMENT_REVOLVING_PLAN_CANNOT_SET_SUBSEQUENT_CYCLES_START');
      break;
  }
  if (errors.length > 0) throw new ValidationError(errors);
}

const withinCycles = (cycles: number, least: number) =>
  Number.isInteger(cycles) && cycles >= least && cycles <= MAX_FIXED_CYCLES;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/**
 * A calendar date (YYYY-MM-DD) as a luxon date at midnight UTC: calendar arithmetic only, no zone.
 * null for a date that does not exist (2025-02-29).
 */
function calendarDate(text: string): DateTime | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const date = DateTime.fromISO(text, { zone: 'utc' });
  return date.isValid ? date : null;
}

/** The local calendar date of an instant in a zone. */
function localDate(at: Date, zoneId: string): DateTime {
  const local = DateTime.fromJSDate(at, { zone: zoneId });
  return DateTime.utc(local.year, local.month, local.day);
}

/**
 * A local date and time of day in the zone as an instant. A time that the zone skips (a DST gap)
 * moves forward by the gap (02:30 → 03:30); a time it repeats (an overlap) is its first occurrence.
 */
function atLocalTime(date: DateTime, time: TimeOfDay, zoneId: string): DateTime {
  const local = DateTime.fromObject(
    { year: date.year, month: date.month, day: date.day, hour: time.hour, minute: time.minute },
    { zone: zoneId },
  );
  const candidates = local.getPossibleOffsets();
  return candidates.length > 1 ? DateTime.min(...candidates)! : local;
}

/**
 * When a payment on the local date `date` (YYYY-MM-DD) in `zoneId` falls due: at the payment time
 * (09:00 unless told), as every scheduled payment (a merchant's new due date included). Null for a
 * date that does not exist.
 */
export function paymentDueAt(
  date: string,
  zoneId: string,
  paymentTime: TimeOfDay = DEFAULT_PAYMENT_TIME,
): Date | null {
  const day = calendarDate(date);
  return day === null ? null : atLocalTime(day, paymentTime, zoneId).toJSDate();
}

/** The local date (YYYY-MM-DD) of an instant in a zone. */
export function localDateOf(at: Date, zoneId: string): string {
  return localDate(at, zoneId).toISODate()!;
}

/**
 * The instant a subscription's schedule starts, as ISO 8601 with the zone's offset
 * (`2026-12-03T00:00:00.000+09:00`): on a later `start_on` (YYYY-MM-DD), that day's payment time,
 * when its first cycle falls due (computeSchedule); otherwise the start of the local day it was
 * created on (or of its `start_on`, that same day), which its first payment was made at or after.
 * The SDK's pollSubscriptionWithFirstCharge waits for a first charge when `new Date(start_on) <= now`:
 * a bare date reads as midnight UTC, so east of UTC a schedule that started today read as tomorrow's.
 */
export function scheduleStartsAt(
  startOn: string | null,
  createdAt: Date,
  zoneId: string,
  paymentTime: TimeOfDay = DEFAULT_PAYMENT_TIME,
): string {
  const today = localDate(createdAt, zoneId);
  const start = startOn === null ? null : calendarDate(startOn);
  const at =
    start !== null && start > today
      ? atLocalTime(start, paymentTime, zoneId)
      : atLocalTime(start ?? today, { hour: 0, minute: 0 }, zoneId);
  return at.toISO()!;
}
