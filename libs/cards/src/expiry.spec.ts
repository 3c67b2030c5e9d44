import { cardExpiresAt, checkExpiry, checkExpiryMonth, checkExpiryYear } from './expiry';

const NOW = new Date('2025-06-15T10:00:00Z');

describe('checkExpiryMonth / checkExpiryYear', () => {
  it.each([
    [1, 1],
    [12, 12],
    ['09', 9],
    ['9', 9],
    [' 07 ', 7],
  ])('month %j → %i', (input, month) => {
    expect(checkExpiryMonth(input)).toEqual({ ok: true, value: month });
  });

  it.each([
    [0, 'INVALID_CARD_EXPIRATION'],
    [13, 'INVALID_CARD_EXPIRATION'],
    ['13', 'INVALID_CARD_EXPIRATION'],
    ['009', 'INVALID_FORMAT'],
    ['ab', 'INVALID_FORMAT'],
    [1.5, 'INVALID_FORMAT'],
    [-1, 'INVALID_FORMAT'],
    [true, 'INVALID_FORMAT'],
    [undefined, 'REQUIRED_VALUE'],
    [null, 'REQUIRED_VALUE'],
    ['', 'REQUIRED_VALUE'],
  ])('month %j → %s', (input, reason) => {
    expect(checkExpiryMonth(input)).toEqual({ ok: false, reason });
  });

  it.each([
    [26, 2026],
    ['26', 2026],
    ['00', 2000],
    [2031, 2031],
    ['2031', 2031],
  ])('year %j → %i (2 digits are 20yy)', (input, year) => {
    expect(checkExpiryYear(input)).toEqual({ ok: true, value: year });
  });

  it.each([5, '5', '203', 20310, 'twenty'])('year %j is INVALID_FORMAT', (input) => {
    expect(checkExpiryYear(input)).toEqual({ ok: false, reason: 'INVALID_FORMAT' });
  });
});

describe('checkExpiry', () => {
  it('accepts the current month and later', () => {
    expect(checkExpiry(6, 2025, { now: NOW })).toEqual({ ok: true, month: 6, year: 2025 });
    expect(checkExpiry('07', '25', { now: NOW })).toEqual({ ok: true, month: 7, year: 2025 });
    expect(checkExpiry(1, 2030, { now: NOW })).toEqual({ ok: true, month: 1, year: 2030 });
  });

  it('refuses a past month of this year on exp_month, a past year on exp_year', () => {
    expect(checkExpiry(5, 2025, { now: NOW })).toEqual({
      ok: false,
      errors: [{ field: 'exp_month', reason: 'INVALID_CARD_EXPIRATION' }],
    });
    expect(checkExpiry(12, 2024, { now: NOW })).toEqual({
      ok: false,
      errors: [{ field: 'exp_year', reason: 'INVALID_CARD_EXPIRATION' }],
    });
  });

  it('keeps a card valid through the end of its expiry month in every time zone', () => {
    expect(cardExpiresAt(2025, 6).toISOString()).toBe('2025-07-01T12:00:00.000Z');
    const endOfJune = { now: new Date('2025-07-01T11:59:59Z') };
    expect(checkExpiry(6, 2025, endOfJune).ok).toBe(true);
    expect(checkExpiry(6, 2025, { now: new Date('2025-07-01T12:00:00Z') }).ok).toBe(false);
    // December rolls into the next year
    expect(checkExpiry(12, 2025, { now: new Date('2026-01-01T06:00:00Z') }).ok).toBe(true);
  });

  it('refuses a year too far ahead', () => {
    expect(checkExpiry(1, 2045, { now: NOW }).ok).toBe(true);
    expect(checkExpiry(1, 2046, { now: NOW })).toEqual({
      ok: false,
      errors: [{ field: 'exp_year', reason: 'INVALID_CARD_EXPIRATION' }],
    });
    expect(checkExpiry(1, 2046, { now: NOW, maxYearsAhead: 30 }).ok).toBe(true);
  });

  it('reports both fields when both are malformed', () => {
    expect(checkExpiry('x', undefined, { now: NOW })).toEqual({
      ok: false,
      errors: [
        { field: 'exp_month', reason: 'INVALID_FORMAT' },
        { field: 'exp_year', reason: 'REQUIRED_VALUE' },
      ],
    });
  });
});
