import { isWaitPeriod } from '@kessai/store-configuration';
import { availableOn } from './availability';

const at = (iso: string) => new Date(iso);

describe('availableOn', () => {
  it('is the start of the local day after the wait, in the merchant’s time zone', () => {
    // 14:00 in Tokyo on 1 December, 3 days: 14:00 on the 4th, available from midnight of the 5th
    expect(availableOn(at('2026-12-01T05:00:00Z'), 'P3D', 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-04T15:00:00.000Z',
    );
    // the same instant in Paris is 06:00 on the 1st: midnight of the 5th in Paris
    expect(availableOn(at('2026-12-01T05:00:00Z'), 'P3D', 'Europe/Paris').toISOString()).toBe(
      '2026-12-04T23:00:00.000Z',
    );
  });

  it('takes a wait ending at midnight as it is', () => {
    expect(availableOn(at('2026-12-01T15:00:00Z'), 'P1D', 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-02T15:00:00.000Z',
    );
  });

  it('counts days on the calendar across a daylight-saving change', () => {
    // 29 March 2026, Paris moves to UTC+2: noon on the 28th plus two days is noon on the 30th
    expect(availableOn(at('2026-03-28T11:00:00Z'), 'P2D', 'Europe/Paris').toISOString()).toBe(
      '2026-03-30T22:00:00.000Z',
    );
  });

  it('makes P0D available from the next local midnight', () => {
    expect(availableOn(at('2026-12-01T05:00:00Z'), 'P0D', 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-01T15:00:00.000Z',
    );
  });
});

describe('isWaitPeriod', () => {
  it.each(['P7D', 'P0D', 'P2W', 'PT36H', 'P1DT12H', 'P90D'])('takes %s', (period) => {
    expect(isWaitPeriod(period)).toBe(true);
  });

  it.each(['P1M', 'P1Y', 'P91D', 'P', 'PT', '7D', 'P-1D', 'P1.5D', ''])('refuses %s', (period) => {
    expect(isWaitPeriod(period)).toBe(false);
  });
});
