export type ProcessorOperation =
  | 'authorize'
  | 'capture'
  | 'void'
  | 'refund'
  | 'create_operator_payment'
  | 'create_deferred_payment'
  | 'status'
  | 'create_payout';

export abstract class ProcessorError extends Error {
  abstract readonly retryable: boolean;

  protected constructor(
    readonly operation: ProcessorOperation,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export type TransientFailureKind =
  /** no answer in time: the operation may or may not have happened */
  | 'timeout'
  /** the connection failed (refused, reset, DNS) */
  | 'network'
  /** HTTP 5xx */
  | 'server_error'
  /** HTTP 429 */
  | 'rate_limited'
  /** a 2xx answer we could not read: the operation may have happened */
  | 'malformed_response';

/**
 * Why a failed call provably executed nothing at the processor (decision 0056): the connection
 * was refused, so no byte of the request reached it; the processor's name did not resolve, so no
 * connection was made; or the processor answered that it did not process the request (only an
 * answer its documentation says so of: Stripe's 429 `rate_limit`). A timeout, a reset connection,
 * a 5xx or any other answer is no such proof.
 */
export type UnexecutedReason = 'connection_refused' | 'dns_failure' | 'not_processed';

/** The socket errors that prove the request never left: refused, or no address to connect to. */
const UNEXECUTED_SOCKET_ERRORS: Readonly<Record<string, UnexecutedReason>> = {
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
  EAI_NONAME: 'dns_failure',
  EAI_FAIL: 'dns_failure',
};

/**
 * The UnexecutedReason of a transport failure (a node:net error, or fetch's TypeError around one
 * as its cause), null when it may have reached the processor.
 */
export function unexecutedReasonOf(error: unknown): UnexecutedReason | null {
  for (let current = error, depth = 0; depth < 3; depth++) {
    if (typeof current !== 'object' || current === null) return null;
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string' && Object.hasOwn(UNEXECUTED_SOCKET_ERRORS, code))
      return UNEXECUTED_SOCKET_ERRORS[code] ?? null;
    current = 'cause' in current ? current.cause : undefined;
  }
  return null;
}

/**
 * The processor could not give an answer now. Retry with backoff and the same idempotency key;
 * for an authorization, `status(reference)` tells whether it went through.
 */
export class TransientProcessorError extends ProcessorError {
  readonly retryable = true;

  constructor(
    operation: ProcessorOperation,
    readonly kind: TransientFailureKind,
    readonly httpStatus: number | null = null,
    /** from the processor's Retry-After header, when it sent one */
    readonly retryAfterMs: number | null = null,
    /** set only when the call provably executed nothing (decision 0056); null: it may have */
    readonly unexecuted: UnexecutedReason | null = null,
  ) {
    super(
      operation,
      `processor ${operation} failed transiently: ${kind}${httpStatus ? ` (HTTP ${httpStatus})` : ''}`,
    );
  }
}

/**
 * The processor refused the request itself (malformed, unauthorised, idempotency key reused with
 * different content). Sending it again will not help: this is a bug or a configuration problem.
 */
export class ProcessorRequestRejectedError extends ProcessorError {
  readonly retryable = false;

  constructor(
    operation: ProcessorOperation,
    readonly httpStatus: number,
    readonly type: string,
    detail: string,
  ) {
    super(operation, `processor refused the ${operation} request: HTTP ${httpStatus} ${type}: ${detail}`);
  }
}

export function isRetryableProcessorError(error: unknown): error is TransientProcessorError {
  return error instanceof TransientProcessorError;
}

/**
 * Whether a failure of a processor call should be retried. Adapters turn every I/O failure into
 * a TransientProcessorError, so anything else is final: a refused request or a bug, and retrying
 * a bug only repeats it. Declines are results, not errors, and are final too.
 */
export function classifyProcessorError(error: unknown): 'retryable' | 'final' {
  return isRetryableProcessorError(error) ? 'retryable' : 'final';
}
