import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * App-token secrets are 256 random bits, so a fast hash is as safe to store as a slow one and keeps
 * authentication cheap on every request. The secret is shown once; only its hash is kept.
 */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function hashSecret(secret: string): string {
  return `sha256$${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(presented: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'utf8');
  const actual = Buffer.from(hashSecret(presented), 'utf8');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
