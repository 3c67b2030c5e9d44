import type { TransactionHistoryRow } from '@kessai/db';
import { formatAmount } from '@kessai/domain';

/**
 * One item of the transaction history (api-reference §5.6). `amount` is a charge's charged amount
 * once it has one (a partial capture), its requested amount before; a refund's amount. `user_data`
 * is the customer as the charge's transaction token knows them, or null when it knows neither.
 */
export function presentTransaction(row: TransactionHistoryRow) {
  const userData =
    row.email === null && row.cardholder_name === null
      ? null
      : { email: row.email, cardholder_name: row.cardholder_name };
  return {
    store_id: row.store_id,
    resource_id: row.resource_id,
    charge_id: row.charge_id,
    amount: Number(row.amount),
    currency: row.currency,
    amount_formatted: formatAmount(row.amount, row.currency),
    type: row.type,
    status: row.status,
    metadata: row.metadata ?? {},
    created_on: row.created_on.toISOString(),
    mode: row.mode,
    merchant_name: row.merchant_name,
    payment_type: row.payment_type,
    user_data: userData,
  };
}
