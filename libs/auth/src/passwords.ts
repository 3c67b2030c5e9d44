import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Merchant-user passwords: scrypt with a per-user random salt. The cost is OWASP's N=2^14, r=8, p=5
 * (16 MiB, as strong as N=2^17, r=8, p=1 with an eighth of the memory, so parallel logins stay
 * cheap in RAM); about 0.2 s per hash on a small server. The parameters are stored in each hash,
 * so they can be raised later without invalidating existing passwords.
 *
 * Format: scrypt$<N>$<r>$<p>$<salt>$<key>, salt and key in base64url.
 */
export const PASSWORD_HASH_COST = { N: 16_384, r: 8, p: 5 } as const;

const KEY_BYTES = 32;
const SALT_BYTES = 16;
const MAX_MEMORY = 256 * 1024 * 1024;

function derive(
  password: string,
  salt: Buffer,
  cost: { N: number; r: number; p: number },
  length: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // NFKC, so that the same password typed on two keyboards (composed or decomposed) matches
    scrypt(password.normalize('NFKC'), salt, length, { ...cost, maxmem: MAX_MEMORY }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, PASSWORD_HASH_COST, KEY_BYTES);
  const { N, r, p } = PASSWORD_HASH_COST;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string) {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0) || salt.length === 0 || key.length === 0) {
    return null;
  }
  return { cost: { N, r, p }, salt, key };
}

/** Whether the password matches the stored hash (constant-time comparison of the derived keys). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  let key: Buffer;
  try {
    key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
  } catch {
    return false; // parameters scrypt refuses (N not a power of two, too much memory)
  }
  return timingSafeEqual(key, parsed.key);
}

let dummyHash: Promise<string> | undefined;

/**
 * A valid hash of a password nobody knows. Checking a password against it when an account does not
 * exist makes a failed login take as long as one with a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}
