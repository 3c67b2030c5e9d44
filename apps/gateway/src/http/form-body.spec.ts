import { z } from 'zod';
import { merchantConfigurationPatchSchema } from '@kessai/store-configuration';
import { coerceForm, FormFile, nest } from './form-body';

const parts = (entries: Record<string, string>) =>
  Object.entries(entries).map(([name, value]) => ({ name, value }));

describe('nest: the SDK’s flattened form keys back into objects', () => {
  it('rebuilds objects and arrays from `a.b` and `a[0]`', () => {
    expect(
      nest(
        parts({
          name: 'Shop',
          'configuration.card_configuration.enabled': 'false',
          'configuration.card_configuration.forbidden_card_brands[0]': 'visa',
          'configuration.card_configuration.forbidden_card_brands[1]': 'jcb',
          'configuration.minimum_charge_amounts[0].amount': '500',
          'configuration.minimum_charge_amounts[0].currency': 'JPY',
        }),
      ),
    ).toEqual({
      name: 'Shop',
      configuration: {
        card_configuration: { enabled: 'false', forbidden_card_brands: ['visa', 'jcb'] },
        minimum_charge_amounts: [{ amount: '500', currency: 'JPY' }],
      },
    });
  });

  it('keeps a file as the FormFile it is', () => {
    const logo = new FormFile(Buffer.from('png'), false);
    expect(nest([{ name: 'logo', value: logo }]).logo).toBe(logo);
  });

  it.each([
    ['a prototype key', { '__proto__.x': '1' }],
    ['a constructor key', { 'a.constructor.prototype': '1' }],
    ['a broken path', { 'a[0': '1' }],
    ['an empty segment', { 'a..b': '1' }],
    ['a name given twice (as parent, then value)', { 'a.b': '1', a: '2' }],
    ['a value, then a parent', { a: '1', 'a.b': '2' }],
    ['an array read as an object', { 'a[0]': '1', 'a.b': '2' }],
    ['an object read as an array', { 'a.b': '1', 'a[0]': '2' }],
  ])('refuses %s (VALIDATION_ERROR on that field)', (_case, entries) => {
    expect(() => nest(parts(entries))).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('refuses a name given twice', () => {
    expect(() => nest([...parts({ name: 'a' }), ...parts({ name: 'b' })])).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR' }),
    );
  });
});

describe('coerceForm: string values typed as the schema expects', () => {
  it('types booleans and numbers through optional, nullable, refined and transformed schemas', () => {
    const form = nest(
      parts({
        'card_configuration.enabled': 'false',
        'card_configuration.forbidden_card_brands[0]': 'visa',
        'subscription_configuration.failed_charges_to_cancel': '3',
        'subscription_configuration.suspend_on_cancel': 'true',
        'minimum_charge_amounts[0].amount': '500',
        'minimum_charge_amounts[0].currency': 'jpy',
        country: 'jp',
      }),
    );
    expect(
      merchantConfigurationPatchSchema.parse(coerceForm(merchantConfigurationPatchSchema, form)),
    ).toEqual({
      card_configuration: { enabled: false, forbidden_card_brands: ['visa'] },
      subscription_configuration: { failed_charges_to_cancel: 3, suspend_on_cancel: true },
      minimum_charge_amounts: [{ amount: 500, currency: 'JPY' }],
      country: 'JP',
    });
  });

  it('leaves what does not read as the expected type for the schema to refuse', () => {
    const schema = z.object({ on: z.boolean(), count: z.number(), name: z.string() }).strict();
    const coerced = coerceForm(schema, { on: 'yes', count: '12abc', name: '123', extra: 'x' });
    expect(coerced).toEqual({ on: 'yes', count: '12abc', name: '123', extra: 'x' });
    expect(schema.safeParse(coerced).success).toBe(false);
    // a text field stays text even when it reads as a number
    expect(coerceForm(schema, { on: 'true', count: '-1.5e2', name: '123' })).toEqual({
      on: true,
      count: -150,
      name: '123',
    });
  });

  it('does not reach the prototype for a key the schema lacks', () => {
    const schema = z.object({ a: z.number() }).strict();
    expect(coerceForm(schema, { toString: '1', a: '2' })).toEqual({ toString: '1', a: 2 });
  });
});
