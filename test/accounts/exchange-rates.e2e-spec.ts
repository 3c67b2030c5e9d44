// exchangeRates.calculate through the official univapay-node SDK: amounts at the rates the operator
// set with the admin CLI (exchange-rate:set; docs/exchange-rates.md), integer arithmetic on each
// currency's minor units, and a pair without a rate refused in the error envelope.
import type SDK from 'univapay-node';
import { sdkError, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: {} } });

let shop: SDK;

beforeAll(() => {
  shop = suite.sdk.shop;
});

describe('exchange rates through the SDK', () => {
  it('refuses a pair the operator set no rate for: 400 UNSUPPORTED_CURRENCY on `to`', async () => {
    expect(
      await sdkError(shop.exchangeRates.calculate({ amount: 1000, currency: 'JPY', to: 'USD' })),
    ).toEqual(
      expect.objectContaining({
        code: 'UNSUPPORTED_CURRENCY',
        httpCode: 400,
        errors: [{ field: 'to', reason: 'UNSUPPORTED_CURRENCY' }],
      }),
    );
  });

  it("converts at the operator's rate, with each currency's minor units, rounded half up", async () => {
    const set = await suite.cli(
      'exchange-rate:set',
      '--from',
      'jpy',
      '--to',
      'USD',
      '--rate',
      '0.006700',
      '--by',
      'ops-ken',
    );
    expect(set).toEqual({
      from: 'JPY',
      to: 'USD',
      rate: '0.0067',
      set_by: 'ops-ken',
      set_on: expect.any(String),
    });
    // ¥1,000 → $6.70
    expect(await shop.exchangeRates.calculate({ amount: 1000, currency: 'JPY', to: 'USD' })).toEqual({
      amount: 670,
      currency: 'USD',
      amountFormatted: 6.7,
    });
    // ¥75 → $0.5025: 50 cents
    expect((await shop.exchangeRates.calculate({ amount: 75, currency: 'JPY', to: 'usd' })).amount).toBe(50);

    // only the pair set: its inverse has a rate of its own
    expect(
      await sdkError(shop.exchangeRates.calculate({ amount: 100, currency: 'USD', to: 'JPY' })),
    ).toMatchObject({
      code: 'UNSUPPORTED_CURRENCY',
    });
    await suite.cli(
      'exchange-rate:set',
      '--from',
      'USD',
      '--to',
      'JPY',
      '--rate',
      '149.5',
      '--by',
      'ops-ken',
    );
    // $12.50 → ¥1,868.75: ¥1,869
    expect((await shop.exchangeRates.calculate({ amount: 1250, currency: 'USD', to: 'JPY' })).amount).toBe(
      1869,
    );

    // a new rate replaces the pair's, and says who set it
    await suite.cli(
      'exchange-rate:set',
      '--from',
      'JPY',
      '--to',
      'USD',
      '--rate',
      '0.0068',
      '--by',
      'ops-mei',
    );
    expect((await shop.exchangeRates.calculate({ amount: 1000, currency: 'JPY', to: 'USD' })).amount).toBe(
      680,
    );
    expect(await suite.cli('exchange-rate:list')).toEqual([
      expect.objectContaining({ from: 'JPY', to: 'USD', rate: '0.0068', set_by: 'ops-mei' }),
      expect.objectContaining({ from: 'USD', to: 'JPY', rate: '149.5', set_by: 'ops-ken' }),
    ]);
  });

  it('answers the amount itself in its own currency', async () => {
    expect(await shop.exchangeRates.calculate({ amount: 1234, currency: 'EUR', to: 'EUR' })).toEqual({
      amount: 1234,
      currency: 'EUR',
      amountFormatted: 12.34,
    });
  });

  it('refuses bad input with the field named', async () => {
    const bad = await sdkError(shop.exchangeRates.calculate({ amount: 10.5, currency: 'XXY', to: 'USD' }));
    expect(bad).toMatchObject({ code: 'VALIDATION_ERROR', httpCode: 400 });
    expect(bad.errors.map((error) => (error as { field: string }).field).sort()).toEqual([
      'amount',
      'currency',
    ]);
  });

  it('refuses a rate that is not a positive decimal, or a pair of one currency, at the CLI', async () => {
    for (const rate of ['0', '-1', '1e3', 'abc'])
      await expect(
        suite.cli('exchange-rate:set', '--from', 'JPY', '--to', 'EUR', '--rate', rate, '--by', 'ops'),
      ).rejects.toThrow('--rate');
    await expect(
      suite.cli('exchange-rate:set', '--from', 'JPY', '--to', 'jpy', '--rate', '1', '--by', 'ops'),
    ).rejects.toThrow('two currencies');
    await expect(
      suite.cli('exchange-rate:set', '--from', 'JPY', '--to', 'ZZZ', '--rate', '1', '--by', 'ops'),
    ).rejects.toThrow('--to');
  });
});
