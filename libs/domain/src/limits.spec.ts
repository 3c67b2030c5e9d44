import { ACTIVE_LIMITS, DAILY_QUOTAS, utcDay } from './limits';

describe('resource limits', () => {
  it('holds the numbers of the spec', () => {
    expect(ACTIVE_LIMITS).toEqual({ app_token: 20, webhook: 20 });
    expect(DAILY_QUOTAS).toEqual({ password_reset: 5, test_charge: 1440 });
  });
});

describe('utcDay', () => {
  it('is the UTC calendar day, whatever the local offset of the instant was written in', () => {
    expect(utcDay(new Date('2026-03-01T00:00:00.000Z'))).toBe('2026-03-01');
    expect(utcDay(new Date('2026-02-28T23:59:59.999Z'))).toBe('2026-02-28');
    // 08:30 in Tokyo on March 1st is still February 28th in UTC
    expect(utcDay(new Date('2026-03-01T08:30:00+09:00'))).toBe('2026-02-28');
    expect(utcDay(new Date('2028-02-29T12:00:00Z'))).toBe('2028-02-29');
  });

  it('refuses an invalid date rather than counting it under a made-up day', () => {
    expect(() => utcDay(new Date('nope'))).toThrow(RangeError);
  });
});
