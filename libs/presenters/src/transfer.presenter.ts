import type { LedgerRow, Transfer, TransferStatusChange, TransferWithMerchant } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { optionalField } from './optional-field';

/**
 * The Transfer resource (the SDK's TransferItem): `from` and `to` are the period it pays (the
 * previous payout day's start and its own); `started_by` says who made it (the payout schedule).
 */
export function presentTransfer(transfer: Transfer) {
  const amount = Number(transfer.amount);
  return {
    id: transfer.id,
    merchant_id: transfer.merchantId,
    bank_account_id: transfer.bankAccountId,
    amount,
    currency: transfer.currency,
    amount_formatted: formatAmount(amount, transfer.currency),
    status: transfer.status,
    ...optionalField('error_code', transfer.errorCode),
    ...optionalField('error_text', transfer.errorText),
    metadata: (transfer.metadata ?? {}) as Record<string, unknown>,
    started_by: transfer.startedBy,
    created_on: transfer.createdOn.toISOString(),
    from: transfer.periodFrom.toISOString(),
    to: transfer.periodTo.toISOString(),
    // Kessai's own: the books it pays from
    mode: transfer.mode,
  };
}

/** A transfer in a list: with its merchant's name (the SDK's TransferListItem). */
export function presentTransferListItem(transfer: TransferWithMerchant) {
  return { ...presentTransfer(transfer), merchant_name: transfer.merchant.name };
}

/** One change of a transfer's status (the SDK's TransferStatusChangeItem). */
export function presentTransferStatusChange(change: TransferStatusChange) {
  return {
    id: change.id,
    merchant_id: change.merchantId,
    transfer_id: change.transferId,
    old_status: change.oldStatus,
    new_status: change.newStatus,
    ...optionalField('reason', change.reason),
    created_on: change.createdOn.toISOString(),
  };
}

const ORIGINS = { sale: 'charge', refund: 'refund', adjustment: 'manual' } as const;

/**
 * A ledger (the SDK's LedgerItem): one fact that moved what the merchant is owed. `amount` is what
 * it owes the store (a sale's gross less its fee, a refund negative, an adjustment signed);
 * `percent_fee` and `flat_fee` are the terms a sale's fee was taken under; Kessai converts no
 * currency (`exchange_rate` 1).
 */
export function presentLedger(ledger: LedgerRow) {
  const amount = Number(ledger.amount - ledger.feeAmount);
  const flatFee = Number(ledger.feeFlatAmount ?? 0n);
  return {
    id: ledger.id,
    merchant_id: ledger.merchantId,
    ...optionalField('store_id', ledger.storeId),
    ...optionalField('transfer_id', ledger.transferId),
    amount,
    currency: ledger.currency,
    amount_formatted: formatAmount(amount, ledger.currency),
    percent_fee: (ledger.feeRatePpm ?? 0) / 10_000,
    flat_fee: flatFee,
    flat_fee_currency: ledger.currency,
    flat_fee_formatted: formatAmount(flatFee, ledger.currency),
    exchange_rate: 1,
    origin: ORIGINS[ledger.kind as keyof typeof ORIGINS],
    ...optionalField('note', ledger.note),
    created_on: ledger.createdOn.toISOString(),
  };
}
