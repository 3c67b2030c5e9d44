import {
  computeSchedule,
  NAMED_PERIODS,
  parseCalendarPeriod,
  paymentDueAt,
  retryDueAt,
  scheduleStartsAt,
  type CalendarPeriod,
  type Schedule,
  type ScheduleInput,
} from './index';

/**
 * The rules of docs/subscriptions.md pinned by dated examples. Each expected payment reads
 * `<due instant, UTC> <amount>`, with `now` when it is due at creation and `last` on the last one.
 */

interface Example {
  /** the creation instant (UTC) */
  created: string;
  period?: CalendarPeriod;
  zone?: string;
  start?: string;
  preserve?: boolean;
  time?: { hour: number; minute: number };
  amount?: bigint;
  initial?: bigint;
  plan?: ScheduleInput['plan'];
}

function schedule(example: Example, openEndedCycles?: number): Schedule {
  return computeSchedule(
    {
      createdAt: new Date(example.created),
      period: example.period ?? NAMED_PERIODS.monthly,
      zoneId: example.zone ?? 'Asia/Tokyo',
      startOn: example.start ?? null,
      preserveEndOfMonth: example.preserve ?? false,
      paymentTime: example.time,
      amount: example.amount ?? 1000n,
      initialAmount: example.initial ?? null,
      plan: example.plan ?? { type: 'fixed_cycles', cycles: 4 },
    },
    { openEndedCycles },
  );
}

const render = (result: Schedule) =>
  result.payments.map((payment) =>
    [
      payment.dueAt.toISOString().replace(':00.000Z', 'Z'),
      String(payment.amount),
      payment.immediate ? 'now' : null,
      payment.isLastPayment ? 'last' : null,
    ]
      .filter((part) => part !== null)
      .join(' '),
  );

const cycles = (n: number): ScheduleInput['plan'] => ({ type: 'fixed_cycles', cycles: n });
const P = (iso: string) => parseCalendarPeriod(iso)!;

// prettier-ignore
const DATED_EXAMPLES: [string, Example, string[]][] = [
  // month ends (Asia/Tokyo: 09:00 local is 00:00 UTC the same day)
  ['01-31 follows month ends with preserve_end_of_month',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-31', preserve: true },
    ['2025-01-31T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-31T00:00Z 1000', '2025-04-30T00:00Z 1000 last']],
  ['01-31 stays on the 28th after February without it',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-31' },
    ['2025-01-31T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-28T00:00Z 1000', '2025-04-28T00:00Z 1000 last']],
  ['01-31 of a leap year, with preserve_end_of_month: 02-29, then month ends',
    { created: '2024-01-10T01:00:00Z', start: '2024-01-31', preserve: true },
    ['2024-01-31T00:00Z 1000', '2024-02-29T00:00Z 1000', '2024-03-31T00:00Z 1000', '2024-04-30T00:00Z 1000 last']],
  ['01-31 of a leap year without it: the 29th from February on',
    { created: '2024-01-10T01:00:00Z', start: '2024-01-31' },
    ['2024-01-31T00:00Z 1000', '2024-02-29T00:00Z 1000', '2024-03-29T00:00Z 1000', '2024-04-29T00:00Z 1000 last']],
  ['06-30 with preserve_end_of_month: 07-31',
    { created: '2025-06-01T01:00:00Z', start: '2025-06-30', preserve: true },
    ['2025-06-30T00:00Z 1000', '2025-07-31T00:00Z 1000', '2025-08-31T00:00Z 1000', '2025-09-30T00:00Z 1000 last']],
  ['06-30 without it: 07-30',
    { created: '2025-06-01T01:00:00Z', start: '2025-06-30' },
    ['2025-06-30T00:00Z 1000', '2025-07-30T00:00Z 1000', '2025-08-30T00:00Z 1000', '2025-09-30T00:00Z 1000 last']],
  ['02-28 of a common year is a month end: with preserve_end_of_month, month ends follow',
    { created: '2025-02-01T01:00:00Z', start: '2025-02-28', preserve: true, plan: cycles(3) },
    ['2025-02-28T00:00Z 1000', '2025-03-31T00:00Z 1000', '2025-04-30T00:00Z 1000 last']],
  ['02-28 without it: the 28th',
    { created: '2025-02-01T01:00:00Z', start: '2025-02-28', plan: cycles(3) },
    ['2025-02-28T00:00Z 1000', '2025-03-28T00:00Z 1000', '2025-04-28T00:00Z 1000 last']],
  ['01-30 with preserve_end_of_month: the 30th comes back after February',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-30', preserve: true, plan: cycles(3) },
    ['2025-01-30T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-30T00:00Z 1000 last']],
  ['01-30 without it: the 28th from February on',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-30', plan: cycles(3) },
    ['2025-01-30T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-28T00:00Z 1000 last']],
  ['01-29 of a leap year keeps the 29th',
    { created: '2024-01-10T01:00:00Z', start: '2024-01-29', plan: cycles(3) },
    ['2024-01-29T00:00Z 1000', '2024-02-29T00:00Z 1000', '2024-03-29T00:00Z 1000 last']],
  ['01-29 of a common year drifts to the 28th',
    { created: '2025-01-10T01:00:00Z', start: '2025-01-29', plan: cycles(3) },
    ['2025-01-29T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-28T00:00Z 1000 last']],
  ['annually from 02-29 with preserve_end_of_month: February ends, 29th again in 2028',
    { created: '2024-02-01T01:00:00Z', start: '2024-02-29', preserve: true, period: NAMED_PERIODS.annually, plan: cycles(5) },
    ['2024-02-29T00:00Z 1000', '2025-02-28T00:00Z 1000', '2026-02-28T00:00Z 1000', '2027-02-28T00:00Z 1000', '2028-02-29T00:00Z 1000 last']],
  ['annually from 02-29 without it: the 28th for good',
    { created: '2024-02-01T01:00:00Z', start: '2024-02-29', period: NAMED_PERIODS.annually, plan: cycles(5) },
    ['2024-02-29T00:00Z 1000', '2025-02-28T00:00Z 1000', '2026-02-28T00:00Z 1000', '2027-02-28T00:00Z 1000', '2028-02-28T00:00Z 1000 last']],
  ['quarterly from 11-30 with preserve_end_of_month: month ends',
    { created: '2025-11-01T01:00:00Z', start: '2025-11-30', preserve: true, period: NAMED_PERIODS.quarterly },
    ['2025-11-30T00:00Z 1000', '2026-02-28T00:00Z 1000', '2026-05-31T00:00Z 1000', '2026-08-31T00:00Z 1000 last']],
  ['quarterly from 11-30 without it: the 28th after February',
    { created: '2025-11-01T01:00:00Z', start: '2025-11-30', period: NAMED_PERIODS.quarterly },
    ['2025-11-30T00:00Z 1000', '2026-02-28T00:00Z 1000', '2026-05-28T00:00Z 1000', '2026-08-28T00:00Z 1000 last']],
  ['bimonthly from 12-31 with preserve_end_of_month, across the year',
    { created: '2025-12-01T01:00:00Z', start: '2025-12-31', preserve: true, period: NAMED_PERIODS.bimonthly },
    ['2025-12-31T00:00Z 1000', '2026-02-28T00:00Z 1000', '2026-04-30T00:00Z 1000', '2026-06-30T00:00Z 1000 last']],
  ['semiannually from 08-31 without it',
    { created: '2025-08-01T01:00:00Z', start: '2025-08-31', period: NAMED_PERIODS.semiannually, plan: cycles(3) },
    ['2025-08-31T00:00Z 1000', '2026-02-28T00:00Z 1000', '2026-08-28T00:00Z 1000 last']],
  ['preserve_end_of_month on a mid-month date keeps the day',
    { created: '2025-06-01T01:00:00Z', start: '2025-06-15', preserve: true, plan: cycles(2) },
    ['2025-06-15T00:00Z 1000', '2025-07-15T00:00Z 1000 last']],
  ['P1Y2M from 01-31 with preserve_end_of_month: month ends',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-31', preserve: true, period: P('P1Y2M'), plan: cycles(3) },
    ['2025-01-31T00:00Z 1000', '2026-03-31T00:00Z 1000', '2027-05-31T00:00Z 1000 last']],

  // weeks and days
  ['weekly from creation: the first at once, then 09:00 each week',
    { created: '2025-01-15T01:00:00Z', period: NAMED_PERIODS.weekly, plan: cycles(3) },
    ['2025-01-15T01:00Z 1000 now', '2025-01-22T00:00Z 1000', '2025-01-29T00:00Z 1000 last']],
  ['biweekly from a later start_on',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-20', period: NAMED_PERIODS.biweekly, plan: cycles(3) },
    ['2025-01-20T00:00Z 1000', '2025-02-03T00:00Z 1000', '2025-02-17T00:00Z 1000 last']],
  ['P2W is biweekly',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-20', period: P('P2W'), plan: cycles(3) },
    ['2025-01-20T00:00Z 1000', '2025-02-03T00:00Z 1000', '2025-02-17T00:00Z 1000 last']],
  ['daily across the end of February of a common year',
    { created: '2025-02-27T03:00:00Z', period: NAMED_PERIODS.daily, plan: cycles(3) },
    ['2025-02-27T03:00Z 1000 now', '2025-02-28T00:00Z 1000', '2025-03-01T00:00Z 1000 last']],
  ['daily across 02-29 of a leap year',
    { created: '2024-02-28T03:00:00Z', period: NAMED_PERIODS.daily, plan: cycles(3) },
    ['2024-02-28T03:00Z 1000 now', '2024-02-29T00:00Z 1000', '2024-03-01T00:00Z 1000 last']],
  ['P23D',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-20', period: P('P23D'), plan: cycles(3) },
    ['2025-01-20T00:00Z 1000', '2025-02-12T00:00Z 1000', '2025-03-07T00:00Z 1000 last']],
  ['P10D from creation',
    { created: '2025-12-25T06:00:00Z', period: P('P10D'), plan: cycles(3) },
    ['2025-12-25T06:00Z 1000 now', '2026-01-04T00:00Z 1000', '2026-01-14T00:00Z 1000 last']],

  // the creation date is the zone's, not UTC's
  ['created at 00:30 in Tokyo (15:30 UTC the day before): cycles anchored on the Tokyo date',
    { created: '2025-01-31T15:30:00Z', plan: cycles(3) },
    ['2025-01-31T15:30Z 1000 now', '2025-03-01T00:00Z 1000', '2025-04-01T00:00Z 1000 last']],
  ['start_on today is due at once',
    { created: '2025-01-31T15:30:00Z', start: '2025-02-01', plan: cycles(2) },
    ['2025-01-31T15:30Z 1000 now', '2025-03-01T00:00Z 1000 last']],
  ['created before 09:00 in the zone: still due at once',
    { created: '2025-03-03T22:00:00Z', plan: cycles(2) },
    ['2025-03-03T22:00Z 1000 now', '2025-04-04T00:00Z 1000 last']],
  ['created late on 01-31 in New York (UTC is already February): anchored on 01-31',
    { created: '2025-02-01T03:00:00Z', zone: 'America/New_York', preserve: true, plan: cycles(3) },
    ['2025-02-01T03:00Z 1000 now', '2025-02-28T14:00Z 1000', '2025-03-31T13:00Z 1000 last']],

  // daylight saving time: 09:00 local whatever the offset
  ['New York monthly across the March change: 14:00 UTC, then 13:00 UTC',
    { created: '2025-02-01T12:00:00Z', zone: 'America/New_York', start: '2025-02-09', plan: cycles(3) },
    ['2025-02-09T14:00Z 1000', '2025-03-09T13:00Z 1000', '2025-04-09T13:00Z 1000 last']],
  ['New York monthly across the November change: 13:00 UTC, then 14:00 UTC',
    { created: '2025-09-20T12:00:00Z', zone: 'America/New_York', start: '2025-10-02', plan: cycles(3) },
    ['2025-10-02T13:00Z 1000', '2025-11-02T14:00Z 1000', '2025-12-02T14:00Z 1000 last']],
  ['New York daily on the day the clocks go forward',
    { created: '2025-03-01T12:00:00Z', zone: 'America/New_York', start: '2025-03-08', period: NAMED_PERIODS.daily, plan: cycles(3) },
    ['2025-03-08T14:00Z 1000', '2025-03-09T13:00Z 1000', '2025-03-10T13:00Z 1000 last']],
  ['London weekly across the March change',
    { created: '2025-03-01T12:00:00Z', zone: 'Europe/London', start: '2025-03-23', period: NAMED_PERIODS.weekly, plan: cycles(3) },
    ['2025-03-23T09:00Z 1000', '2025-03-30T08:00Z 1000', '2025-04-06T08:00Z 1000 last']],
  ['London weekly across the October change',
    { created: '2025-10-01T12:00:00Z', zone: 'Europe/London', start: '2025-10-19', period: NAMED_PERIODS.weekly, plan: cycles(2) },
    ['2025-10-19T08:00Z 1000', '2025-10-26T09:00Z 1000 last']],
  ['Sydney monthly across the April change (southern hemisphere)',
    { created: '2025-03-01T00:00:00Z', zone: 'Australia/Sydney', start: '2025-03-15', plan: cycles(2) },
    ['2025-03-14T22:00Z 1000', '2025-04-14T23:00Z 1000 last']],
  ['Kolkata: a half-hour offset',
    { created: '2025-01-15T01:00:00Z', zone: 'Asia/Kolkata', start: '2025-01-20', plan: cycles(2) },
    ['2025-01-20T03:30Z 1000', '2025-02-20T03:30Z 1000 last']],
  ['a payment time in the New York gap moves forward by the gap',
    { created: '2025-03-01T12:00:00Z', zone: 'America/New_York', start: '2025-03-08', period: NAMED_PERIODS.daily, time: { hour: 2, minute: 30 }, plan: cycles(3) },
    ['2025-03-08T07:30Z 1000', '2025-03-09T07:30Z 1000', '2025-03-10T06:30Z 1000 last']],
  ['a payment time in the New York overlap is its first occurrence',
    { created: '2025-10-20T12:00:00Z', zone: 'America/New_York', start: '2025-11-01', period: NAMED_PERIODS.daily, time: { hour: 1, minute: 30 }, plan: cycles(3) },
    ['2025-11-01T05:30Z 1000', '2025-11-02T05:30Z 1000', '2025-11-03T06:30Z 1000 last']],
  ['a payment time in the London gap moves forward by the gap',
    { created: '2025-03-01T12:00:00Z', zone: 'Europe/London', start: '2025-03-29', period: NAMED_PERIODS.daily, time: { hour: 1, minute: 30 }, plan: cycles(3) },
    ['2025-03-29T01:30Z 1000', '2025-03-30T01:30Z 1000', '2025-03-31T00:30Z 1000 last']],
  ['a payment time in the London overlap is its first occurrence',
    { created: '2025-10-01T12:00:00Z', zone: 'Europe/London', start: '2025-10-25', period: NAMED_PERIODS.daily, time: { hour: 1, minute: 30 }, plan: cycles(3) },
    ['2025-10-25T00:30Z 1000', '2025-10-26T00:30Z 1000', '2025-10-27T01:30Z 1000 last']],

  // amounts: initial_amount and the plans
  ['initial_amount without start_on is the first cycle, paid at once',
    { created: '2025-01-15T01:00:00Z', initial: 250n, plan: cycles(3) },
    ['2025-01-15T01:00Z 250 now', '2025-02-15T00:00Z 1000', '2025-03-15T00:00Z 1000 last']],
  ['initial_amount with a later start_on is paid at once, before the cycles',
    { created: '2025-02-04T08:26:22Z', start: '2025-02-10', initial: 250n, plan: cycles(3) },
    ['2025-02-04T08:26:22.000Z 250 now', '2025-02-10T00:00Z 1000', '2025-03-10T00:00Z 1000', '2025-04-10T00:00Z 1000 last']],
  ['fixed_cycle_amount: the last cycle takes what is left',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-20', plan: { type: 'fixed_cycle_amount', total: 3500n } },
    ['2025-01-20T00:00Z 1000', '2025-02-20T00:00Z 1000', '2025-03-20T00:00Z 1000', '2025-04-20T00:00Z 500 last']],
  ['fixed_cycle_amount counts the initial amount of the first cycle',
    { created: '2025-01-15T01:00:00Z', initial: 500n, plan: { type: 'fixed_cycle_amount', total: 3000n } },
    ['2025-01-15T01:00Z 500 now', '2025-02-15T00:00Z 1000', '2025-03-15T00:00Z 1000', '2025-04-15T00:00Z 500 last']],
  ['fixed_cycle_amount a multiple of the amount',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-20', plan: { type: 'fixed_cycle_amount', total: 2000n } },
    ['2025-01-20T00:00Z 1000', '2025-02-20T00:00Z 1000 last']],
  ['installments split the price, the first carrying the remainder',
    { created: '2025-01-15T01:00:00Z', amount: 10000n, plan: { type: 'installments', cycles: 3 } },
    ['2025-01-15T01:00Z 3334 now', '2025-02-15T00:00Z 3333', '2025-03-15T00:00Z 3333 last']],
  ['installments with an initial amount: the rest split over the other cycles',
    { created: '2025-01-15T01:00:00Z', amount: 10000n, initial: 4000n, plan: { type: 'installments', cycles: 4 } },
    ['2025-01-15T01:00Z 4000 now', '2025-02-15T00:00Z 2000', '2025-03-15T00:00Z 2000', '2025-04-15T00:00Z 2000 last']],
  ['installments with an initial amount and a later start_on',
    { created: '2025-01-15T01:00:00Z', start: '2025-02-01', amount: 10000n, initial: 1000n, plan: { type: 'installments', cycles: 3 } },
    ['2025-01-15T01:00Z 1000 now', '2025-02-01T00:00Z 3000', '2025-03-01T00:00Z 3000', '2025-04-01T00:00Z 3000 last']],
  ['installments of a small price',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-31', preserve: true, amount: 10n, plan: { type: 'installments', cycles: 4 } },
    ['2025-01-31T00:00Z 4', '2025-02-28T00:00Z 2', '2025-03-31T00:00Z 2', '2025-04-30T00:00Z 2 last']],
  ['revolving: one payment of the whole price, at once',
    { created: '2025-01-15T01:00:00Z', amount: 10000n, plan: { type: 'revolving' } },
    ['2025-01-15T01:00Z 10000 now last']],
  ['open-ended: cycles without a last one',
    { created: '2025-01-15T01:00:00Z', start: '2025-01-31', plan: { type: 'open_ended' } },
    ['2025-01-31T00:00Z 1000', '2025-02-28T00:00Z 1000', '2025-03-28T00:00Z 1000']],
];

describe('computeSchedule', () => {
  it(`has at least 40 dated examples (${DATED_EXAMPLES.length})`, () => {
    expect(DATED_EXAMPLES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(DATED_EXAMPLES)('%s', (_name, example, expected) => {
    expect(render(schedule(example, 3))).toEqual(expected);
  });

  it('gives each payment its local due date and the zone as IANA spells it', () => {
    const result = schedule({ created: '2025-01-31T15:30:00Z', zone: 'asia/tokyo', plan: cycles(2) });
    expect(result.zoneId).toBe('Asia/Tokyo');
    expect(result.payments.map((p) => [p.sequence, p.cycle, p.dueDate, p.zoneId])).toEqual([
      [1, 1, '2025-02-01', 'Asia/Tokyo'],
      [2, 2, '2025-03-01', 'Asia/Tokyo'],
    ]);
    const early = schedule({
      created: '2025-02-04T08:26:22Z',
      start: '2025-02-10',
      initial: 250n,
      plan: cycles(1),
    });
    expect(early.payments.map((p) => [p.cycle, p.dueDate])).toEqual([
      [null, '2025-02-04'],
      [1, '2025-02-10'],
    ]);
  });

  it('lists 12 cycles of an open-ended subscription unless told', () => {
    const result = schedule({ created: '2025-01-15T01:00:00Z', plan: { type: 'open_ended' } });
    expect(result.finite).toBe(false);
    expect(result.payments).toHaveLength(12);
    expect(result.payments.at(-1)!.dueAt.toISOString()).toBe('2025-12-15T00:00:00.000Z');
    expect(result.payments.some((p) => p.isLastPayment)).toBe(false);
  });

  it('computes one date whatever the number of cycles asked (the schedule is a prefix)', () => {
    const long = render(
      schedule({ created: '2025-01-15T01:00:00Z', start: '2025-01-31', plan: { type: 'open_ended' } }, 40),
    );
    const short = render(
      schedule({ created: '2025-01-15T01:00:00Z', start: '2025-01-31', plan: { type: 'open_ended' } }, 5),
    );
    expect(long.slice(0, 5)).toEqual(short);
  });

  // prettier-ignore
  it.each<[string, Example, [string, string][]]>([
    ['start_on before today', { created: '2025-01-15T01:00:00Z', start: '2025-01-14' }, [['schedule_settings.start_on', 'INVALID_SUBSCRIPTION_START_ON']]],
    ['start_on before today in the zone (UTC is a day behind)', { created: '2025-01-31T15:30:00Z', start: '2025-01-31' }, [['schedule_settings.start_on', 'INVALID_SUBSCRIPTION_START_ON']]],
    ['start_on more than a year ahead', { created: '2025-01-15T01:00:00Z', start: '2026-01-16' }, [['schedule_settings.start_on', 'START_ON_EXCEEDS_LIMIT']]],
    ['start_on that does not exist', { created: '2025-01-15T01:00:00Z', start: '2025-02-30' }, [['schedule_settings.start_on', 'INVALID_FORMAT_DATE']]],
    ['preserve_end_of_month with weeks', { created: '2025-01-15T01:00:00Z', preserve: true, period: NAMED_PERIODS.weekly }, [['schedule_settings.preserve_end_of_month', 'MUST_BE_MONTH_BASED_TO_SET']]],
    ['an unknown zone', { created: '2025-01-15T01:00:00Z', zone: 'Mars/Olympus' }, [['schedule_settings.zone_id', 'INVALID_FORMAT']]],
    ['a fixed offset for a zone', { created: '2025-01-15T01:00:00Z', zone: '+09:00' }, [['schedule_settings.zone_id', 'INVALID_FORMAT']]],
    ['an initial amount of zero', { created: '2025-01-15T01:00:00Z', initial: 0n }, [['initial_amount', 'CANNOT_SET_INITIAL_AMOUNT_TO_ZERO']]],
    ['no cycles', { created: '2025-01-15T01:00:00Z', plan: cycles(0) }, [['subscription_plan.fixed_cycles', 'NOT_WITHIN_BOUNDS']]],
    ['too many cycles', { created: '2025-01-15T01:00:00Z', plan: cycles(1001) }, [['subscription_plan.fixed_cycles', 'NOT_WITHIN_BOUNDS']]],
    ['fixed_cycle_amount below the first cycle', { created: '2025-01-15T01:00:00Z', plan: { type: 'fixed_cycle_amount', total: 999n } }, [['subscription_plan.fixed_cycle_amount', 'NOT_WITHIN_BOUNDS']]],
    ['fixed_cycle_amount needing more than 1,000 cycles', { created: '2025-01-15T01:00:00Z', amount: 1n, plan: { type: 'fixed_cycle_amount', total: 1001n } }, [['subscription_plan.fixed_cycle_amount', 'NOT_WITHIN_BOUNDS']]],
    ['one installment', { created: '2025-01-15T01:00:00Z', plan: { type: 'installments', cycles: 1 } }, [['installment_plan.fixed_cycles', 'INSTALLMENT_INVALID_CYCLES_COUNT']]],
    ['an initial installment of the whole price', { created: '2025-01-15T01:00:00Z', initial: 1000n, plan: { type: 'installments', cycles: 3 } }, [['initial_amount', 'MUST_BE_LOWER_THAN_FULL_AMOUNT']]],
    ['installments below one minor unit', { created: '2025-01-15T01:00:00Z', amount: 3n, plan: { type: 'installments', cycles: 4 } }, [['amount', 'INSTALLMENT_INSUFFICIENT_AMOUNT_PER_CHARGE']]],
    ['revolving with an initial amount and a later start', { created: '2025-01-15T01:00:00Z', start: '2025-02-01', initial: 100n, plan: { type: 'revolving' } }, [['initial_amount', 'INSTALLMENT_REVOLVING_PLAN_CANNOT_SET_INITIAL_AMOUNT'], ['schedule_settings.start_on', 'INSTALLMENT_REVOLVING_PLAN_CANNOT_SET_SUBSEQUENT_CYCLES_START']]],
  ])('refuses %s, naming the field', (_name, example, expected) => {
    expect(() => schedule(example)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        errors: expected.map(([field, reason]) => ({ field, reason })),
      }),
    );
  });
});

describe('retryDueAt', () => {
  const tokyo = (iso: string) => ({ dueAt: new Date(iso), zoneId: 'Asia/Tokyo' });

  // prettier-ignore
  it.each<[string, { dueAt: Date; zoneId: string }, number, CalendarPeriod | undefined, string]>([
    ['the next day at 09:00 by default', tokyo('2025-01-31T00:00:00Z'), 1, undefined, '2025-02-01T00:00:00.000Z'],
    ['the second retry two days after', tokyo('2025-01-31T00:00:00Z'), 2, undefined, '2025-02-02T00:00:00.000Z'],
    ['an immediate payment late in the evening: 09:00 the next local day', tokyo('2025-01-15T13:00:00Z'), 1, undefined, '2025-01-16T00:00:00.000Z'],
    ['an immediate payment after midnight local (UTC the day before)', tokyo('2025-01-31T15:30:00Z'), 1, undefined, '2025-02-02T00:00:00.000Z'],
    ['P3D across the New York spring change', { dueAt: new Date('2025-03-07T14:00:00Z'), zoneId: 'America/New_York' }, 1, P('P3D'), '2025-03-10T13:00:00.000Z'],
    ['P1M from 01-31: clamped to February', tokyo('2025-01-31T00:00:00Z'), 1, P('P1M'), '2025-02-28T00:00:00.000Z'],
    ['P1M from 01-31, second retry: counted from the due date, so the 31st', tokyo('2025-01-31T00:00:00Z'), 2, P('P1M'), '2025-03-31T00:00:00.000Z'],
  ])('%s', (_name, payment, attempt, interval, expected) => {
    expect(retryDueAt(payment, attempt, interval).toISOString()).toBe(expected);
  });
});

describe('parseCalendarPeriod', () => {
  it.each([
    ['P1M', { years: 0, months: 1, weeks: 0, days: 0 }],
    ['P2W', { years: 0, months: 0, weeks: 2, days: 0 }],
    ['P23D', { years: 0, months: 0, weeks: 0, days: 23 }],
    ['P1Y2M3D', { years: 1, months: 2, weeks: 0, days: 3 }],
    ['P10Y', { years: 10, months: 0, weeks: 0, days: 0 }],
  ])('reads %s', (text, expected) => {
    expect(parseCalendarPeriod(text)).toEqual(expected);
  });

  it.each([
    '',
    'P',
    'P0D',
    'P0M0D',
    'PT1H',
    'P1DT1H',
    'p1m',
    'P1.5D',
    'P-1D',
    '1M',
    'P11Y',
    'P1M ',
    'monthly',
  ])('refuses %j', (text) => {
    expect(parseCalendarPeriod(text)).toBeNull();
  });
});

describe('scheduleStartsAt', () => {
  // 15:30 UTC on 2 December is 00:30 on 3 December in Tokyo
  const createdAt = new Date('2026-12-02T15:30:00Z');

  it('is the start of the local day of creation when no start_on was given, never after the creation', () => {
    const startsAt = scheduleStartsAt(null, createdAt, 'Asia/Tokyo');
    expect(startsAt).toBe('2026-12-03T00:00:00.000+09:00');
    // what the SDK's pollSubscriptionWithFirstCharge compares: a first charge is waited for
    expect(new Date(startsAt).getTime()).toBeLessThanOrEqual(createdAt.getTime());
    expect(scheduleStartsAt(null, createdAt, 'America/New_York')).toBe('2026-12-02T00:00:00.000-05:00');
  });

  it('is that same start of day for a start_on on the day of creation (charged at once)', () => {
    expect(scheduleStartsAt('2026-12-03', createdAt, 'Asia/Tokyo')).toBe('2026-12-03T00:00:00.000+09:00');
  });

  it('is the payment time of a later start_on, when its first cycle falls due', () => {
    const startsAt = scheduleStartsAt('2026-12-10', createdAt, 'Asia/Tokyo');
    expect(startsAt).toBe('2026-12-10T09:00:00.000+09:00');
    expect(new Date(startsAt)).toEqual(paymentDueAt('2026-12-10', 'Asia/Tokyo'));
  });
});
