import { randomBytes, randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { CvvCipher } from './cvv-cipher';
import { UnknownVaultKeyError, VaultConfigurationError, VaultIntegrityError } from './vault-errors';

const k1 = { id: 'k1', key: randomBytes(32) };
const k2 = { id: 'k2', key: randomBytes(32) };
const binding = { transactionTokenId: randomUUID() };

describe('CvvCipher', () => {
  const cipher = new CvvCipher([k1]);

  it('round-trips a CVV, with a fresh IV each time and the key id in clear', () => {
    const a = cipher.seal('0427', binding);
    const b = cipher.seal('0427', binding);
    expect(a).not.toBe(b);
    expect(a.startsWith('k1.')).toBe(true);
    expect(a.split('.').slice(1).join('.')).not.toContain('0427');
    expect(cipher.open(a, binding)).toBe('0427');
  });

  it('opens values sealed under an older key during rotation, and seals with the first key', () => {
    const old = cipher.seal('123', binding);
    const rotated = new CvvCipher([k2, k1]);
    expect(rotated.open(old, binding)).toBe('123');
    expect(rotated.seal('123', binding).startsWith('k2.')).toBe(true);
    expect(() => new CvvCipher([k2]).open(old, binding)).toThrow(UnknownVaultKeyError);
  });

  it('refuses tampered values and values moved to another token', () => {
    const sealed = cipher.seal('123', binding);
    const [id, iv, ct, tag] = sealed.split('.');
    const flipped = Buffer.from(ct, 'base64url');
    flipped[0] ^= 1;
    expect(() => cipher.open([id, iv, flipped.toString('base64url'), tag].join('.'), binding)).toThrow(
      VaultIntegrityError,
    );
    expect(() => cipher.open(`${id}.${iv}.${ct}`, binding)).toThrow(VaultIntegrityError);
    expect(() => cipher.open(sealed, { transactionTokenId: randomUUID() })).toThrow(VaultIntegrityError);
    expect(() => cipher.open(sealed, { transactionTokenId: '' })).toThrow(TypeError);
  });

  it('refuses bad configuration and leaks no key in its text forms', () => {
    expect(() => new CvvCipher([])).toThrow(VaultConfigurationError);
    expect(() => new CvvCipher([{ id: 'a.b', key: randomBytes(32) }])).toThrow(VaultConfigurationError);
    expect(() => new CvvCipher([{ id: 'k', key: randomBytes(16) }])).toThrow(VaultConfigurationError);
    const text = `${JSON.stringify(cipher)} ${inspect(cipher, { showHidden: true })}`;
    expect(text).not.toContain(k1.key.toString('hex'));
    expect(text).not.toContain(k1.key.toString('base64'));
  });
});
