import type { ErrorCode, ErrorCodeOf } from './error-codes';

/**
 * Domain errors. Each class stands for one kind of failure; the gateway's one exception filter maps
 * the class to an HTTP status and writes the API's error envelope ({status, code, errors}). Each
 * class takes only the codes catalogued under its status (error-codes.ts).
 */
export interface FieldError {
  /** snake_case request field, or null for an error that is not about one field */
  field: string | null;
  /** UPPER_SNAKE reason, e.g. REQUIRED_VALUE */
  reason: string;
}

export abstract class DomainError extends Error {
  protected constructor(
    readonly code: ErrorCode,
    readonly errors: FieldError[] = [],
    message?: string,
  ) {
    super(message ?? code);
    this.name = new.target.name;
  }
}

/** The request is malformed or a field is invalid. */
export class ValidationError extends DomainError {
  constructor(errors: FieldError[], code: ErrorCodeOf<400> = 'VALIDATION_ERROR') {
    super(code, errors);
  }

  static field(field: string | null, reason: string): ValidationError {
    return new ValidationError([{ field, reason }]);
  }
}

/** A request that breaks a business rule on otherwise valid input (400 in UnivaPay's catalogue). */
export class BusinessRuleError extends DomainError {
  constructor(code: ErrorCodeOf<400>, errors: FieldError[] = []) {
    super(code, errors);
  }
}

/** Missing, malformed, unknown or revoked credentials. */
export class AuthenticationError extends DomainError {
  constructor(code: ErrorCodeOf<401>, errors: FieldError[] = []) {
    super(code, errors);
  }
}

/**
 * An Authorization scheme other than Bearer, such as the SDK's deprecated `Token` and
 * `ApplicationToken` forms, which Kessai does not accept (docs/decisions/0008): the answer names the
 * form that is required rather than leaving a bare INVALID_APP_TOKEN. The reason is the SDK's
 * `IMPROPER_AUTH` (decision 0069; it was Kessai's own `BEARER_AUTHORIZATION_REQUIRED` before).
 */
export class UnsupportedAuthorizationSchemeError extends AuthenticationError {
  constructor() {
    super('INVALID_APP_TOKEN', [{ field: 'authorization', reason: 'IMPROPER_AUTH' }]);
  }
}

/** Valid credentials that may not do this. */
export class PermissionError extends DomainError {
  constructor(code: ErrorCodeOf<403> = 'INVALID_PERMISSIONS', errors: FieldError[] = []) {
    super(code, errors);
  }
}

/**
 * A merchant-wide app token on a route that takes its store from the token (`POST /tokens`,
 * `POST /charges`, api-reference §1.2). The code is the SDK's; the reason says what is missing.
 */
export class StoreTokenRequiredError extends PermissionError {
  constructor() {
    super('INVALID_PERMISSIONS', [{ field: null, reason: 'STORE_TOKEN_REQUIRED' }]);
  }
}

/** Unknown id, or an id the caller may not see: both answer the same. */
export class NotFoundError extends DomainError {
  constructor(
    readonly resource?: string,
    code: ErrorCodeOf<404> = 'NOT_FOUND',
  ) {
    super(code);
  }
}

export class ConflictError extends DomainError {
  constructor(code: ErrorCodeOf<409>, errors: FieldError[] = []) {
    super(code, errors);
  }
}

/**
 * Too many requests now: the client waits `retryAfterSeconds` (Retry-After) and tries again. Nothing
 * was done, so an Idempotency-Key is released rather than answered with it again.
 */
export class RateLimitedError extends DomainError {
  constructor(
    readonly retryAfterSeconds: number,
    errors: FieldError[] = [],
  ) {
    super('TOO_MANY_REQUESTS', errors);
  }
}

export class ResourceLimitError extends DomainError {
  constructor(readonly resource: string) {
    super('RESOURCE_LIMIT_REACHED');
  }
}

/** A dependency (database, Redis) did not answer; the client may retry. */
export class ServiceUnavailableError extends DomainError {
  constructor() {
    super('SERVICE_UNAVAILABLE_TRY_AGAIN');
  }
}

/**
 * A stored Idempotency-Key response could not be read back (api-reference §1.4: 500), spelled as the
 * SDK's enum spells it (UnivaPay's catalogue says UNABLE_TO_GET_IDEMPOTENT_RESULT).
 */
export class IdempotentResultUnavailableError extends DomainError {
  constructor() {
    super('UNABLE_TO_GET_IDEMPOTENT_REQUEST');
  }
}

/**
 * A write whose effect is unknown: its statement was sent and the connection failed before Postgres
 * answered, so it may have committed. Answered as a 500 like any failure of ours, but an
 * Idempotency-Key claimed for the request is kept in flight rather than released, so that no retry
 * under that key can execute the write a second time (docs/rate-limits-and-idempotency.md).
 */
export class WriteOutcomeUnknownError extends Error {
  constructor(
    what: string,
    override readonly cause: unknown,
  ) {
    super(`${what}: outcome unknown, the connection failed before Postgres answered`);
    this.name = 'WriteOutcomeUnknownError';
  }
}
