import { BusinessRuleError, ValidationError } from '@kessai/domain';
import { inspect } from 'node:util';
import { assertValidCard, type CardInput, validateCard } from './validate-card';

const NOW = new Date('2025-06-15T10:00:00Z');
const valid: CardInput = {
  cardholder: 'Taro Yamada',
  card_number: '4000056655665556',
  exp_month: '09',
  exp_year: '28',
  cvv: '123',
};
const test = { mode: 'test' as const, now: NOW };

function errorsOf(input: CardInput, options = test) {
  const result = validateCard(input, options);
  if (result.ok) throw new Error('expected validation errors');
  return result.errors;
}

describe('validateCard', () => {
  it('returns the card with a normalised number, a 4-digit year and the trimmed name', () => {
    const result = validateCard(
      { ...valid, card_number: '4000 0566 5566 5556', cardholder: '  Taro   Yamada ' },
      test,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.card.cardNumber.reveal()).toBe('4000056655665556');
    expect(result.card.summary()).toEqual({
      cardholder: 'Taro Yamada',
      exp_month: 9,
      exp_year: 2028,
      last_four: '5556',
      brand: 'visa',
      card_bin: '400005',
      card_type: 'debit',
      country: 'JP',
    });
    expect(result.card.revealCvv()).toBe('123');
  });

  it.each<[string, CardInput, { field: string; reason: string }[]]>([
    [
      'missing number',
      { ...valid, card_number: undefined },
      [{ field: 'data.card_number', reason: 'REQUIRED_VALUE' }],
    ],
    [
      'number with letters',
      { ...valid, card_number: '4000x56655665556' },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'number sent as a JSON number',
      { ...valid, card_number: 4000056655665556 },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'Luhn failure',
      { ...valid, card_number: '4000056655665557' },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'too short',
      { ...valid, card_number: '42424242424' },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'too long',
      { ...valid, card_number: '42424242424242424242' },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'visa of 15 digits',
      { ...valid, card_number: '411111111111116' },
      [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    ],
    [
      'unknown brand',
      { ...valid, card_number: '9000000000000001' },
      [{ field: 'data.card_number', reason: 'CARD_BRAND_NOT_SUPPORTED' }],
    ],
    [
      'past month',
      { ...valid, exp_month: 5, exp_year: 2025 },
      [{ field: 'data.exp_month', reason: 'INVALID_CARD_EXPIRATION' }],
    ],
    [
      'month 13',
      { ...valid, exp_month: 13 },
      [{ field: 'data.exp_month', reason: 'INVALID_CARD_EXPIRATION' }],
    ],
    [
      'past year',
      { ...valid, exp_year: 24 },
      [{ field: 'data.exp_year', reason: 'INVALID_CARD_EXPIRATION' }],
    ],
    ['missing cvv', { ...valid, cvv: undefined }, [{ field: 'data.cvv', reason: 'REQUIRED_VALUE' }]],
    ['cvv of 4 digits on visa', { ...valid, cvv: '1234' }, [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
    ['cvv of 2 digits', { ...valid, cvv: '12' }, [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
    ['cvv with letters', { ...valid, cvv: '12a' }, [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
    [
      'missing cardholder',
      { ...valid, cardholder: ' ' },
      [{ field: 'data.cardholder', reason: 'REQUIRED_VALUE' }],
    ],
    [
      'cardholder with digits',
      { ...valid, cardholder: 'Taro 4111111111111111' },
      [{ field: 'data.cardholder', reason: 'INVALID_FORMAT' }],
    ],
    [
      'cardholder too long',
      { ...valid, cardholder: 'A'.repeat(65) },
      [{ field: 'data.cardholder', reason: 'INVALID_FORMAT_LENGTH' }],
    ],
  ])('%s', (_name, input, errors) => {
    expect(errorsOf(input)).toEqual(errors);
  });

  it('reports every bad field at once, in request order', () => {
    expect(errorsOf({ card_number: '1234', exp_month: 0, exp_year: 'x', cvv: '' })).toEqual([
      { field: 'data.cardholder', reason: 'REQUIRED_VALUE' },
      { field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' },
      { field: 'data.exp_month', reason: 'INVALID_CARD_EXPIRATION' },
      { field: 'data.exp_year', reason: 'INVALID_FORMAT' },
      { field: 'data.cvv', reason: 'REQUIRED_VALUE' },
    ]);
  });

  it('asks American Express for 4 CVV digits', () => {
    const amex = { ...valid, card_number: '378282246310005' };
    expect(validateCard({ ...amex, cvv: '1234' }, test).ok).toBe(true);
    expect(errorsOf({ ...amex, cvv: '123' })).toEqual([{ field: 'data.cvv', reason: 'INVALID_CVV' }]);
  });

  it('accepts non-Latin names and name punctuation', () => {
    for (const cardholder of ["O'Brien-Smith Jr.", 'ヤマダ タロウ', '山田 太郎', 'Zoë Ångström']) {
      expect(validateCard({ ...valid, cardholder }, test).ok).toBe(true);
    }
  });

  it('allows a missing CVV when the caller does not require one, still checking a given one', () => {
    const result = validateCard({ ...valid, cvv: undefined }, { ...test, cvvRequired: false });
    expect(result.ok && result.card.hasCvv).toBe(false);
    expect(errorsOf({ ...valid, cvv: '1' }, { ...test, cvvRequired: false } as typeof test)).toEqual([
      { field: 'data.cvv', reason: 'INVALID_CVV' },
    ]);
  });

  it('refuses a brand the store does not accept', () => {
    const result = validateCard(
      { ...valid, card_number: '3530111333300000' },
      { ...test, acceptedBrands: ['visa'] },
    );
    expect(result).toEqual({
      ok: false,
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'data.card_number', reason: 'CARD_BRAND_NOT_SUPPORTED' }],
    });
  });

  it('uses the given field prefix', () => {
    expect(errorsOf({ ...valid, cvv: 'x' }, { ...test, fieldPrefix: '' } as typeof test)).toEqual([
      { field: 'cvv', reason: 'INVALID_CVV' },
    ]);
  });

  describe('test and live mode', () => {
    const realLooking = { ...valid, card_number: '4539578763621486' };

    it('test mode accepts catalogue cards and any other valid number, as UnivaPay does', () => {
      expect(validateCard(valid, test).ok).toBe(true);
      expect(validateCard(realLooking, test).ok).toBe(true);
      expect(validateCard(realLooking, { ...test, mode: 'live_test' }).ok).toBe(true);
      // validity still applies: Luhn, and the brand's length (Visa has no 15-digit numbers)
      expect(errorsOf({ ...realLooking, card_number: '4539578763621487' })).toEqual([
        { field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' },
      ]);
      expect(errorsOf({ ...realLooking, card_number: '453957876362149' })).toEqual([
        { field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' },
      ]);
    });

    it('live mode refuses test cards with NO_TEST_CARD_IN_LIVE_MODE and accepts others', () => {
      const live = { mode: 'live' as const, now: NOW };
      expect(validateCard(valid, live)).toEqual({
        ok: false,
        code: 'NO_TEST_CARD_IN_LIVE_MODE',
        errors: [{ field: 'data.card_number', reason: 'NO_TEST_CARD_IN_LIVE_MODE' }],
      });
      expect(validateCard(realLooking, live).ok).toBe(true);
    });

    it('assertValidCard throws the domain errors the gateway renders', () => {
      expect(() => assertValidCard(valid, { mode: 'live', now: NOW })).toThrow(BusinessRuleError);
      expect(() => assertValidCard({ ...valid, cvv: 'x' }, test)).toThrow(ValidationError);
      expect(assertValidCard(valid, test).brand).toBe('visa');
    });
  });

  it('never puts the card number or CVV into errors', () => {
    const pan = '4000056655665557';
    for (const mode of ['test', 'live'] as const) {
      const inputs: CardInput[] = [
        { ...valid, card_number: pan, cvv: '98x' },
        { ...valid, cardholder: pan },
        { ...valid, card_number: '4242424242424242' },
      ];
      for (const input of inputs) {
        const result = validateCard(input, { mode, now: NOW });
        const text = JSON.stringify(result) + inspect(result, { depth: 10 });
        expect(text).not.toContain(pan);
        expect(text).not.toContain('4242424242424242');
        expect(text).not.toContain('98x');
        try {
          assertValidCard(input, { mode, now: NOW });
        } catch (error) {
          const thrown = `${String(error)} ${inspect(error, { depth: 10 })} ${JSON.stringify(error)}`;
          expect(thrown).not.toContain(pan);
          expect(thrown).not.toContain('4242424242424242');
        }
      }
    }
  });
});
