import { majorAmount, minorAmount } from './money';

describe('console amounts', () => {
  it('shows minor units in major units', () => {
    expect(majorAmount(1000n, 'JPY')).toBe('1000');
    expect(majorAmount(1250n, 'USD')).toBe('12.50');
    expect(majorAmount(5n, 'USD')).toBe('0.05');
  });

  it('reads a typed amount in minor units, refusing more digits than the currency has', () => {
    expect(minorAmount('1000', 'JPY')).toBe(1000n);
    expect(minorAmount('12.5', 'USD')).toBe(1250n);
    expect(minorAmount('12.505', 'USD')).toBeNull();
    expect(minorAmount('10.5', 'JPY')).toBeNull();
    expect(minorAmount('-1', 'JPY')).toBeNull();
    expect(minorAmount('1e3', 'JPY')).toBeNull();
  });
});
