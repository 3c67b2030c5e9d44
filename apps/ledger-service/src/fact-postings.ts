import type { LedgerEvent, PostingRequest, RefundFactRow, SaleFactRow } from '@kessai/db';
import { refundPosting, salePosting } from '@kessai/domain';
import { availabilityMemo } from '@kessai/schedule';
import { effectiveConfiguration, type StoreConfiguration } from '@kessai/store-configuration';

/** Who the poster's transactions say wrote them. */
export const POSTER = 'ledger-poster';

/**
 * The postings a batch of outbox events records (docs/ledger.md, "Posting rules"): a charge that
 * finished `successful` is a sale of what it charged (a partial capture: what was captured), with
 * the fee it was charged, available after its store's wait_period from the moment it finished; a
 * refund that finished `successful` is a refund. Other outcomes (failed, canceled, error) moved no
 * money and post nothing. Pure: the facts are the rows as the poster read them (in one statement: a
 * store's configuration is read once per batch).
 */
export function postingsOf(
  events: readonly LedgerEvent[],
  sales: readonly SaleFactRow[],
  refunds: readonly RefundFactRow[],
): PostingRequest[] {
  const charges = new Map(sales.map((row) => [row.id, row]));
  const refundRows = new Map(refunds.map((row) => [row.id, row]));
  const requests: PostingRequest[] = [];
  const availableOn = availabilityMemo();
  const configurations = new Map<string, Pick<StoreConfiguration, 'wait_period' | 'display_time_zone'>>();
  for (const event of events) {
    if (event.eventType === 'charge_finished') {
      const charge = charges.get(event.aggregateId);
      if (!charge || charge.status !== 'successful') continue;
      if (charge.chargedAmount === null || charge.chargedAmount <= 0n || charge.chargedCurrency === null)
        continue;
      // a store's and its merchant's configuration are one statement's rows: the same for each of its charges
      let configuration = configurations.get(charge.storeId);
      if (!configuration) {
        const { wait_period, display_time_zone } = effectiveConfiguration(
          charge.merchantConfiguration,
          charge.storeConfiguration,
        );
        configuration = { wait_period, display_time_zone };
        configurations.set(charge.storeId, configuration);
      }
      requests.push({
        posting: salePosting({
          chargeId: charge.id,
          mode: charge.mode,
          merchantId: charge.merchantId,
          storeId: charge.storeId,
          currency: charge.chargedCurrency,
          grossAmount: charge.chargedAmount,
          feeAmount: charge.feeAmount ?? 0n,
          feeRatePpm: charge.feeRatePpm,
          feeFlatAmount: charge.feeFlatAmount,
          availableOn: availableOn(
            event.createdOn,
            configuration.wait_period,
            configuration.display_time_zone,
          ),
        }),
        createdBy: POSTER,
        causeEventId: event.id,
      });
    } else {
      const refund = refundRows.get(event.aggregateId);
      if (!refund || refund.status !== 'successful') continue;
      requests.push({
        posting: refundPosting({
          refundId: refund.id,
          mode: refund.mode,
          merchantId: refund.merchantId,
          storeId: refund.storeId,
          currency: refund.currency,
          amount: refund.amount,
        }),
        createdBy: POSTER,
        causeEventId: event.id,
      });
    }
  }
  return requests;
}
