import type { LedgerEvent, RefundFactRow, SaleFactRow } from '@kessai/db';
import { postingsOf } from './fact-postings';

const finishedOn = new Date('2026-12-01T05:00:00Z');
const event = (
  eventType: LedgerEvent['eventType'],
  aggregateId: string,
  id = `e-${aggregateId}`,
): LedgerEvent => ({
  id,
  eventType,
  aggregateId,
  createdOn: finishedOn,
});
const charge = (id: string, extra: Partial<SaleFactRow> = {}): SaleFactRow => ({
  id,
  status: 'successful',
  mode: 'test',
  merchantId: 'm',
  storeId: 's',
  chargedAmount: 1000n,
  chargedCurrency: 'JPY',
  feeAmount: 36n,
  feeRatePpm: 36_000,
  feeFlatAmount: null,
  merchantConfiguration: { wait_period: 'P3D' },
  storeConfiguration: {},
  ...extra,
});
const refund = (id: string, status = 'successful'): RefundFactRow => ({
  id,
  status,
  mode: 'test',
  merchantId: 'm',
  storeId: 's',
  amount: 400n,
  currency: 'JPY',
});

describe('postingsOf', () => {
  it('a successful charge is a sale of what it charged, available after its store’s wait in its time zone', () => {
    const [request] = postingsOf([event('charge_finished', 'c1')], [charge('c1')], []);
    expect(request).toMatchObject({
      createdBy: 'ledger-poster',
      causeEventId: 'e-c1',
      posting: { kind: 'sale', sourceId: 'c1', amount: 1000n, feeAmount: 36n, feeRatePpm: 36_000 },
    });
    // 14:00 in Tokyo on the 1st, three days: from midnight of the 5th, Tokyo time
    expect(request.posting.availableOn?.toISOString()).toBe('2026-12-04T15:00:00.000Z');
  });

  it('a store’s own wait_period and time zone win over its merchant’s', () => {
    const [request] = postingsOf(
      [event('charge_finished', 'c1')],
      [charge('c1', { storeConfiguration: { wait_period: 'P0D', display_time_zone: 'Europe/Paris' } })],
      [],
    );
    expect(request.posting.availableOn?.toISOString()).toBe('2026-12-01T23:00:00.000Z');
  });

  it('each charge of a batch is available after its own store’s wait, two stores of one merchant side by side', () => {
    const paris = {
      storeId: 't',
      storeConfiguration: { wait_period: 'P0D', display_time_zone: 'Europe/Paris' },
    };
    const requests = postingsOf(
      ['c1', 'c2', 'c3', 'c4'].map((id) => event('charge_finished', id)),
      [charge('c1'), charge('c2', paris), charge('c3'), charge('c4', paris)],
      [],
    );
    expect(requests.map((r) => r.posting.availableOn?.toISOString())).toEqual([
      '2026-12-04T15:00:00.000Z',
      '2026-12-01T23:00:00.000Z',
      '2026-12-04T15:00:00.000Z',
      '2026-12-01T23:00:00.000Z',
    ]);
  });

  it('a partial capture is a sale of what was captured', () => {
    const [request] = postingsOf(
      [event('charge_finished', 'c1')],
      [charge('c1', { chargedAmount: 600n, feeAmount: 22n })],
      [],
    );
    expect(request.posting).toMatchObject({ amount: 600n, feeAmount: 22n });
  });

  it('posts nothing for charges that took no money, nor for refunds that gave none back', () => {
    const events = ['failed', 'canceled', 'error'].map((status) => event('charge_finished', status));
    const charges = ['failed', 'canceled', 'error'].map((status) => charge(status, { status }));
    expect(postingsOf(events, charges, [])).toEqual([]);
    expect(postingsOf([event('charge_finished', 'z')], [charge('z', { chargedAmount: 0n })], [])).toEqual([]);
    expect(postingsOf([event('refund_finished', 'r1')], [], [refund('r1', 'failed')])).toEqual([]);
    // a fact the poster could not read (gone) posts nothing rather than something wrong
    expect(postingsOf([event('charge_finished', 'missing')], [], [])).toEqual([]);
  });

  it('a successful refund is a refund of its amount', () => {
    const [request] = postingsOf([event('refund_finished', 'r1')], [], [refund('r1')]);
    expect(request.posting).toMatchObject({ kind: 'refund', sourceId: 'r1', amount: -400n, feeAmount: 0n });
  });
});
