import { paymentError, type PaymentErrorDetails, type PaymentErrorName } from '../payment-errors';

/**
 * KOMOJU's error codes and what each means for Kessai, in one table (docs/connectors.md repeats it).
 *
 * Sources: KOMOJU's "Errors" page (https://doc.komoju.com/docs/errors: the JSON error object
 * `{"error": {"code", "message", "param"}}` and its HTTP statuses) and the card codes KOMOJU's own
 * ActiveMerchant gateway maps (bad_verification_value, card_expired, card_declined, invalid_number).
 * Which HTTP status KOMOJU gives a card refusal is not documented: the code decides, not the status.
 *
 * - `decline`: the card or payment was refused: a result (`declined` / `rejected`) carrying `sdk`.
 * - `transient`: the outcome is unknown or KOMOJU says to try again: retried with the same
 *   X-KOMOJU-IDEMPOTENCY key (KOMOJU executes a key once and answers repeats with the first answer).
 * - `refused`: the request itself was refused (malformed, unauthorised): a bug or a configuration
 *   problem, thrown as ProcessorRequestRejectedError; sending it again will not help.
 */
export type KomojuErrorDisposition =
  { kind: 'decline'; sdk: PaymentErrorName } | { kind: 'transient' } | { kind: 'refused' };

export const KOMOJU_ERROR_TABLE: Readonly<Record<string, KomojuErrorDisposition>> = {
  // card refusals (the payment was attempted and refused)
  card_declined: { kind: 'decline', sdk: 'CARD_REJECTED' },
  invalid_number: { kind: 'decline', sdk: 'CARD_NUMBER_NOT_VALID' },
  card_expired: { kind: 'decline', sdk: 'CARD_EXPIRED' },
  bad_verification_value: { kind: 'decline', sdk: 'CARD_CVV_INVALID' },
  // the name of KOMOJU's test scenario for a lack of funds (https://doc.komoju.com/docs/test-cards);
  // the SDK's code as the simulator gives it for the same decline
  insufficient_funds: { kind: 'decline', sdk: 'PAYMENT_WALLET_INSUFFICIENT_FUNDS' },
  // 402: "the request failed": KOMOJU processed it and it did not go through
  request_failed: { kind: 'decline', sdk: 'PROCESSING_ERROR' },
  // 422 on an existing payment: the operation does not fit its state (e.g. capture of a captured one)
  unprocessable_entity: { kind: 'decline', sdk: 'CHARGE_INVALID_DATA' },
  // the request itself
  bad_request: { kind: 'refused' },
  missing_parameter: { kind: 'refused' },
  unauthorized: { kind: 'refused' },
  forbidden: { kind: 'refused' },
  not_found: { kind: 'refused' },
  // KOMOJU's side: try again with the same key
  internal_server_error: { kind: 'transient' },
  bad_gateway: { kind: 'transient' },
  service_unavailable: { kind: 'transient' },
  // "the payment was not processed, try again" (KOMOJU's words for 504)
  gateway_timeout: { kind: 'transient' },
};

/** What an error answer of KOMOJU means: by its code first, by its HTTP status for a code not in the table. */
export function komojuErrorDisposition(httpStatus: number, code: string | undefined): KomojuErrorDisposition {
  const known = code === undefined ? undefined : KOMOJU_ERROR_TABLE[code];
  if (known) return known;
  if (httpStatus >= 500 || httpStatus === 408 || httpStatus === 429 || httpStatus === 409) {
    return { kind: 'transient' };
  }
  if (httpStatus === 402) return { kind: 'decline', sdk: 'PROCESSING_ERROR' };
  return { kind: 'refused' };
}

/** The SDK's error of a declined operation, with KOMOJU's message as the detail (it names no card data). */
export function komojuPaymentError(sdk: PaymentErrorName, message: string | undefined): PaymentErrorDetails {
  return paymentError(sdk, message ? message.slice(0, 200) : null);
}
