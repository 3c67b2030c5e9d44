import { ResponseErrorCode } from 'univapay-node';
import {
  AuthenticationError,
  BusinessRuleError,
  CODES_OUTSIDE_THE_SDK,
  ConflictError,
  ERROR_CODES,
  IdempotentResultUnavailableError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ResourceLimitError,
  ServiceUnavailableError,
  StoreTokenRequiredError,
  UnsupportedAuthorizationSchemeError,
  ValidationError,
  type DomainError,
  type ErrorCode,
  type ErrorCodeOf,
  WriteOutcomeUnknownError,
} from '@kessai/domain';
import { toErrorResponse } from './error-response';

/** Every code of the catalogue with the status it is answered with. */
const CATALOGUE: [ErrorCode, number][] = Object.entries(ERROR_CODES).flatMap(([status, codes]) =>
  codes.map((code): [ErrorCode, number] => [code, Number(status)]),
);
const SDK_CODES = new Set<string>(Object.values(ResponseErrorCode));

/**
 * The statuses the reference gives: api-reference §2.2 (the SDK's status → code fallback) and §2.3
 * (UnivaPay's catalogue), transcribed; UNABLE_TO_GET_IDEMPOTENT_RESULT under the SDK's spelling.
 */
// prettier-ignore
const REFERENCE_STATUS: Record<number, string[]> = {
  400: ['BAD_REQUEST', 'VALIDATION_ERROR', 'ALREADY_CAPTURED', 'AUTH_NOT_SUPPORTED', 'CANCEL_NOT_ALLOWED',
    'CANNOT_CHANGE_CANCELED_SUBSCRIPTION', 'CANNOT_CHANGE_TOKEN', 'CANNOT_REFUND_UNSUCCESSFUL_CHARGE',
    'CAPTURE_AMOUNT_TOO_LARGE', 'CARD_BRAND_NOT_SUPPORTED', 'CARD_COUNTRY_NOT_SUPPORTED',
    'CARD_PROCESSING_DISABLED', 'CHARGE_TOO_QUICK', 'CONVENIENCE_PROCESSING_DISABLED',
    'CURRENCY_MUST_MATCH_CHARGE', 'CVV_REQUIRED', 'CVV_AUTHORIZATION_NOT_COMPLETED', 'FILE_INVALID_TYPE',
    'FILE_MAX_SIZE_EXCEEDED', 'FORBIDDEN_IP', 'INSTALLMENT_MAX_PAYOUT_PERIOD_EXCEEDED',
    'INSTALLMENT_PAYMENT_TYPE_NOT_ALLOWED_FOR_PLAN', 'INSTALLMENT_INVALID_CYCLES_COUNT',
    'INSTALLMENT_INVALID_PLAN', 'INVALID_PLATFORM', 'INVALID_TOKEN_TYPE', 'INVALID_QR_SCAN_GATEWAY',
    'LAST_NAME_REQUIRED', 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED', 'NO_DIRECT_CURRENCY_GATEWAY',
    'NO_GATEWAYS_AVAILABLE', 'NO_TEST_CARD_IN_LIVE_MODE', 'NON_SUBSCRIPTION_PAYMENT', 'NOT_ONE_TIME_TOKEN',
    'NOT_SUBSCRIPTION_TOKEN', 'PARTIAL_CAPTURE_NOT_SUPPORTED', 'PAYMENT_EXPIRATION_EXCEEDS_PERIOD',
    'PROCESSING_MODE_MISMATCH', 'QR_PROCESSING_DISABLED', 'RECURRING_TOKEN_DISABLED',
    'RECURRING_USAGE_LIMIT_REQUIRED', 'RECURRING_USAGE_REQUIRES_CVV', 'REFUND_EXCEEDS_CHARGE_AMOUNT',
    'REFUND_NOT_ALLOWED', 'REFUND_EXCEEDS_SALES', 'REFUND_NOT_WITHIN_BOUNDS', 'RESOURCE_LIMIT_REACHED',
    'SUBSCRIPTION_ALREADY_ENDED', 'TOKEN_FOR_WRONG_STORE', 'TRANSACTION_ALREADY_PROCESSED',
    'TRANSACTION_TOKEN_EXPIRED', 'USAGE_LIMIT_NOT_APPLICABLE', 'CHARGE_AMOUNT_TOO_HIGH',
    'NOT_SUPPORTED_BY_PROCESSOR'],
  401: ['NOT_AUTHORIZED', 'AUTH_HEADER_MISSING', 'EXPIRED_LOGIN_TOKEN', 'INVALID_APP_TOKEN',
    'INVALID_CREDENTIALS', 'INVALID_DOMAIN', 'INVALID_LOGIN_TOKEN', 'DIRECT_CARD_TOKEN_CREATION_DISABLED'],
  403: ['FORBIDDEN', 'CARD_LOCKED', 'INVALID_PERMISSIONS',
    'INSTALLMENT_PROCESSOR_INITIAL_AMOUNTS_NOT_SUPPORTED', 'OUTDATED_APP_TOKEN',
    'TEST_CARD_CANNOT_BE_BANNED', 'INSTALLMENTS_NOT_ENABLED'],
  404: ['NOT_FOUND'],
  405: ['NOT_ALLOWED'],
  409: ['CONFLICTED', 'IDEMPOTENCY_KEY_CONFLICT', 'NON_UNIQUE_ACTIVE_TOKEN', 'WEBHOOK_URL_EXISTS'],
  429: ['TOO_MANY_REQUESTS'],
  500: ['INTERNAL_SERVER_ERROR', 'COULD_NOT_REFRESH_AUTH', 'DB_ERROR', 'FILE_UPLOAD_ERROR',
    'IMPROPER_AUTH', 'TIMEOUT', 'UNABLE_TO_GET_IDEMPOTENT_REQUEST', 'UNKNOWN_ERROR'],
  502: ['TIMEOUT'],
  503: ['SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE_TRY_AGAIN'],
  504: ['NO_GATEWAY_AVAILABLE_TO_PROCESS_REQUEST', 'NO_GATEWAY_AVAILABLE_TO_PROCESS_THE_REQUEST'],
};

/**
 * Where Kessai answers another status than the reference, on purpose: UnivaPay lists this one under
 * 401, but the credentials are valid and a 401 would tell SDK users to re-authenticate
 * (docs/transaction-tokens.md, "The PCI DSS gate").
 */
const STATUS_DEVIATIONS: Partial<Record<ErrorCode, number>> = { DIRECT_CARD_TOKEN_CREATION_DISABLED: 403 };

const statusOf = (error: unknown) => toErrorResponse(error, () => 'error-id').statusCode;
const codes = <S extends keyof typeof ERROR_CODES>(status: S): readonly ErrorCodeOf<S>[] =>
  ERROR_CODES[status];

describe('the error code catalogue', () => {
  it('lists each code under one status only', () => {
    const seen = CATALOGUE.map(([code]) => code);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it.each(CATALOGUE)("has %s in the SDK's ResponseErrorCode, or on the documented allow-list", (code) => {
    const documented = CODES_OUTSIDE_THE_SDK[code];
    expect(SDK_CODES.has(code) || (documented !== undefined && documented.length > 0)).toBe(true);
  });

  it('allow-lists only catalogued codes the SDK lacks', () => {
    for (const code of Object.keys(CODES_OUTSIDE_THE_SDK)) {
      expect(CATALOGUE.some(([known]) => known === code)).toBe(true);
      expect(SDK_CODES.has(code)).toBe(false);
    }
  });

  it.each(CATALOGUE)(
    'answers %s with the status of the reference where it gives one (%i)',
    (code, status) => {
      const expected = Object.entries(REFERENCE_STATUS)
        .filter(([, listed]) => listed.includes(code))
        .map(([referenceStatus]) => Number(referenceStatus));
      if (expected.length === 0) return;
      expect([...expected, STATUS_DEVIATIONS[code]]).toContain(status);
    },
  );

  it('spells the SDK codes the SDK way', () => {
    const all: string[] = CATALOGUE.map(([code]) => code);
    expect(all).toContain('UNABLE_TO_GET_IDEMPOTENT_REQUEST');
    expect(all).not.toContain('UNABLE_TO_GET_IDEMPOTENT_RESULT');
    expect(all).not.toContain('STORE_TOKEN_REQUIRED');
  });
});

describe('the statuses the domain errors are answered with', () => {
  it('are the ones their codes are catalogued under', () => {
    for (const code of codes(400)) {
      expect(statusOf(new BusinessRuleError(code))).toBe(400);
      expect(statusOf(new ValidationError([], code))).toBe(400);
    }
    for (const code of codes(401)) expect(statusOf(new AuthenticationError(code))).toBe(401);
    for (const code of codes(403)) expect(statusOf(new PermissionError(code))).toBe(403);
    for (const code of codes(409)) expect(statusOf(new ConflictError(code))).toBe(409);
    const fixed: [DomainError, number][] = [
      [new ResourceLimitError('webhooks'), 400],
      [new UnsupportedAuthorizationSchemeError(), 401],
      [new StoreTokenRequiredError(), 403],
      [new NotFoundError(), 404],
      [new RateLimitedError(1), 429],
      [new IdempotentResultUnavailableError(), 500],
      [new ServiceUnavailableError(), 503],
    ];
    for (const [error, status] of fixed) {
      expect(statusOf(error)).toBe(status);
      expect(
        (ERROR_CODES[status as keyof typeof ERROR_CODES] as readonly string[]).includes(error.code),
      ).toBe(true);
    }
  });

  it("are catalogued for the framework's own refusals too (by status)", () => {
    const id = () => 'error-id';
    for (const status of [400, 401, 403, 404, 405, 409, 413, 415, 429] as const) {
      expect(codes(status)).toContain(toErrorResponse({ statusCode: status }, id).body.code);
    }
    // a 4xx with no code of its own (431: request headers too large)
    expect(toErrorResponse({ statusCode: 431 }, id).body.code).toBe('BAD_REQUEST');
    expect(toErrorResponse(new Error('boom'), id).body.code).toBe('INTERNAL_SERVER_ERROR');
  });

  it("answer a dependency's unavailability 503 with Retry-After, a lost write's outcome 500", () => {
    const id = () => 'error-id';
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const unavailable = toErrorResponse(refused, id);
    expect(unavailable.statusCode).toBe(503);
    expect(unavailable.body).toEqual({ status: 'error', code: 'SERVICE_UNAVAILABLE_TRY_AGAIN', errors: [] });
    expect(unavailable.headers['retry-after']).toBe('1');
    expect(toErrorResponse(new Error('Connection is closed.'), id).statusCode).toBe(503);
    // it may have committed, and its Idempotency-Key stays claimed: not "try again"
    const lost = toErrorResponse(new WriteOutcomeUnknownError('charge create', refused), id);
    expect(lost.statusCode).toBe(500);
    expect(lost.body.code).toBe('INTERNAL_SERVER_ERROR');
  });
});
