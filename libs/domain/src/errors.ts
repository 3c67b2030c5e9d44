/**
 * Domain errors. Each class stands for one kind of failure; the gateway's one exception filter maps
 * the class to an HTTP status and writes the API's error envelope ({status, code, errors}).
 */
export interface FieldError {
  /** snake_case request field, or null for an error that is not about one field */
  field: string | null;
  /** UPPER_SNAKE reason, e.g. REQUIRED_VALUE */
  reason: string;
}

export abstract class DomainError extends Error {
  protected constructor(
    readonly code: string,
    readonly errors: FieldError[] = [],
    message?: string,
  ) {
    super(message ?? code);
    this.name = new.target.name;
  }
}

/** The request is malformed or a field is invalid. */
export class ValidationError extends DomainError {
  constructor(errors: FieldError[], code = 'VALIDATION_ERROR') {
    super(code, errors);
  }

  static field(field: string | null, reason: string): ValidationError {
    return new ValidationError([{ field, reason }]);
  }
}

/** A request that breaks a business rule on otherwise valid input (400 in UnivaPay's catalogue). */
export class BusinessRuleError extends DomainError {
  constructor(code: string, errors: FieldError[] = []) {
    super(code, errors);
  }
}

/** Missing, malformed, unknown or revoked credentials. */
export class AuthenticationError extends DomainError {
  constructor(
    code:
      | 'AUTH_HEADER_MISSING'
      | 'INVALID_APP_TOKEN'
      | 'INVALID_CREDENTIALS'
      | 'INVALID_DOMAIN'
      | 'INVALID_LOGIN_TOKEN'
      | 'EXPIRED_LOGIN_TOKEN',
  ) {
    super(code);
  }
}

/** Valid credentials that may not do this. */
export class PermissionError extends DomainError {
  constructor(code = 'INVALID_PERMISSIONS') {
    super(code);
  }
}

/** Unknown id, or an id the caller may not see: both answer the same. */
export class NotFoundError extends DomainError {
  constructor(readonly resource?: string) {
    super('NOT_FOUND');
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, errors: FieldError[] = []) {
    super(code, errors);
  }
}

export class RateLimitedError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('TOO_MANY_REQUESTS');
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

/** A stored Idempotency-Key response could not be read back (api-reference §1.4: 500). */
export class IdempotentResultUnavailableError extends DomainError {
  constructor() {
    super('UNABLE_TO_GET_IDEMPOTENT_RESULT');
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
