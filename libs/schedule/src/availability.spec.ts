import { isWaitPeriod } from '@kessai/store-configuration';
import { availabilityMemo, availableOn } from './availability';

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

describe('availabilityMemo', () => {
  const zones = ['Asia/Tokyo', 'Europe/Paris', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
  // each wait with how far before a minute of interest an instant is for at + wait to land on it
  const periods: [string, number][] = [
    ['P0D', 0],
    ['P1D', 1],
    ['P3D', 3],
    ['P2W', 14],
    ['PT36H', 1.5],
    ['P1DT12H', 1.5],
    ['PT22H30M', 0.9375],
    ['nonsense', 7], // the default wait
  ];

  it('answers what availableOn answers, for every instant of minutes where a day starts or the offset changes', () => {
    // the minutes around a local midnight and around daylight-saving changes (Paris and New York
    // forward and back, Lord Howe's half hour), as the instant itself and as the instant plus the
    // wait, every 2,999 ms across three minutes
    const minutes = [
      '2026-12-01T14:58:30Z', // Tokyo's midnight
      '2026-03-29T00:58:30Z', // Paris forward
      '2026-10-25T00:58:30Z', // Paris back
      '2026-03-08T06:58:30Z', // New York forward
      '2026-11-01T05:58:30Z', // New York back
      '2026-04-04T14:58:30Z', // Lord Howe back (half an hour)
      '2026-12-03T18:13:30Z', // Kathmandu's midnight (UTC+5:45)
    ];
    const wrong: string[] = [];
    for (const zone of zones)
      for (const [period, days] of periods) {
        const memo = availabilityMemo();
        for (const minute of minutes)
          for (const shift of [0, days * 86_400_000]) {
            const from = Date.parse(minute) - shift;
            for (let t = from; t < from + 3 * 60_000; t += 2_999) {
              const at = new Date(t);
              const got = memo(at, period, zone).toISOString();
              const want = availableOn(at, period, zone).toISOString();
              if (got !== want) wrong.push(`${zone} ${period} ${at.toISOString()}: ${got}, not ${want}`);
            }
          }
      }
    expect(wrong).toEqual([]);
  });

  it('answers a Date of its own each time', () => {
    const memo = availabilityMemo();
    const first = memo(at('2026-12-01T05:00:00Z'), 'P3D', 'Asia/Tokyo');
    first.setTime(0);
    expect(memo(at('2026-12-01T05:00:01Z'), 'P3D', 'Asia/Tokyo').toISOString()).toBe(
      '2026-12-04T15:00:00.000Z',
    );
  });
});
