/**
 * Whether `error` says that Postgres could not be reached or used at all (a connection refused,
 * lost or timed out, the server shutting down or out of connections, a pool or transaction that
 * could not start in time), as opposed to an answer about the statement itself. Such a failure is
 * the database's unavailability, not a bug: the gateway answers it 503 SERVICE_UNAVAILABLE_TRY_AGAIN
 * with Retry-After (docs/decisions/0025-unavailable-dependencies.md), never 500.
 *
 * It reads pg's errors (SQLSTATE `code`), Node's socket errors, pg's own messages for a connection it
 * lost, and Prisma's errors through the driver adapter (P-codes, the adapter's `kind`), following
 * `cause` and Prisma's `meta.driverAdapterError` so that a wrapped error is recognised too.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return someCause(error, (link) => {
    const code = typeof link.code === 'string' ? link.code : undefined;
    if (code !== undefined) {
      if (PRISMA_UNAVAILABLE.has(code) || SOCKET_CODES.has(code) || SQLSTATE_UNAVAILABLE.has(code))
        return true;
      // class 08: connection exception
      if (/^08[0-9A-Z]{3}$/.test(code)) return true;
    }
    if (typeof link.kind === 'string' && ADAPTER_KINDS.has(link.kind)) return true;
    const message = typeof link.message === 'string' ? link.message : '';
    return PG_MESSAGES.some((text) => message.includes(text));
  });
}

/** Prisma's codes for an unreachable, closed or timed-out database, pool or transaction. */
const PRISMA_UNAVAILABLE = new Set([
  'P1001', // can't reach the database server
  'P1002', // reached it, but it timed out
  'P1008', // operations timed out
  'P1017', // server closed the connection
  'P2024', // timed out fetching a connection from the pool
  'P2028', // transaction API error: could not start (pool wait) or expired
  'P2037', // too many database connections
]);

/** Node's socket errors on the way to the server. */
export const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/** SQLSTATEs of a server that is going away, starting, or out of room for us. */
const SQLSTATE_UNAVAILABLE = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '57P05', // idle_session_timeout
  '53300', // too_many_connections
  '53400', // configuration_limit_exceeded
  '57014', // query_canceled (statement_timeout under load)
]);

/** The driver adapter's kinds for the same (@prisma/adapter-pg's convertDriverError). */
const ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
]);

/** pg's own messages for a connection it lost or could not get (plain Errors, no code). */
const PG_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

type Link = { code?: unknown; kind?: unknown; message?: unknown; cause?: unknown; meta?: unknown };

/** `test` on `error` and each error it wraps (cause, Prisma's meta.driverAdapterError), depth-bounded. */
export function someCause(error: unknown, test: (link: Link) => boolean): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 16; seen++) {
    const link = pending.shift();
    if (!link || typeof link !== 'object') continue;
    const candidate = link as Link;
    if (test(candidate)) return true;
    pending.push(candidate.cause);
    const meta = candidate.meta;
    if (meta && typeof meta === 'object')
      pending.push((meta as { driverAdapterError?: unknown }).driverAdapterError);
  }
  return false;
}
