import { cardLimitWindowStart, isCardLimitDuration } from './card-limit';

describe('card_limit durations', () => {
  it.each(['P1D', 'P7D', 'P1W', 'P1M', 'P30D', 'P1Y', 'P1M15D', 'P366D'])('takes %s', (period) => {
    expect(isCardLimitDuration(period)).toBe(true);
  });

  it.each(['', 'P', 'P0D', 'PT1H', 'P1DT1H', 'P367D', 'P2Y', 'P13M', '1D', 'monthly', 'P-1D', 'p1d'])(
    'refuses %p',
    (period) => {
      expect(isCardLimitDuration(period)).toBe(false);
    },
  );

  it('opens the window the duration before now, months on the calendar', () => {
    const now = new Date('2026-03-31T10:00:00Z');
    const limit = (duration: string) => ({ amount: 1, currency: 'JPY', duration });
    expect(cardLimitWindowStart(limit('P1D'), now).toISOString()).toBe('2026-03-30T10:00:00.000Z');
    expect(cardLimitWindowStart(limit('P1W'), now).toISOString()).toBe('2026-03-24T10:00:00.000Z');
    // 31 March less a month is 28 February (the shorter month's last day)
    expect(cardLimitWindowStart(limit('P1M'), now).toISOString()).toBe('2026-02-28T10:00:00.000Z');
  });
});
