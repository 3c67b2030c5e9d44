import type { BankTransferLedgerSource, ChargeDeposit, ChargeExpiry } from '@kessai/db';
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

/** The day of an instant in Japan, where the bank keeps its books (YYYY-MM-DD). */
function japaneseDate(at: Date): string {
  return new Date(at.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * GET /stores/{storeId}/charges/{id}/bank_transfer_ledgers (api-reference §5.2): the charge's
 * virtual-account ledger, oldest first: one `payment` entry (the amount asked for, when the charge
 * was accepted), then one `deposit` per transfer received. `balance` is what was received less
 * what was asked for after each entry: negative while money is owed, 0 when paid exactly, positive
 * when overpaid. The list is whole (`has_more` false): a charge has few transfers.
 */
export function presentBankTransferLedgers(source: BankTransferLedgerSource) {
  const { charge } = source;
  const payload =
    typeof charge.issuerToken === 'object' && charge.issuerToken !== null
      ? ((charge.issuerToken as { payload?: Record<string, unknown> }).payload ?? {})
      : {};
  const text = (key: string) => (typeof payload[key] === 'string' ? payload[key] : null);
  const account = {
    virtual_bank_account_holder_name: text('account_holder_name'),
    virtual_bank_account_number: text('account_number'),
    virtual_account_id: text('account_id'),
  };
  const entry = (
    type: 'payment' | 'deposit',
    amount: bigint,
    balance: bigint,
    at: Date,
    createdOn: Date,
  ) => ({
    bank_ledger_type: type,
    amount: Number(amount),
    currency: charge.requestedCurrency,
    amount_formatted: formatAmount(amount, charge.requestedCurrency),
    balance: Number(balance),
    ...account,
    transaction_date: japaneseDate(at),
    transaction_timestamp: at.toISOString(),
    mode: charge.mode,
    created_on: createdOn.toISOString(),
  });
  let balance = -charge.requestedAmount;
  const items = [entry('payment', charge.requestedAmount, balance, charge.createdOn, charge.createdOn)];
  for (const deposit of source.deposits) {
    balance += deposit.amount;
    items.push(entry('deposit', deposit.amount, balance, deposit.receivedOn, deposit.createdOn));
  }
  return { items, has_more: false, total_hits: items.length };
}
