import { scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import { dummyPasswordHash, hashPassword, PASSWORD_HASH_COST, verifyPassword } from './passwords';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
  options: object,
) => Promise<Buffer>;

describe('password hashing', () => {
  it('verifies the password it was made from and nothing else', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash, and keeps its cost parameters in the stored value', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    const { N, r, p } = PASSWORD_HASH_COST;
    expect(a).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`));
    expect(a).not.toContain('same password');
  });

  it('still verifies a hash made with other cost parameters (they can be raised later)', async () => {
    const stored = await hashPassword('pw-123456');
    const [, , , , salt] = stored.split('$');
    // rebuild with a cheaper cost: the derived key differs, so the match must come from the stored N/r/p
    const key = await scryptAsync('pw-123456', Buffer.from(salt, 'base64url'), 32, { N: 1024, r: 8, p: 1 });
    const cheap = `scrypt$1024$8$1$${salt}$${key.toString('base64url')}`;
    expect(await verifyPassword('pw-123456', cheap)).toBe(true);
    expect(await verifyPassword('pw-1234567', cheap)).toBe(false);
  });

  it('treats composed and decomposed forms of one password alike (NFKC)', async () => {
    const stored = await hashPassword('caf\u00e9-password');
    expect(await verifyPassword('cafe\u0301-password', stored)).toBe(true);
  });

  it.each([
    '',
    'plain',
    'sha256$abc',
    'scrypt$x$8$1$c2FsdA$a2V5',
    'scrypt$1024$8$1$$a2V5',
    'scrypt$1000$8$1$c2FsdA$a2V5',
  ])('answers false, not an error, for a malformed stored value %j', async (stored) => {
    expect(await verifyPassword('anything', stored)).toBe(false);
  });

  it('offers one dummy hash that no ordinary password matches', async () => {
    const dummy = await dummyPasswordHash();
    expect(await dummyPasswordHash()).toBe(dummy);
    expect(await verifyPassword('password', dummy)).toBe(false);
  });
});
