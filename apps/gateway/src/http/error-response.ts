import { HttpException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  AuthenticationError,
  BusinessRuleError,
  ConflictError,
  DomainError,
  NotFoundError,
  PermissionError,
  RateLimitedError,
  ResourceLimitError,
  ServiceUnavailableError,
  UnsupportedAuthorizationSchemeError,
  ValidationError,
  WriteOutcomeUnknownError,
  type ErrorCode,
  type FieldError,
} from '@kessai/domain';
import { isDatabaseUnavailable } from '@kessai/db';
import { isRedisUnavailable } from '@kessai/redis';

/** The API's error envelope (api-reference §2.1). `errors` is always present. */
export interface ErrorEnvelope {
  status: 'error';
  code: ErrorCode;
  errors: FieldError[];
  /** only on 500s: quote it to support, it finds the log line */
  error_id?: string;
}

export interface ErrorResponse {
  statusCode: number;
  body: ErrorEnvelope;
  headers: Record<string, string>;
  /** true when the cause is ours (a bug or a dependency), to be logged at error level */
  internal: boolean;
}

/** Code for a bare HTTP status, as the SDK derives it (api-reference §2.2). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'NOT_AUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'NOT_ALLOWED',
  409: 'CONFLICTED',
  413: 'REQUEST_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};

function statusOf(error: DomainError): number {
  if (error instanceof ValidationError || error instanceof BusinessRuleError) return 400;
  if (error instanceof ResourceLimitError) return 400;
  if (error instanceof AuthenticationError) return 401;
  if (error instanceof PermissionError) return 403;
  if (error instanceof NotFoundError) return 404;
  if (error instanceof ConflictError) return 409;
  if (error instanceof RateLimitedError) return 429;
  if (error instanceof ServiceUnavailableError) return 503;
  return 500;
}

/** The challenge every 401 carries (RFC 9110 §11.6.1): the one scheme Kessai accepts. */
const BEARER_CHALLENGE = 'Bearer realm="kessai"';
/** ... and, when another scheme was sent, the forms that are accepted instead. */
const BEARER_REQUIRED_CHALLENGE =
  `${BEARER_CHALLENGE}, error="invalid_request", error_description="use Authorization: Bearer ` +
  `<secret>.<jwt> (or Bearer <jwt> from a browser); the Token and ApplicationToken forms are not supported"`;

export function envelope(code: ErrorCode, errors: FieldError[] = []): ErrorEnvelope {
  return { status: 'error', code, errors };
}

/**
 * Failures the framework raises before a handler runs (unparseable or empty JSON, body too large,
 * unsupported media type, unknown route) reach us as plain HTTP errors; our own code throws only
 * domain errors. They are known by status alone.
 */
function frameworkError(statusCode: number): ErrorResponse {
  const body = (() => {
    switch (statusCode) {
      case 400:
        return envelope('VALIDATION_ERROR', [{ field: null, reason: 'INVALID_FORMAT_OBJECT' }]);
      case 413:
        return envelope('REQUEST_TOO_LARGE', [{ field: null, reason: 'INVALID_FORMAT_LENGTH' }]);
      case 415:
        return envelope('UNSUPPORTED_MEDIA_TYPE', [{ field: null, reason: 'INVALID_FORMAT' }]);
      default:
        return envelope(CODE_BY_STATUS[statusCode] ?? 'BAD_REQUEST');
    }
  })();
  return { statusCode, body, headers: {}, internal: false };
}

function clientStatusOf(error: unknown): number | null {
  if (error instanceof HttpException) return error.getStatus();
  const status =
    error && typeof error === 'object' ? (error as { statusCode?: unknown }).statusCode : undefined;
  return typeof status === 'number' ? status : null;
}

/** How long a client is told to wait before it tries again after a 503 (seconds). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/**
 * Whether `error` is a dependency's unavailability (Postgres or Redis unreachable, restarting, out
 * of connections, a pool or transaction that could not start in time): answered 503
 * SERVICE_UNAVAILABLE_TRY_AGAIN with Retry-After, not 500 (docs/decisions/0025). A write whose
 * outcome is unknown is not: it may have committed, and its Idempotency-Key stays claimed (0006),
 * so "try again" would be the wrong advice; it stays a 500.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof WriteOutcomeUnknownError) return false;
  return isDatabaseUnavailable(error) || isRedisUnavailable(error);
}

export function toErrorResponse(error: unknown, newErrorId: () => string): ErrorResponse {
  if (!(error instanceof DomainError) && isUnavailable(error)) error = new ServiceUnavailableError();
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (error instanceof RateLimitedError) headers['retry-after'] = String(error.retryAfterSeconds);
    if (error instanceof ServiceUnavailableError)
      headers['retry-after'] = String(UNAVAILABLE_RETRY_AFTER_SECONDS);
    if (error instanceof AuthenticationError) {
      headers['www-authenticate'] =
        error instanceof UnsupportedAuthorizationSchemeError ? BEARER_REQUIRED_CHALLENGE : BEARER_CHALLENGE;
    }
    const statusCode = statusOf(error);
    return { statusCode, body: envelope(error.code, error.errors), headers, internal: statusCode >= 500 };
  }
  const clientStatus = clientStatusOf(error);
  if (clientStatus !== null && clientStatus >= 400 && clientStatus < 500) return frameworkError(clientStatus);
  const errorId = newErrorId();
  return {
    statusCode: 500,
    body: { ...envelope('INTERNAL_SERVER_ERROR'), error_id: errorId },
    headers: { 'x-error-id': errorId },
    internal: true,
  };
}

/**
 * Answers a domain error from a Fastify hook (before any controller, so outside Nest's exception
 * filter), in the error envelope, with `headers` added.
 */
export function sendError(
  reply: FastifyReply,
  error: DomainError,
  headers: Record<string, string> = {},
): FastifyReply {
  const response = toErrorResponse(error, () => '');
  return reply
    .status(response.statusCode)
    .headers({ ...response.headers, ...headers })
    .type('application/json')
    .send(response.body);
}
