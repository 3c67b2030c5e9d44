// The payout schedule in the merchant's configuration (issue 31, payouts): `transfer_schedule` and
// `min_transfer_payout`, set by the operator on the merchant's layer only, read through the official
// univapay-node SDK (merchants.me, stores.get) with the SDK's field names and enums; refused to the
// merchant's own calls and on a store's layer (docs/configuration.md, docs/ledger.md).
import { DayOfWeek, TransferPeriod, WeekOfMonth } from 'univapay-node';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: {} } });

async function me() {
  const token = await suite.env.merchantToken(suite.merchants.shop);
  return sdkFor(suite.url, token).merchants.me();
}

describe('the payout schedule in the merchant configuration', () => {
  it('is monthly on the 1st with no minimum until the operator says otherwise', async () => {
    const { configuration } = await me();
    expect(configuration.transferSchedule).toEqual({
      // the SDK's TransferScheduleItem carries it: the top-level wait_period's value
      waitPeriod: 'P7D',
      period: TransferPeriod.MONTHLY,
      fullPeriodRequired: false,
      dayOfWeek: DayOfWeek.MONDAY,
      weekOfMonth: WeekOfMonth.FIRST,
      dayOfMonth: 1,
    });
    expect(configuration.minTransferPayout).toEqual({ amount: 0, currency: 'JPY' });
  });

  it('is the operator’s to set, field by field, and shows on the merchant and its stores', async () => {
    const merchantId = suite.merchants.shop.merchant.id;
    const answer = await suite.cli(
      'merchant:configure',
      '--merchant',
      merchantId,
      '--set',
      JSON.stringify({
        transfer_schedule: { period: 'weekly', day_of_week: 'friday' },
        min_transfer_payout: { amount: 5000, currency: 'jpy' },
      }),
    );
    expect(answer.configuration).toMatchObject({
      transfer_schedule: { period: 'weekly', day_of_week: 'friday' },
      min_transfer_payout: { amount: 5000, currency: 'JPY' },
    });
    const { configuration } = await me();
    expect(configuration.transferSchedule).toEqual({
      waitPeriod: 'P7D',
      period: TransferPeriod.WEEKLY,
      fullPeriodRequired: false,
      dayOfWeek: DayOfWeek.FRIDAY,
      weekOfMonth: WeekOfMonth.FIRST,
      dayOfMonth: 1,
    });
    expect(configuration.minTransferPayout).toEqual({ amount: 5000, currency: 'JPY' });
    const store = await suite.sdk.shop.stores.get(suite.merchants.shop.store.id);
    expect(store.configuration.minTransferPayout).toEqual({ amount: 5000, currency: 'JPY' });

    // a field set to null follows the defaults again
    await suite.cli(
      'merchant:configure',
      '--merchant',
      merchantId,
      '--set',
      JSON.stringify({ transfer_schedule: { day_of_week: null } }),
    );
    expect((await me()).configuration.transferSchedule?.dayOfWeek).toBe(DayOfWeek.MONDAY);
  });

  it('refuses values outside the SDK’s enums with its reasons', async () => {
    const merchantId = suite.merchants.shop.merchant.id;
    const configure = (set: unknown) =>
      suite.cli('merchant:configure', '--merchant', merchantId, '--set', JSON.stringify(set));
    await expect(configure({ transfer_schedule: { period: 'daily' } })).rejects.toThrow(
      /transfer_schedule\.period/,
    );
    await expect(configure({ transfer_schedule: { day_of_week: 'funday' } })).rejects.toThrow(
      /transfer_schedule\.day_of_week/,
    );
    await expect(configure({ transfer_schedule: { day_of_month: 32 } })).rejects.toThrow(
      /transfer_schedule\.day_of_month/,
    );
    await expect(configure({ transfer_schedule: { weekly_payout_day: 'monday' } })).rejects.toThrow(
      /weekly_payout_day/,
    );
    await expect(configure({ min_transfer_payout: { amount: -1, currency: 'JPY' } })).rejects.toThrow(
      /min_transfer_payout\.amount/,
    );
  });

  it('is the merchant’s layer only: a store’s is refused, and the merchant’s own calls may not set it', async () => {
    await expect(
      suite.cli(
        'store:configure',
        '--store',
        suite.merchants.shop.store.id,
        '--set',
        JSON.stringify({ min_transfer_payout: { amount: 1, currency: 'JPY' } }),
      ),
    ).rejects.toThrow(/min_transfer_payout is the merchant's/);
    const error = await sdkError(
      suite.sdk.shop.stores.update(suite.merchants.shop.store.id, {
        configuration: { transferSchedule: { period: 'weekly' } },
      } as never),
    );
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'configuration.transfer_schedule', reason: 'FORBIDDEN_PARAMETER' }],
    });
  });
});
