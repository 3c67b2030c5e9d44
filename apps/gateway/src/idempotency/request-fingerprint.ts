import { createHmac, hkdfSync } from 'node:crypto';

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
 * The key of request fingerprints, derived from the JWT signing key for this one purpose. Keyed,
 * because a body can hold a card number and CVV: an unkeyed hash of it, stored next to a response
 * showing the card's bin, last four and expiry, could be brute-forced back to the card.
 */
export function fingerprintKey(signingKey: string): Buffer {
  return Buffer.from(hkdfSync('sha256', signingKey, 'kessai', 'idempotency-request-fingerprint', 32));
}

/**
 * What makes two requests "the same request" for an Idempotency-Key: method, path with query, and
 * the parsed body (key order and whitespace do not matter, values do), as an HMAC under `key`.
 */
export function requestFingerprint(key: Buffer, method: string, url: string, body: unknown): string {
  return createHmac('sha256', key)
    .update(`${method}\n${url}\n${canonical(body ?? null)}`)
    .digest('hex');
}
