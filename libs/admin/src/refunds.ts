import type { Refund, RefundsRepository } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * Refunds in `error` (docs/refunds-and-cancels.md, "Re-driving a refund in error"): the processor
 * could not be reached through every retry, so the refund may or may not have been executed and its
 * amount stays reserved. The sweeper re-drives each on a bounded schedule; past it, the operator
 * either re-drives it here (the processor, asked under the refund's own key, executes it at most
 * once) or settles it with the processor.
 */
export async function refundsInError(
  repositories: { refunds: RefundsRepository },
  input: { merchantId?: string; limit: number },
) {
  const refunds = await repositories.refunds.findInError(input.limit, input.merchantId);
  return refunds.map(describeRefund);
}

/** Re-drives one refund in `error` now, whatever the sweeper's schedule and count. */
export async function retryRefund(
  repositories: { refunds: RefundsRepository },
  refundId: string,
): Promise<{ id: string; status: 'pending'; redrives: number }> {
  const redriven = await repositories.refunds.redrive(refundId, `cli-refund-retry-${refundId}`);
  if (!redriven)
    throw new AdminError(`refund ${refundId} is not in error (or another re-drive holds it right now)`);
  return { id: redriven.id, status: 'pending', redrives: redriven.redrives };
}

function describeRefund(refund: Refund) {
  return {
    id: refund.id,
    merchant_id: refund.merchantId,
    store_id: refund.storeId,
    charge_id: refund.chargeId,
    mode: refund.mode,
    amount: Number(refund.amount),
    currency: refund.currency,
    amount_formatted: formatAmount(refund.amount, refund.currency),
    error_message: refund.errorMessage,
    redrives: refund.redrives,
    created_on: refund.createdOn.toISOString(),
    updated_on: refund.updatedOn.toISOString(),
  };
}
