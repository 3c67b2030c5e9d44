/** The payment error as a charge, capture, refund or cancel row keeps it (three nullable columns). */
export interface StoredPaymentError {
  errorCode: number | null;
  errorMessage: string | null;
  errorDetail: string | null;
}

/** The payment error object on the wire (api-reference §2.5). */
export interface PaymentErrorObject {
  code: number;
  message: string | null;
  detail: string | null;
  details?: string;
}

/**
 * The payment error object of a charge, refund or cancel (api-reference §2.5), or `null` when it has
 * none. `detail` is UnivaPay's name for the explanation; the node SDK's `PaymentError` type reads
 * `details`, so that carries the same text too, and is left out when there is none (the SDK types it
 * optional, not nullable).
 */
export function presentPaymentError(row: StoredPaymentError): PaymentErrorObject | null {
  if (row.errorCode === null) return null;
  const error: PaymentErrorObject = {
    code: row.errorCode,
    message: row.errorMessage,
    detail: row.errorDetail,
  };
  if (row.errorDetail !== null) error.details = row.errorDetail;
  return error;
}
