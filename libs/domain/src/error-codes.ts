/**
 * Every `code` the API's error envelope can carry, under the HTTP status it is answered with
 * (api-reference §2.2–§2.4). The domain error classes accept only the codes of their status, so a
 * code thrown anywhere is one of these and the compiler points here when a new one appears: add it
 * under its status, spelled as the SDK's `ResponseErrorCode` spells it. A code the SDK does not know
 * goes on CODES_OUTSIDE_THE_SDK with the reason (docs/decisions/0009-error-codes-as-the-sdk-knows-them.md);
 * apps/gateway/src/http/error-codes.spec.ts checks both lists against the SDK and the reference.
 */
export const ERROR_CODES = {
  400: [
    // a 4xx Fastify raises with a status that has no code of its own
    'BAD_REQUEST',
    'VALIDATION_ERROR',
    'RESOURCE_LIMIT_REACHED',
    'ALREADY_CAPTURED',
    'CANNOT_UPDATE_TRANSACTION_TOKEN',
    'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
    'CANNOT_CHANGE_INSTALLMENT_AMOUNT',
    'CAPTURE_AMOUNT_TOO_LARGE',
    'CAPTURE_ONLY_FOR_CARD_PAYMENT',
    'CANCEL_NOT_ALLOWED',
    'CANNOT_REFUND_UNSUCCESSFUL_CHARGE',
    'CARD_BRAND_NOT_SUPPORTED',
    // what one card was charged at the store within card_limit's window, plus this charge, is over it (decision 0070)
    'CARD_LIMIT_EXCEEDED_FOR_STORE',
    'CARD_PROCESSING_DISABLED',
    'CHARGE_AMOUNT_TOO_HIGH',
    'CHARGE_AMOUNT_TOO_LOW',
    'CONFIRMATION_REQUIRES_EMAIL',
    'CONVENIENCE_PROCESSING_DISABLED',
    'CURRENCY_MUST_MATCH_CHARGE',
    // a charge of a card token whose CVV authorization is pending or failed (docs/transaction-tokens.md)
    'CVV_AUTHORIZATION_NOT_COMPLETED',
    'DISABLED_PAYMENT_TYPE',
    'FILE_INVALID_TYPE',
    'FILE_MAX_SIZE_EXCEEDED',
    'FORBIDDEN_QR_GATEWAY',
    'INVALID_CHARGE_STATUS',
    'INVALID_THREE_DS_STATUS',
    'INVALID_TOKEN',
    'INVALID_TOKEN_TYPE',
    'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED',
    'MAXIMUM_EXPIRY_EXTENSION_EXCEEDED',
    'MAXIMUM_EXTENSIONS_REACHED',
    'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT',
    'PARTIAL_CAPTURE_NOT_SUPPORTED',
    'NOT_SUPPORTED_BY_PROCESSOR',
    'NO_TEST_CARD_IN_LIVE_MODE',
    // a checkout link that is disabled or expired (docs/hosted-checkout.md)
    'NOT_ACTIVE',
    'NOT_SUBSCRIPTION_TOKEN',
    'NOT_ONLINE_CHARGE',
    'EITHER_PERIOD_OR_DATE',
    // a customer's login code that is spent, expired, or was never sent (decision 0058)
    'EXPIRED_OTP_TOKEN',
    'ONLINE_PROCESSING_DISABLED',
    'MERCHANT_QR_PROCESSING_DISABLED',
    'PAIDY_PROCESSING_DISABLED',
    'PAYMENT_TYPE_NOT_ALLOWED',
    'POSITIVE_EXPIRY_EXTENSION_REQUIRED',
    'PROCESSING_MODE_MISMATCH',
    'QR_PROCESSING_DISABLED',
    'RECURRING_TOKEN_DISABLED',
    'RECURRING_TOKEN_NOT_ALLOWED',
    'RECURRING_USAGE_LIMIT_REQUIRED',
    'SUBSCRIPTION_ALREADY_ENDED',
    'SUBSCRIPTION_NOT_ENABLED',
    'SUBSCRIPTION_PROCESSING',
    'REFUND_NOT_ALLOWED',
    'REFUND_NOT_WITHIN_BOUNDS',
    'THREE_DS_COULD_NOT_BE_COMPLETED',
    'TOKEN_FOR_WRONG_STORE',
    'TOKEN_MUST_BE_CONFIRMED',
    'TRANSACTION_ALREADY_PROCESSED',
    // an exchange rate the operator set none for (docs/exchange-rates.md)
    'UNSUPPORTED_CURRENCY',
    'USAGE_LIMIT_NOT_APPLICABLE',
    'WRONG_CONFIRMATION_CODE',
  ],
  401: [
    'NOT_AUTHORIZED',
    'AUTH_HEADER_MISSING',
    'EXPIRED_LOGIN_TOKEN',
    'INVALID_APP_TOKEN',
    'INVALID_CREDENTIALS',
    'INVALID_DOMAIN',
    'INVALID_LOGIN_TOKEN',
  ],
  403: [
    'FORBIDDEN',
    // a store whose customer logins are off (decision 0070)
    'CUSTOMER_LOGIN_NOT_ENABLED',
    'DIRECT_CARD_TOKEN_CREATION_DISABLED',
    'INSTALLMENTS_NOT_ENABLED',
    'INVALID_PERMISSIONS',
    'OUTDATED_APP_TOKEN',
  ],
  404: ['NOT_FOUND', 'PRIMARY_BANK_ACCOUNT_NOT_FOUND'],
  405: ['NOT_ALLOWED'],
  409: [
    'CONFLICTED',
    'BANK_ACCOUNT_EXISTS',
    'EMAIL_EXISTS',
    'IDEMPOTENCY_KEY_CONFLICT',
    'STORE_EXISTS',
    'VERIFICATION_DATA_EXISTS',
    'WEBHOOK_URL_EXISTS',
  ],
  413: ['REQUEST_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  429: ['TOO_MANY_REQUESTS'],
  500: ['INTERNAL_SERVER_ERROR', 'UNABLE_TO_GET_IDEMPOTENT_REQUEST'],
  503: ['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE_TRY_AGAIN'],
} as const satisfies Record<number, readonly string[]>;

export type ErrorStatus = keyof typeof ERROR_CODES;
export type ErrorCodeOf<S extends ErrorStatus> = (typeof ERROR_CODES)[S][number];
export type ErrorCode = ErrorCodeOf<ErrorStatus>;

/**
 * Codes kept although the SDK's `ResponseErrorCode` lacks them, and why (decision 0009). The SDK
 * passes any code through untouched, with the HTTP status as `httpCode`.
 */
export const CODES_OUTSIDE_THE_SDK: Partial<Record<ErrorCode, string>> = {
  DIRECT_CARD_TOKEN_CREATION_DISABLED:
    "UnivaPay's own code for this refusal (its API catalogue lists it); only the node SDK's enum lacks it",
  FILE_MAX_SIZE_EXCEEDED:
    "the reference's (UnivaPay's) spelling, under 400; the SDK's enum misspells it FILE_MAX_SIE_EXCEEDED " +
    '(its FileMaxSizeExceeded), which no server sends',
  REQUEST_TOO_LARGE:
    'HTTP 413, a status outside the reference and the SDK: no SDK code names a body over the limit, and ' +
    'answering 400 VALIDATION_ERROR instead would hide the status proxies and HTTP clients act on',
  UNSUPPORTED_MEDIA_TYPE:
    'HTTP 415, a status outside the reference and the SDK: no SDK code names a body that is not JSON ' +
    '(FILE_INVALID_TYPE is about uploaded files), and 400 would hide the status HTTP clients act on',
};
