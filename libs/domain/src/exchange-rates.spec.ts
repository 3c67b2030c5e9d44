import { convertAmount, normalizeExchangeRate, parseExchangeRate } from './exchange-rates';

describe('exchange rates', () => {
  it('reads a rate exactly, as an integer and its scale', () => {
    expect(parseExchangeRate('0.0067')).toEqual({ units: 67n, scale: 4 });
    expect(parseExchangeRate('149.5')).toEqual({ units: 1495n, scale: 1 });
    expect(parseExchangeRate('1')).toEqual({ units: 1n, scale: 0 });
  });

  it('refuses what is not a positive plain decimal', () => {
    for (const text of ['0', '0.000', '-1', '1e3', '1.', '.5', ' 1', '1.1234567890123', 'abc', ''])
      expect(parseExchangeRate(text)).toBeNull();
  });

  it('writes a rate canonically', () => {
    expect(normalizeExchangeRate('0010.50')).toBe('10.5');
    expect(normalizeExchangeRate('0.006700')).toBe('0.0067');
    expect(normalizeExchangeRate('150.000')).toBe('150');
    expect(normalizeExchangeRate('0')).toBeNull();
  });

  it("converts minor units with each currency's exponent", () => {
    // ¥1,000 at 0.0067 is $6.70
    expect(convertAmount(1000n, 'JPY', 'USD', '0.0067')).toBe(670n);
    // $12.50 at 149.5 is ¥1,868.75: ¥1,869
    expect(convertAmount(1250n, 'USD', 'JPY', '149.5')).toBe(1869n);
    // KWD has three decimals: 1.000 KWD at 3.25 is $3.25
    expect(convertAmount(1000n, 'KWD', 'USD', '3.25')).toBe(325n);
    // $1.00 at 0.307 is 0.307 KWD (307 fils)
    expect(convertAmount(100n, 'USD', 'KWD', '0.307')).toBe(307n);
  });

  it('rounds half up, once, at the end', () => {
    // ¥1 at 0.005 is $0.005: half a cent, up
    expect(convertAmount(1n, 'JPY', 'USD', '0.005')).toBe(1n);
    // ¥1 at 0.004999 stays below half a cent
    expect(convertAmount(1n, 'JPY', 'USD', '0.004999')).toBe(0n);
    // no float drift: ¥9,999,999,999 at 0.006712345678
    expect(convertAmount(9_999_999_999n, 'JPY', 'USD', '0.006712345678')).toBe(6_712_345_677n);
  });
});
