import { paymentError, type PaymentErrorDetails, type PaymentErrorName } from '../payment-errors';

/**
 * Stripe's errors and what each means for Kessai, in one table (docs/connectors.md repeats it).
 *
 * Sources: Stripe's "Error codes" and "Decline codes" pages (https://docs.stripe.com/error-codes,
 * https://docs.stripe.com/declines/codes) and stripe-node's error classes (StripeCardError for 402,
 * StripeInvalidRequestError for 400/404, StripeAPIError for 5xx, StripeConnectionError for a
 * request that got no answer). A card error carries `decline_code` for `card_declined`; the decline
 * code decides first, then the error code, then the error type and HTTP status.
 *
 * - `decline`: the card or the operation was refused: a result (`declined` / `rejected`).
 * - `state`: the operation does not fit the payment's state: rejected with the operation's own
 *   code (CHARGE_INVALID_DATA for a capture, CANCEL_UNAVAILABLE, REFUND_FAILED).
 * - `not_found`: no such PaymentIntent: TRANSACTION_NOT_FOUND.
 * - `transient`: the outcome is unknown or Stripe says to try again: retried with the same
 *   Idempotency-Key (Stripe replays the first answer of a key for 24 hours).
 * - `refused`: the request itself (malformed, unauthorised, raw card data not enabled): a bug or a
 *   configuration problem, thrown as ProcessorRequestRejectedError.
 */
export type StripeErrorDisposition =
  | { kind: 'decline'; sdk: PaymentErrorName }
  | { kind: 'state' }
  | { kind: 'not_found' }
  | { kind: 'transient' }
  | { kind: 'refused' };

/** By `decline_code` (card errors with code card_declined) or by `code`. */
export const STRIPE_ERROR_TABLE: Readonly<Record<string, StripeErrorDisposition>> = {
  // decline codes (https://docs.stripe.com/declines/codes)
  generic_decline: { kind: 'decline', sdk: 'CARD_REJECTED' },
  do_not_honor: { kind: 'decline', sdk: 'CARD_REJECTED' },
  card_not_supported: { kind: 'decline', sdk: 'CARD_REJECTED' },
  card_velocity_exceeded: { kind: 'decline', sdk: 'CARD_REJECTED' },
  lost_card: { kind: 'decline', sdk: 'CARD_REJECTED' },
  stolen_card: { kind: 'decline', sdk: 'CARD_REJECTED' },
  pickup_card: { kind: 'decline', sdk: 'CARD_REJECTED' },
  fraudulent: { kind: 'decline', sdk: 'FRAUD_SUSPECTED' },
  merchant_blacklist: { kind: 'decline', sdk: 'FRAUD_SUSPECTED' },
  // the SDK's code as the simulator and the KOMOJU adapter give it for the same decline
  insufficient_funds: { kind: 'decline', sdk: 'PAYMENT_WALLET_INSUFFICIENT_FUNDS' },
  // error codes of card errors (https://docs.stripe.com/error-codes)
  card_declined: { kind: 'decline', sdk: 'CARD_REJECTED' },
  expired_card: { kind: 'decline', sdk: 'CARD_EXPIRED' },
  incorrect_cvc: { kind: 'decline', sdk: 'CARD_CVV_INVALID' },
  invalid_cvc: { kind: 'decline', sdk: 'CARD_CVV_INVALID' },
  incorrect_number: { kind: 'decline', sdk: 'CARD_NUMBER_NOT_VALID' },
  invalid_number: { kind: 'decline', sdk: 'CARD_NUMBER_NOT_VALID' },
  invalid_expiry_month: { kind: 'decline', sdk: 'CARD_EXPIRATION_MONTH_INVALID' },
  invalid_expiry_year: { kind: 'decline', sdk: 'CARD_EXPIRATION_YEAR_INVALID' },
  processing_error: { kind: 'decline', sdk: 'PROCESSING_ERROR' },
  // error_on_requires_action: the card wanted 3-D Secure, which this adapter does not offer
  authentication_required: { kind: 'decline', sdk: 'THREE_DS_COULD_NOT_BE_COMPLETED' },
  payment_intent_authentication_failure: { kind: 'decline', sdk: 'THREE_DS_COULD_NOT_BE_COMPLETED' },
  // invalid requests on an existing PaymentIntent
  payment_intent_unexpected_state: { kind: 'state' },
  amount_too_large: { kind: 'state' },
  charge_already_refunded: { kind: 'state' },
  charge_already_captured: { kind: 'state' },
  charge_expired_for_capture: { kind: 'state' },
  resource_missing: { kind: 'not_found' },
  // Stripe's side: try again with the same key
  idempotency_key_in_use: { kind: 'transient' },
  lock_timeout: { kind: 'transient' },
  rate_limit: { kind: 'transient' },
  // the request itself
  parameter_invalid_integer: { kind: 'refused' },
  parameter_missing: { kind: 'refused' },
  parameter_unknown: { kind: 'refused' },
  api_key_expired: { kind: 'refused' },
  secret_key_required: { kind: 'refused' },
};

export interface StripeErrorFacts {
  /** stripe-node's `type`: StripeCardError, StripeInvalidRequestError, StripeAPIError, … */
  type: string;
  statusCode?: number;
  code?: string;
  declineCode?: string;
}

/** What an error of Stripe means: the decline code, then the code, then the error class and status. */
export function stripeErrorDisposition(facts: StripeErrorFacts): StripeErrorDisposition {
  const known =
    (facts.declineCode ? STRIPE_ERROR_TABLE[facts.declineCode] : undefined) ??
    (facts.code ? STRIPE_ERROR_TABLE[facts.code] : undefined);
  if (known) return known;
  switch (facts.type) {
    case 'StripeCardError':
      return { kind: 'decline', sdk: 'CARD_REJECTED' };
    case 'StripeConnectionError':
    case 'StripeAPIError':
    case 'StripeRateLimitError':
      return { kind: 'transient' };
  }
  const status = facts.statusCode ?? 0;
  if (status >= 500 || status === 408 || status === 409 || status === 429) return { kind: 'transient' };
  if (status === 402) return { kind: 'decline', sdk: 'CARD_REJECTED' };
  return { kind: 'refused' };
}

/**
 * Stripe's answer to raw card numbers from an account without that permission: an
 * invalid_request_error without a code, naming "raw card data" (support.stripe.com/questions/
 * enabling-access-to-raw-card-data-apis).
 */
export function isRawCardDataRefusal(facts: StripeErrorFacts, message: string): boolean {
  return (
    facts.type === 'StripeInvalidRequestError' &&
    !facts.code &&
    /raw card data|card numbers directly/i.test(message)
  );
}

/** The SDK's error of a declined operation, with Stripe's message as the detail (it names no card data). */
export function stripePaymentError(sdk: PaymentErrorName, message: string | undefined): PaymentErrorDetails {
  return paymentError(sdk, message ? message.slice(0, 200) : null);
}
