/**
 * UnivaPay's numeric payment error codes (api-reference §2.5), named as the SDK maps them. These
 * fill the `error` object of a failed charge, refund or cancel: `{code, message, detail}`.
 */
export const PAYMENT_ERROR_CODES = {
  CARD_NUMBER_NOT_VALID: 301,
  CARD_EXPIRATION_MONTH_INVALID: 302,
  CARD_EXPIRATION_YEAR_INVALID: 303,
  CARD_EXPIRED: 304,
  CARD_CVV_INVALID: 305,
  CARD_REJECTED: 306,
  CARD_INVALID: 307,
  CHARGE_INVALID_DATA: 308,
  PROCESSING_ERROR: 309,
  /** the duplicate rule: same recurring card token and amount within 30 s (never sent to the processor) */
  TOO_MANY_CHARGE_REQUESTS: 311,
  CANCEL_UNAVAILABLE: 312,
  CHARGE_EXPIRED: 313,
  PARTIAL_CAPTURE_NOT_SUPPORTED: 317,
  PARTIAL_REFUND_NOT_SUPPORTED: 318,
  FRAUD_SUSPECTED: 319,
  BANK_SYSTEM_FAILURE: 320,
  PAYMENT_CODE_INVALID: 322,
  PAYMENT_CODE_EXPIRED: 323,
  PAYMENT_CODE_ALREADY_USED: 324,
  CONFIRMATION_PERIOD_EXPIRED: 327,
  REFUND_FAILED: 329,
  PAYMENT_WALLET_INSUFFICIENT_FUNDS: 330,
  TRANSACTION_NOT_FOUND: 338,
  DUPLICATE_TRANSACTION: 339,
  PAYMENT_WALLET_REJECTED: 340,
  GATEWAY_SERVER_ERROR: 343,
  PAYMENT_METHOD_TEMPORARILY_UNAVAILABLE: 344,
  PAYMENT_CANCELED: 345,
  CARD_NOT_ENROLLED_IN_THREE_DS: 356,
  THREE_DS_COULD_NOT_BE_COMPLETED: 358,
} as const;

export type PaymentErrorName = keyof typeof PAYMENT_ERROR_CODES;

/** The wire `error` object of a charge, refund or cancel. */
export interface PaymentErrorDetails {
  code: number;
  /** the SDK's name for the code, e.g. CARD_REJECTED */
  message: PaymentErrorName;
  /** human-readable explanation, or null */
  detail: string | null;
}

export function paymentError(name: PaymentErrorName, detail: string | null = null): PaymentErrorDetails {
  return { code: PAYMENT_ERROR_CODES[name], message: name, detail };
}

const NAMES_BY_CODE = new Map<number, PaymentErrorName>(
  Object.entries(PAYMENT_ERROR_CODES).map(([name, code]) => [code, name as PaymentErrorName]),
);

export function paymentErrorNameOf(code: number): PaymentErrorName | undefined {
  return NAMES_BY_CODE.get(code);
}
