/**
 * Whether `error` says that Redis could not be reached or used (ioredis' errors for a connection
 * that is closed, not yet writable, out of retries or timed out, and Node's socket errors), as opposed
 * to an answer about the command itself. The gateway answers it 503 SERVICE_UNAVAILABLE_TRY_AGAIN
 * (docs/decisions/0025-unavailable-dependencies.md).
 */
export function isRedisUnavailable(error: unknown): boolean {
  for (let link = error, depth = 0; link && typeof link === 'object' && depth < 8; depth++) {
    const { name, message, code, cause } = link as {
      name?: unknown;
      message?: unknown;
      code?: unknown;
      cause?: unknown;
    };
    if (name === 'MaxRetriesPerRequestError' || name === 'ClusterAllFailedError') return true;
    if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
    if (typeof message === 'string' && MESSAGES.some((text) => message.includes(text))) return true;
    link = cause;
  }
  return false;
}

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** ioredis' messages (lib/Redis.js, lib/cluster, Command's timeout). */
const MESSAGES = [
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Command timed out',
  'Reached the max retries per request limit',
  'Failed to refresh slots cache',
  'None of startup nodes is available',
  'LOADING Redis is loading the dataset in memory',
];
