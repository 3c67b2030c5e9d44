import { createHmac } from 'node:crypto';

/** The Standard Webhooks secret's prefix (`whsec_` + base64 of the key). */
const SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a signing secret, as the `standardwebhooks` package reads it: `whsec_` dropped,
 * the rest base64 (strictly: text that is not canonical base64, or empty, throws, as that package's
 * decoder does for Kessai's secrets).
 */
export function signingKeyOf(secret: string): Buffer {
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(text, 'base64');
  if (key.length === 0 || key.toString('base64') !== text)
    throw new Error('the signing secret is not base64');
  return key;
}

/**
 * One Standard Webhooks signature (`v1,` + base64 of HMAC-SHA256 of `<id>.<timestamp>.<body>`), the
 * bytes the `standardwebhooks` package's `sign` makes (webhook-signature.spec.ts checks them against
 * it, and its `verify` accepts them), computed by node:crypto (OpenSSL) where that package runs a
 * JavaScript SHA-256 (decision 0082).
 */
export function signatureOf(
  key: Buffer,
  id: string,
  timestampSeconds: number,
  body: string | Buffer,
): string {
  const hmac = createHmac('sha256', key);
  hmac.update(`${id}.${timestampSeconds}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}
