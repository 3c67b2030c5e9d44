/**
 * How often a subscription is charged: one of UnivaPay's named periods (`period`) or an ISO 8601
 * duration (`cyclical_period`, e.g. P1M, P2W, P23D). Both become a calendar period of whole years,
 * months, weeks and days: no time part, since every scheduled payment falls at the payment time of
 * day (docs/subscriptions.md).
 */

export const SUBSCRIPTION_PERIODS = [
  'daily',
  'weekly',
  'biweekly',
  'monthly',
  'bimonthly',
  'quarterly',
  'semiannually',
  'annually',
] as const;
export type SubscriptionPeriod = (typeof SUBSCRIPTION_PERIODS)[number];

/** A calendar period: luxon adds it field by field, years and months first (clamped to the month's length). */
export interface CalendarPeriod {
  years: number;
  months: number;
  weeks: number;
  days: number;
}

const period = (years: number, months: number, weeks: number, days: number): CalendarPeriod => ({
  years,
  months,
  weeks,
  days,
});

export const NAMED_PERIODS: Record<SubscriptionPeriod, CalendarPeriod> = {
  daily: period(0, 0, 0, 1),
  weekly: period(0, 0, 1, 0),
  biweekly: period(0, 0, 2, 0),
  monthly: period(0, 1, 0, 0),
  bimonthly: period(0, 2, 0, 0),
  quarterly: period(0, 3, 0, 0),
  semiannually: period(0, 6, 0, 0),
  annually: period(1, 0, 0, 0),
};

/** The longest period (and retry interval) accepted, in approximate days: ten years. */
export const MAX_PERIOD_DAYS = 3660;

const ISO_CALENDAR_PERIOD = /^P(?:(\d{1,4})Y)?(?:(\d{1,4})M)?(?:(\d{1,4})W)?(?:(\d{1,4})D)?$/;

/**
 * An ISO 8601 duration of whole years, months, weeks and days (`P1M`, `P2W`, `P1Y6M`, `P23D`), at
 * least one day and at most MAX_PERIOD_DAYS; null for anything else (a time part, fractions, zero,
 * lower case, a sign).
 */
export function parseCalendarPeriod(text: string): CalendarPeriod | null {
  const match = ISO_CALENDAR_PERIOD.exec(text);
  if (!match || text === 'P') return null;
  const [years, months, weeks, days] = match.slice(1).map((part) => (part === undefined ? 0 : Number(part)));
  const parsed = period(years, months, weeks, days);
  const approximateDays = approximateLengthInDays(parsed);
  if (approximateDays < 1 || approximateDays > MAX_PERIOD_DAYS) return null;
  return parsed;
}

/** The canonical ISO 8601 spelling: `P1M`, `P2W`, `P1Y2M3D`. */
export function formatCalendarPeriod(p: CalendarPeriod): string {
  const parts: [number, string][] = [
    [p.years, 'Y'],
    [p.months, 'M'],
    [p.weeks, 'W'],
    [p.days, 'D'],
  ];
  return `P${parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('')}`;
}

/** Whole months or years only: the periods whose dates can follow the end of the month. */
export function isMonthBased(p: CalendarPeriod): boolean {
  return p.weeks === 0 && p.days === 0 && p.years + p.months > 0;
}

/** The period taken n times (the anchor plus n periods is the n-th date after it). */
export function timesPeriod(p: CalendarPeriod, n: number): CalendarPeriod {
  return period(p.years * n, p.months * n, p.weeks * n, p.days * n);
}

function approximateLengthInDays(p: CalendarPeriod): number {
  return p.years * 365 + p.months * 30 + p.weeks * 7 + p.days;
}
