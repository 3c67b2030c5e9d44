import type { DeferredPaymentsRepository } from '@kessai/db';
import { formatAmount } from '@kessai/domain';

/**
 * Money Kessai recorded that pays no charge (docs/bank-transfer-and-konbini.md, "Stray money"): a
 * deposit for a payment that is no charge of ours (`unassigned`), and a deposit that came after its
 * charge ended (`after_end`). The operator returns it, or tells the merchant to; nothing here
 * changes a charge.
 */
export async function strayDeposits(
  repositories: { deferredPayments: DeferredPaymentsRepository },
  input: { merchantId?: string; limit: number },
) {
  const found = await repositories.deferredPayments.findStray(input.limit, input.merchantId);
  return {
    unassigned: found.unassigned.map((deposit) => ({
      id: deposit.id,
      processor_deposit_id: deposit.processorDepositId,
      processor_reference: deposit.processorReference,
      reference: deposit.reference,
      amount: Number(deposit.amount),
      currency: deposit.currency,
      amount_formatted: formatAmount(deposit.amount, deposit.currency),
      received_on: deposit.receivedOn.toISOString(),
      created_on: deposit.createdOn.toISOString(),
    })),
    after_end: found.afterEnd.map(({ deposit, charge }) => ({
      id: deposit.id,
      processor_deposit_id: deposit.processorDepositId,
      charge_id: charge.id,
      merchant_id: charge.merchantId,
      store_id: charge.storeId,
      charge_status: charge.status,
      amount: Number(deposit.amount),
      currency: deposit.currency,
      amount_formatted: formatAmount(deposit.amount, deposit.currency),
      received_on: deposit.receivedOn.toISOString(),
      created_on: deposit.createdOn.toISOString(),
    })),
  };
}
