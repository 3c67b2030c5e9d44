import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical text form (any case): what a `uuid` column accepts without an error. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5: SHA-1 of the namespace's 16 bytes and the name's
 * UTF-8): the same namespace and name always give the same UUID, and nothing needs storing.
 */
export function uuidV5(namespace: string, name: string): string {
  if (!isUuid(namespace)) throw new TypeError('the namespace of a UUIDv5 is a UUID');
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
