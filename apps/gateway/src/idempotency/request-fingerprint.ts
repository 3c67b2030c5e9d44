import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so that two encodings of the same body compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same request" for an Idempotency-Key: method, path with query, and
 * the parsed body (key order and whitespace do not matter, values do).
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${url}\n${canonical(body ?? null)}`)
    .digest('hex');
}
