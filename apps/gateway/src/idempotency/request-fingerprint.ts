import { createHmac, hkdfSync } from 'node:crypto';

/** Text written as it is, among the values still to serialise. */
class Literal {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted, so that two encodings of the same body compare equal (members
 * whose value is undefined left out, an undefined item written null). Iterative: a body's depth
 * is bounded where it is parsed (JSON_LIMITS), but this does not rely on it.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value instanceof Literal) {
      out.push(value.text);
    } else if (Array.isArray(value)) {
      // pushed in reverse: popped as [ item0 , item1 ... ]
      stack.push(new Literal(']'));
      for (let i = value.length - 1; i >= 0; i--) {
        stack.push(value[i]);
        if (i > 0) stack.push(new Literal(','));
      }
      stack.push(new Literal('['));
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      stack.push(new Literal('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, member] = entries[i];
        stack.push(member, new Literal(`${JSON.stringify(key)}:`));
        if (i > 0) stack.push(new Literal(','));
      }
      stack.push(new Literal('{'));
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  return out.join('');
}

/**
 * The key of request fingerprints, derived from IDEMPOTENCY_KEY_SECRET (before decision 0027: from
 * JWT_SIGNING_KEY) for this one purpose. Keyed, because a body can hold a card number and CVV: an
 * unkeyed hash of it, stored next to a response showing the card's bin, last four and expiry,
 * could be brute-forced back to the card.
 */
export function fingerprintKey(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'kessai', 'idempotency-request-fingerprint', 32));
}

/**
 * Request fingerprints under the current secret, recognising those stored under previous ones
 * (decision 0027: records written before IDEMPOTENCY_KEY_SECRET, whose key came from
 * JWT_SIGNING_KEY, still match their repeats until they expire).
 */
export class RequestFingerprints {
  readonly #current: Buffer;
  readonly #previous: Buffer[];

  constructor(secret: string, previous: readonly string[] = []) {
    this.#current = fingerprintKey(secret);
    this.#previous = previous.filter((old) => old !== secret).map(fingerprintKey);
  }

  /** The fingerprint a new record stores. */
  of(method: string, url: string, body: unknown): string {
    return requestFingerprint(this.#current, method, url, body);
  }

  /**
   * Whether `stored` is the fingerprint of this request (`current`: its fingerprint under the
   * current secret), under the current secret or a previous one.
   */
  matches(stored: string, current: string, method: string, url: string, body: unknown): boolean {
    if (stored === current) return true;
    return this.#previous.some((key) => requestFingerprint(key, method, url, body) === stored);
  }
}

/**
 * What makes two requests "the same request" for an Idempotency-Key: method, path with query, and
 * the parsed body (key order and whitespace do not matter, values do), as an HMAC under `key`.
 */
export function requestFingerprint(key: Buffer, method: string, url: string, body: unknown): string {
  return createHmac('sha256', key)
    .update(`${method}\n${url}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}
