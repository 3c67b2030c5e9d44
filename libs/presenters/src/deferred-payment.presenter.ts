import type { ChargeDeposit, ChargeExpiry } from '@kessai/db';
import { formatAmount } from '@kessai/domain';

/**
 * GET /stores/{storeId}/charges/{id}/expiry/latest (api-reference §5.2, the SDK's ChargeExpiry): a
 * bank-transfer or konbini charge's payment deadline.
 */
export function presentChargeExpiry(expiry: ChargeExpiry) {
  return {
    id: expiry.id,
    charge_id: expiry.chargeId,
    expiration_date: expiry.expirationDate.toISOString(),
    extension_count: expiry.extensionCount,
    created_on: expiry.createdOn.toISOString(),
    updated_on: expiry.updatedOn.toISOString(),
  };
}

/**
 * The `data` of bank_transfer_status_updated (api-reference §6 names it "bank-transfer status
 * object" without a shape): one transfer into the charge's virtual account, whether the charge's
 * received total matched its match_amount rule once it arrived, and the charge's status now.
 */
export function presentBankTransferStatus(
  deposit: ChargeDeposit,
  charge: { storeId: string; status: string; requestedAmount: bigint },
) {
  return {
    id: deposit.id,
    charge_id: deposit.chargeId,
    store_id: charge.storeId,
    charge_status: charge.status,
    requested_amount: Number(charge.requestedAmount),
    amount: Number(deposit.amount),
    currency: deposit.currency,
    amount_formatted: formatAmount(deposit.amount, deposit.currency),
    matched: deposit.matched,
    received_on: deposit.receivedOn.toISOString(),
    created_on: deposit.createdOn.toISOString(),
  };
}
