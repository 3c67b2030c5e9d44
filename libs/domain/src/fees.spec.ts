import { chargeFee, percentToPpm } from './fees';

describe('percentToPpm', () => {
  it.each([
    [0, 0],
    [3.6, 36_000],
    [3.3, 33_000],
    [2.9999, 29_999],
    [100, 1_000_000],
  ])('%p %% is %p ppm', (percent, ppm) => {
    expect(percentToPpm(percent)).toBe(ppm);
  });

  it.each([-0.1, 100.01, 1.23456, Number.NaN, Infinity])('refuses %p', (percent) => {
    expect(percentToPpm(percent)).toBeNull();
  });
});

describe('chargeFee', () => {
  it('adds the flat amount to the rounded share', () => {
    expect(chargeFee(1200n, { ratePpm: 36_000, flatAmount: 30n })).toBe(43n + 30n); // 43.2 → 43
  });

  it('rounds half up, once, on the whole amount', () => {
    expect(chargeFee(1250n, { ratePpm: 36_000, flatAmount: 0n })).toBe(45n); // 45.0
    expect(chargeFee(125n, { ratePpm: 36_000, flatAmount: 0n })).toBe(5n); // 4.5 → 5
    expect(chargeFee(124n, { ratePpm: 36_000, flatAmount: 0n })).toBe(4n); // 4.464 → 4
    expect(chargeFee(1n, { ratePpm: 499_999, flatAmount: 0n })).toBe(0n); // 0.499999 → 0
    expect(chargeFee(1n, { ratePpm: 500_000, flatAmount: 0n })).toBe(1n); // 0.5 → 1
  });

  it('is exact past 2^53', () => {
    const amount = 9_999_999_999_999_999n;
    expect(chargeFee(amount, { ratePpm: 1, flatAmount: 0n })).toBe(10_000_000_000n); // 9,999,999,999.99… → up
  });

  it('is the flat amount alone at a zero rate, and nothing without terms', () => {
    expect(chargeFee(5000n, { ratePpm: 0, flatAmount: 99n })).toBe(99n);
    expect(chargeFee(5000n, { ratePpm: 0, flatAmount: 0n })).toBe(0n);
  });

  it('never exceeds what was charged (a flat fee on a small partial capture)', () => {
    expect(chargeFee(20n, { ratePpm: 36_000, flatAmount: 30n })).toBe(20n); // 0.72 → 1, + 30 > 20
    expect(chargeFee(31n, { ratePpm: 0, flatAmount: 30n })).toBe(30n);
    expect(chargeFee(0n, { ratePpm: 0, flatAmount: 30n })).toBe(0n);
  });
});
