import {
  applyPatch,
  chargeRefusal,
  contradictoryLimit,
  DEFAULT_CONFIGURATION,
  effectiveConfiguration,
  feeTermsOf,
  merchantConfigurationPatchSchema,
  operatorConfigurationPatchSchema,
  type ChargeUnderRules,
} from './index';

const card: ChargeUnderRules = {
  paymentType: 'card',
  tokenType: 'one_time',
  usageLimit: null,
  cardBrand: 'visa',
  qrGateway: null,
  amount: 1200n,
  currency: 'JPY',
};

describe('merge rule', () => {
  it('is the defaults without layers', () => {
    expect(effectiveConfiguration()).toEqual(DEFAULT_CONFIGURATION);
    expect(effectiveConfiguration({}, null)).toEqual(DEFAULT_CONFIGURATION);
  });

  it('takes nested fields one by one and other keys whole, the store over the merchant', () => {
    const merchant = {
      card_configuration: { forbidden_card_brands: ['jcb'] },
      minimum_charge_amounts: [{ amount: 100, currency: 'JPY' }],
      percent_fee: 3.6,
    };
    const store = {
      card_configuration: { enabled: false },
      minimum_charge_amounts: [{ amount: 5, currency: 'USD' }],
    };
    const config = effectiveConfiguration(merchant, store);
    expect(config.card_configuration).toEqual({
      enabled: false,
      forbidden_card_brands: ['jcb'],
      card_limit: null,
    });
    expect(config.minimum_charge_amounts).toEqual([{ amount: 5, currency: 'USD' }]);
    expect(config.percent_fee).toBe(3.6);
    // a store's empty list lifts its merchant's
    expect(
      effectiveConfiguration(merchant, { card_configuration: { forbidden_card_brands: [] } })
        .card_configuration,
    ).toEqual({ enabled: true, forbidden_card_brands: [], card_limit: null });
  });

  it('applies a patch: a value replaces, null removes, absent keeps', () => {
    const stored = { card_configuration: { enabled: false, forbidden_card_brands: ['jcb'] }, country: 'US' };
    expect(
      applyPatch(stored, { card_configuration: { enabled: null }, country: null, language: 'EN_US' }),
    ).toEqual({ card_configuration: { forbidden_card_brands: ['jcb'] }, language: 'EN_US' });
    expect(
      applyPatch(stored, { card_configuration: { enabled: null, forbidden_card_brands: null } }),
    ).toEqual({
      country: 'US',
    });
  });
});

describe('input', () => {
  it('normalises what it accepts', () => {
    const parsed = operatorConfigurationPatchSchema.parse({
      minimum_charge_amounts: [{ amount: 100, currency: 'jpy' }],
      card_configuration: { forbidden_card_brands: ['jcb', 'jcb'] },
      country: 'jp',
      language: 'en_us',
      display_time_zone: 'Europe/Paris',
      card_brand_percent_fees: { visa: 2.5 },
    });
    expect(parsed).toMatchObject({
      minimum_charge_amounts: [{ amount: 100, currency: 'JPY' }],
      card_configuration: { forbidden_card_brands: ['jcb'] },
      country: 'JP',
      language: 'EN_US',
    });
  });

  it.each([
    [{ minimum_charge_amounts: [{ amount: 0, currency: 'JPY' }] }, 'minimum_charge_amounts.0.amount'],
    [
      {
        maximum_charge_amounts: [
          { amount: 1, currency: 'JPY' },
          { amount: 2, currency: 'jpy' },
        ],
      },
      'maximum_charge_amounts.1.currency',
    ],
    [
      { card_configuration: { forbidden_card_brands: ['amex'] } },
      'card_configuration.forbidden_card_brands.0',
    ],
    [{ card_configuration: { debit_enabled: true } }, 'card_configuration'],
    [{ percent_fee: 1.23456 }, 'percent_fee'],
    [{ display_time_zone: 'Mars/Olympus' }, 'display_time_zone'],
    [
      { subscription_configuration: { failed_charges_to_cancel: 0 } },
      'subscription_configuration.failed_charges_to_cancel',
    ],
  ])('refuses %j at %s', (input, field) => {
    const result = operatorConfigurationPatchSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path.join('.')).toBe(field);
  });

  it('keeps fees to the operator', () => {
    expect(merchantConfigurationPatchSchema.safeParse({ percent_fee: 1 }).success).toBe(false);
    expect(merchantConfigurationPatchSchema.safeParse({ flat_fees: [] }).success).toBe(false);
    expect(merchantConfigurationPatchSchema.safeParse({ country: 'JP' }).success).toBe(true);
  });
});

describe('charge rules', () => {
  const config = (layer: unknown) => effectiveConfiguration(layer);

  it('accepts a charge under the defaults', () => {
    expect(chargeRefusal(DEFAULT_CONFIGURATION, card)).toBeNull();
  });

  it.each([
    [{ card_configuration: { enabled: false } }, card, 'CARD_PROCESSING_DISABLED'],
    [{ card_configuration: { forbidden_card_brands: ['visa'] } }, card, 'CARD_BRAND_NOT_SUPPORTED'],
    [
      { qr_scan_configuration: { enabled: false } },
      { ...card, paymentType: 'qr_scan' },
      'QR_PROCESSING_DISABLED',
    ],
    [
      { qr_scan_configuration: { forbidden_qr_scan_gateways: ['alipay'] } },
      { ...card, paymentType: 'qr_scan', qrGateway: 'alipay' },
      'FORBIDDEN_QR_GATEWAY',
    ],
    [
      { online_configuration: { enabled: false } },
      { ...card, paymentType: 'online' },
      'ONLINE_PROCESSING_DISABLED',
    ],
    [
      { recurring_token_configuration: { recurring_type: 'none' } },
      { ...card, tokenType: 'recurring' },
      'RECURRING_TOKEN_DISABLED',
    ],
    [
      { recurring_token_configuration: { recurring_type: 'bounded' } },
      { ...card, tokenType: 'recurring' },
      'RECURRING_USAGE_LIMIT_REQUIRED',
    ],
    [{ minimum_charge_amounts: [{ amount: 1201, currency: 'JPY' }] }, card, 'CHARGE_AMOUNT_TOO_LOW'],
    [{ maximum_charge_amounts: [{ amount: 1199, currency: 'JPY' }] }, card, 'CHARGE_AMOUNT_TOO_HIGH'],
  ] as const)('%j refuses with %s', (layer, charge, code) => {
    expect(chargeRefusal(config(layer), charge as ChargeUnderRules)?.code).toBe(code);
  });

  it('applies limits per currency only, and bounds inclusively', () => {
    const limits = config({
      minimum_charge_amounts: [{ amount: 1200, currency: 'JPY' }],
      maximum_charge_amounts: [{ amount: 1200, currency: 'JPY' }],
    });
    expect(chargeRefusal(limits, card)).toBeNull();
    expect(chargeRefusal(limits, { ...card, currency: 'USD', amount: 1n })).toBeNull();
    expect(
      chargeRefusal(config({ recurring_token_configuration: { recurring_type: 'bounded' } }), {
        ...card,
        tokenType: 'recurring',
        usageLimit: 'monthly',
      }),
    ).toBeNull();
  });
});

describe('contradictory limits', () => {
  it('finds a currency whose minimum is above its maximum, across layers', () => {
    const merchant = { maximum_charge_amounts: [{ amount: 1000, currency: 'JPY' }] };
    expect(contradictoryLimit(effectiveConfiguration(merchant))).toBeNull();
    expect(
      contradictoryLimit(
        effectiveConfiguration(merchant, { minimum_charge_amounts: [{ amount: 1000, currency: 'JPY' }] }),
      ),
    ).toBeNull();
    expect(
      contradictoryLimit(
        effectiveConfiguration(merchant, { minimum_charge_amounts: [{ amount: 1001, currency: 'JPY' }] }),
      ),
    ).toBe('JPY');
  });
});

describe('fee terms', () => {
  const config = effectiveConfiguration({
    percent_fee: 3.6,
    card_brand_percent_fees: { jcb: 2.95, union_pay: 0 },
    flat_fees: [{ amount: 30, currency: 'JPY' }],
  });

  it("takes the brand's percent, else percent_fee, and the flat fee of the charge's currency", () => {
    expect(feeTermsOf(config, { paymentType: 'card', cardBrand: 'visa', currency: 'JPY' })).toEqual({
      ratePpm: 36_000,
      flatAmount: 30n,
    });
    expect(feeTermsOf(config, { paymentType: 'card', cardBrand: 'jcb', currency: 'USD' })).toEqual({
      ratePpm: 29_500,
      flatAmount: 0n,
    });
    expect(feeTermsOf(config, { paymentType: 'card', cardBrand: 'unionpay', currency: 'JPY' }).ratePpm).toBe(
      0,
    );
    expect(feeTermsOf(config, { paymentType: 'online', cardBrand: null, currency: 'JPY' }).ratePpm).toBe(
      36_000,
    );
  });
});
