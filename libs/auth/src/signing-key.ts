import { createSecretKey, type KeyObject } from 'node:crypto';

const keys = new Map<string, KeyObject>();

/**
 * The HMAC key object for a signing key string, made once. Given a plain string, jsonwebtoken first
 * tries to parse it as a PEM public key on every call — a thrown and caught error that cost a fifth of
 * the gateway's CPU in bench/ — before falling back to a secret key.
 */
export function hmacKey(signingKey: string): KeyObject {
  let key = keys.get(signingKey);
  if (!key) {
    key = createSecretKey(Buffer.from(signingKey, 'utf8'));
    keys.set(signingKey, key);
  }
  return key;
}
