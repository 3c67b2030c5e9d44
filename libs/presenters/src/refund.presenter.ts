import type { Refund } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { optionalField } from './optional-field';
import { presentPaymentError } from './payment-error.presenter';

/**
 * The Refund resource (api-reference §5.4). `amount` in minor units, `amount_formatted` in major;
 * `reason` and `message` left out when not given (the SDK types them optional); `error` null while
 * there is none, as on charges; `ledger_id` once the ledger posted the refund (decision 0052).
 */
export function presentRefund(refund: Refund) {
  const amount = Number(refund.amount);
  return {
    id: refund.id,
    store_id: refund.storeId,
    charge_id: refund.chargeId,
    ...optionalField('ledger_id', refund.ledgerId),
    status: refund.status,
    amount,
    currency: refund.currency,
    amount_formatted: formatAmount(amount, refund.currency),
    ...optionalField('reason', refund.reason),
    ...optionalField('message', refund.message),
    error: presentPaymentError(refund),
    metadata: refund.metadata ?? {},
    mode: refund.mode,
    created_on: refund.createdOn.toISOString(),
    updated_on: refund.updatedOn.toISOString(),
  };
}
