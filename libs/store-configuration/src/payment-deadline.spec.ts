import {
  extendedDeadline,
  isExpirationPeriod,
  isTimeShift,
  MAXIMUM_EXPIRY_EXTENSIONS,
  paymentDeadline,
} from './payment-deadline';

const rules = { expiration: 'P7D', expiration_time_shift: { enabled: false, value: '23:59:59.000+09:00' } };
const now = new Date('2026-11-25T01:00:00.000Z'); // 10:00 in Tokyo

describe('paymentDeadline', () => {
  it('adds the configuration expiration', () => {
    expect(paymentDeadline(rules, {}, now).toISOString()).toBe('2026-12-02T01:00:00.000Z');
  });

  it("prefers the token's period and shift", () => {
    const deadline = paymentDeadline(
      rules,
      { expiration_period: 'P3D', expiration_time_shift: '18:00+09:00' },
      now,
    );
    expect(deadline.toISOString()).toBe('2026-11-28T09:00:00.000Z');
  });

  it("moves to the configuration's time of day when its shift is enabled", () => {
    const shifted = { ...rules, expiration_time_shift: { enabled: true, value: '23:59:59.000+09:00' } };
    expect(paymentDeadline(shifted, {}, now).toISOString()).toBe('2026-12-02T14:59:59.000Z');
  });

  it('keeps the unshifted instant when the shift would land before now', () => {
    const deadline = paymentDeadline(
      rules,
      { expiration_period: 'PT1H', expiration_time_shift: '09:00+09:00' },
      now,
    );
    expect(deadline.toISOString()).toBe('2026-11-25T02:00:00.000Z');
  });
});

describe('periods and shifts', () => {
  it.each([
    ['P7D', true],
    ['P1DT9H', true],
    ['PT0S', false],
    ['P61D', false],
    ['7 days', false],
  ])('%s is a period: %p', (period, valid) => expect(isExpirationPeriod(period)).toBe(valid));

  it.each([
    ['23:59:59.000+09:00', true],
    ['09:00Z', true],
    ['24:00+09:00', false],
    ['09:00', false],
  ])('%s is a time shift: %p', (shift, valid) => expect(isTimeShift(shift)).toBe(valid));
});

describe('extendedDeadline', () => {
  const limits = { default_extension_period: 'P7D', maximum_extension_period: 'P10D' };
  const current = { deadline: new Date('2026-12-02T01:00:00.000Z'), extensionCount: 0 };

  it('adds the default period, or the one asked for', () => {
    expect(extendedDeadline(limits, current, {}, now)).toEqual({
      deadline: new Date('2026-12-09T01:00:00.000Z'),
    });
    expect(extendedDeadline(limits, current, { period: 'P1D' }, now)).toEqual({
      deadline: new Date('2026-12-03T01:00:00.000Z'),
    });
  });

  it('takes a date up to the maximum period past the current deadline', () => {
    const date = new Date('2026-12-12T01:00:00.000Z');
    expect(extendedDeadline(limits, current, { date }, now)).toEqual({ deadline: date });
    expect(extendedDeadline(limits, current, { date: new Date(date.getTime() + 1) }, now)).toEqual({
      refused: 'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED',
    });
  });

  it('refuses an extension that does not move the deadline later', () => {
    expect(extendedDeadline(limits, current, { date: current.deadline }, now)).toEqual({
      refused: 'POSITIVE_EXPIRY_EXTENSION_REQUIRED',
    });
  });

  it('refuses past the number of extensions', () => {
    expect(
      extendedDeadline(limits, { ...current, extensionCount: MAXIMUM_EXPIRY_EXTENSIONS }, {}, now),
    ).toEqual({ refused: 'MAXIMUM_EXTENSIONS_REACHED' });
  });
});
