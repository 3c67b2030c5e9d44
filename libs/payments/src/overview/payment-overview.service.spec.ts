import type { MerchantsRepository, OverviewRange, PaymentOverviewRepository } from '@kessai/db';
import { ValidationError } from '@kessai/domain';
import { MAX_OVERVIEW_DAYS, PaymentOverviewService } from './payment-overview.service';

// PaymentOverviewService's rules on in-memory repositories: the range (its default in the merchant's
// time zone, its refusals), every day of it filled per currency, the ledger's signed balances as what
// is owed. The statements themselves: test/database/overview-plan.e2e-spec.ts.

const MERCHANT = '00000000-0000-4000-8000-000000000001';

function service(configuration: Record<string, unknown> = {}) {
  const ranges: OverviewRange[] = [];
  const merchants = {
    findById: (id: string) => Promise.resolve(id === MERCHANT ? { id, configuration } : null),
  } as unknown as MerchantsRepository;
  const overview = {
    chargeDays: (range: OverviewRange) => {
      ranges.push(range);
      return Promise.resolve([
        { day: '2026-01-02', currency: 'JPY', successful: 2n, amount: 3500n, unsuccessful: 1n },
        { day: '2026-01-02', currency: 'USD', successful: 1n, amount: 1250n, unsuccessful: 0n },
        // a currency with failures only: in the rate, not in the volume
        { day: '2026-01-03', currency: 'EUR', successful: 0n, amount: 0n, unsuccessful: 1n },
      ]);
    },
    refundDays: () => Promise.resolve([{ day: '2026-01-03', currency: 'JPY', count: 1n, amount: 400n }]),
    storeBalances: () =>
      Promise.resolve([
        { storeId: 's1', storeName: 'A', currency: 'JPY', kind: 'store_pending', balance: -3500n },
        { storeId: 's1', storeName: 'A', currency: 'JPY', kind: 'store_available', balance: 400n },
        { storeId: 's2', storeName: 'B', currency: 'JPY', kind: 'store_pending', balance: -100n },
      ]),
  } as unknown as PaymentOverviewRepository;
  return { overview: new PaymentOverviewService(merchants, overview), ranges };
}

describe('PaymentOverviewService', () => {
  it('reads the last 30 days of the merchant’s time zone by default', async () => {
    const { overview, ranges } = service({ display_time_zone: 'America/New_York' });
    const read = await overview.read({ merchantId: MERCHANT, mode: 'test' });
    expect(read.timeZone).toBe('America/New_York');
    expect(read.days).toHaveLength(30);
    expect([read.days[0], read.days[29]]).toEqual([read.from, read.to]);
    expect(read.to).toBe(read.today);
    expect(ranges[0]).toMatchObject({ timeZone: 'America/New_York', from: read.from, to: read.to });
  });

  it('fills every day of each currency, never adding currencies, and rates every currency together', async () => {
    const { overview } = service();
    const read = await overview.read({
      merchantId: MERCHANT,
      mode: 'live',
      from: '2026-01-01',
      to: '2026-01-03',
    });
    expect(read.timeZone).toBe('Asia/Tokyo');
    expect(read.charges.map((s) => [s.currency, s.count, s.amount])).toEqual([
      ['JPY', 2n, 3500n],
      ['USD', 1n, 1250n],
    ]);
    expect(read.charges[0].days.map((d) => d.amount)).toEqual([0n, 3500n, 0n]);
    expect(read.refunds[0].days.map((d) => d.count)).toEqual([0n, 0n, 1n]);
    expect(read.outcomes).toEqual([
      { day: '2026-01-01', successful: 0n, finished: 0n },
      { day: '2026-01-02', successful: 3n, finished: 4n },
      { day: '2026-01-03', successful: 0n, finished: 1n },
    ]);
    expect([read.successful, read.finished]).toEqual([3n, 5n]);
  });

  it('answers the ledger’s balances as what each store and the merchant are owed', async () => {
    const read = await service().overview.read({ merchantId: MERCHANT, mode: 'test' });
    expect(read.balances).toEqual([{ currency: 'JPY', pending: 3600n, available: -400n }]);
    expect(read.stores).toEqual([
      { storeId: 's1', storeName: 'A', balances: [{ currency: 'JPY', pending: 3500n, available: -400n }] },
      { storeId: 's2', storeName: 'B', balances: [{ currency: 'JPY', pending: 100n, available: 0n }] },
    ]);
  });

  it.each([
    [{ from: '2026-02-30' }, 'from', 'INVALID_FORMAT_DATE'],
    [{ to: '26-01-01' }, 'to', 'INVALID_FORMAT_DATE'],
    [{ from: '2026-02-01', to: '2026-01-31' }, 'to', 'NOT_WITHIN_BOUNDS'],
    [{ from: '2025-01-01', to: '2026-01-02' }, 'from', 'NOT_WITHIN_BOUNDS'],
  ])('refuses the range %j', async (range, field, reason) => {
    const read = service().overview.read({ merchantId: MERCHANT, mode: 'test', ...range });
    await expect(read).rejects.toBeInstanceOf(ValidationError);
    await expect(read).rejects.toMatchObject({ errors: [{ field, reason }] });
  });

  it(`takes a range of ${MAX_OVERVIEW_DAYS} days, and a start alone as 30 days from it`, async () => {
    const { overview } = service();
    const widest = await overview.read({
      merchantId: MERCHANT,
      mode: 'test',
      from: '2024-01-01',
      to: '2024-12-31',
    });
    expect(widest.days).toHaveLength(MAX_OVERVIEW_DAYS);
    const started = await overview.read({ merchantId: MERCHANT, mode: 'test', from: '2024-03-01' });
    expect([started.from, started.to]).toEqual(['2024-03-01', '2024-03-30']);
  });
});
