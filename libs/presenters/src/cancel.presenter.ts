import type { Cancel } from '@kessai/db';
import { presentPaymentError } from './payment-error.presenter';

/** The Cancel resource (api-reference §5.5). */
export function presentCancel(cancel: Cancel) {
  return {
    id: cancel.id,
    charge_id: cancel.chargeId,
    store_id: cancel.storeId,
    status: cancel.status,
    error: presentPaymentError(cancel),
    metadata: cancel.metadata ?? {},
    mode: cancel.mode,
    created_on: cancel.createdOn.toISOString(),
    updated_on: cancel.updatedOn.toISOString(),
  };
}
