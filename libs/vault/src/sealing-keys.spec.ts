import { randomBytes } from 'node:crypto';
import { boundTo, SealingKeys } from './sealing-keys';
import { UnknownVaultKeyError, VaultConfigurationError } from './vault-errors';

const key = (id: string) => ({ id, key: randomBytes(32) });
const aad = boundTo('kessai.test.v1', 'row-1', 'row id');

describe('SealingKeys', () => {
  const [old, current] = [key('k1'), key('k2')];

  it('opens what it sealed, under the active key with a fresh IV each time', () => {
    const keys = new SealingKeys([current, old]);
    const a = keys.seal('4242', aad);
    const b = keys.seal('4242', aad);
    expect(a.keyId).toBe('k2');
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(keys.open(a, aad)?.toString('utf8')).toBe('4242');
  });

  it('opens a value sealed under an older key still configured (rotation)', () => {
    const sealed = new SealingKeys([old]).seal('4242', aad);
    expect(new SealingKeys([current, old]).open(sealed, aad)?.toString('utf8')).toBe('4242');
  });

  it('refuses a value bound to another row or purpose, altered, or with a short tag', () => {
    const keys = new SealingKeys([current]);
    const sealed = keys.seal('4242', aad);
    expect(keys.open(sealed, boundTo('kessai.test.v1', 'row-2', 'row id'))).toBeNull();
    expect(keys.open(sealed, boundTo('kessai.other.v1', 'row-1', 'row id'))).toBeNull();
    const altered = Buffer.from(sealed.ciphertext);
    altered[0] ^= 1;
    expect(keys.open({ ...sealed, ciphertext: altered }, aad)).toBeNull();
    expect(keys.open({ ...sealed, authTag: sealed.authTag.subarray(0, 12) }, aad)).toBeNull();
  });

  it('names a key id that is not configured', () => {
    const sealed = new SealingKeys([old]).seal('4242', aad);
    expect(() => new SealingKeys([current]).open(sealed, aad)).toThrow(UnknownVaultKeyError);
  });

  it('refuses no keys, a repeated id, a wrong size and a forbidden character', () => {
    expect(() => new SealingKeys([])).toThrow(VaultConfigurationError);
    expect(() => new SealingKeys([current, { ...current }])).toThrow(VaultConfigurationError);
    expect(() => new SealingKeys([{ id: 'short', key: randomBytes(16) }])).toThrow(VaultConfigurationError);
    expect(() => new SealingKeys([key('a.b')], { forbidden: '.' })).toThrow(VaultConfigurationError);
    expect(() => boundTo('kessai.test.v1', '', 'row id')).toThrow(TypeError);
  });
});
