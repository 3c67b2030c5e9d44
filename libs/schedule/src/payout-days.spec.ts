import { lastPayoutDay } from './payout-days';

const TOKYO = 'Asia/Tokyo';
const at = (iso: string) => new Date(iso);
const day = (schedule: Parameters<typeof lastPayoutDay>[0], instant: string, zone = TOKYO) =>
  lastPayoutDay(schedule, zone, at(instant)).day;

describe('lastPayoutDay', () => {
  it('pays weekly on the day of the week, in the merchant’s time zone', () => {
    const friday = { period: 'weekly', day_of_week: 'friday', day_of_month: 1 } as const;
    // Friday 2026-12-04 00:30 in Tokyo is still Thursday in UTC
    expect(day(friday, '2026-12-03T15:30:00Z')).toBe('2026-12-04');
    expect(day(friday, '2026-12-03T14:30:00Z')).toBe('2026-11-27');
    expect(lastPayoutDay(friday, TOKYO, at('2026-12-05T00:00:00Z')).startsAt.toISOString()).toBe(
      '2026-12-03T15:00:00.000Z',
    );
  });

  it('pays biweekly every other week, counted from Monday 1970-01-05', () => {
    const monday = { period: 'biweekly', day_of_week: 'monday', day_of_month: 1 } as const;
    // 1970-01-05 + 2,912 weeks (an even count) = Monday 2025-10-27
    expect(day(monday, '2025-10-27T12:00:00Z', 'UTC')).toBe('2025-10-27');
    expect(day(monday, '2025-11-05T12:00:00Z', 'UTC')).toBe('2025-10-27');
    expect(day(monday, '2025-11-10T12:00:00Z', 'UTC')).toBe('2025-11-10');
  });

  it('pays semimonthly on the day of the month and fifteen days from it', () => {
    const fifth = { period: 'semimonthly', day_of_week: 'monday', day_of_month: 5 } as const;
    expect(day(fifth, '2026-12-19T00:00:00Z')).toBe('2026-12-05');
    expect(day(fifth, '2026-12-20T00:00:00Z')).toBe('2026-12-20');
    const twentieth = { ...fifth, day_of_month: 20 } as const;
    expect(day(twentieth, '2026-12-10T00:00:00Z')).toBe('2026-12-05');
    const thirtieth = { ...fifth, day_of_month: 30 } as const;
    // the 15th, and the 30th — February's last day in February
    expect(day(thirtieth, '2026-03-01T00:00:00Z')).toBe('2026-02-28');
  });

  it('pays monthly on the day of the month, a shorter month on its last day', () => {
    const thirtyFirst = { period: 'monthly', day_of_week: 'monday', day_of_month: 31 } as const;
    expect(day(thirtyFirst, '2026-03-15T00:00:00Z')).toBe('2026-02-28');
    expect(day(thirtyFirst, '2026-05-01T00:00:00Z')).toBe('2026-04-30');
    expect(day({ ...thirtyFirst, day_of_month: 1 }, '2026-12-01T00:00:00Z')).toBe('2026-12-01');
  });

  it('pays bimonthly in the odd months', () => {
    const first = { period: 'bimonthly', day_of_week: 'monday', day_of_month: 1 } as const;
    expect(day(first, '2026-12-15T00:00:00Z')).toBe('2026-11-01');
    expect(day(first, '2027-01-02T00:00:00Z')).toBe('2027-01-01');
  });

  it('names one payout day for every instant of a period: the key of one transfer', () => {
    const weekly = { period: 'weekly', day_of_week: 'wednesday', day_of_month: 1 } as const;
    const days = new Set<string>();
    for (let hour = 0; hour < 7 * 24; hour++)
      days.add(day(weekly, new Date(Date.UTC(2026, 11, 2, hour) - 9 * 3_600_000).toISOString()));
    expect([...days]).toEqual(['2026-12-02']);
  });
});
