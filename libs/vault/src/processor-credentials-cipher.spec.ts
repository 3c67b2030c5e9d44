import { randomBytes, randomUUID } from 'node:crypto';
import { format, inspect } from 'node:util';
import { BankAccountCipher } from './bank-account-cipher';
import {
  ProcessorCredentialsCipher,
  ProcessorCredentialsIntegrityError,
} from './processor-credentials-cipher';
import type { VaultKey } from './sealing-keys';
import { UnknownVaultKeyError } from './vault-errors';

const key = (id: string): VaultKey => ({ id, key: randomBytes(32) });
const k1 = key('k1');
const k2 = key('k2');
const CREDENTIALS = { secretKey: 'sk_live_cipher_spec_key', webhookSecret: 'whsec_cipher_spec_secret' };

describe('ProcessorCredentialsCipher', () => {
  const cipher = new ProcessorCredentialsCipher([k1]);

  it('round-trips credentials bound to their account, nothing of them in the clear', () => {
    const id = randomUUID();
    const entry = cipher.seal(CREDENTIALS, id);
    expect(entry.keyId).toBe('k1');
    const stored = Buffer.from(entry.ciphertext).toString('latin1');
    expect(stored).not.toContain(CREDENTIALS.secretKey);
    expect(stored).not.toContain(CREDENTIALS.webhookSecret);
    expect(cipher.open(entry, id)).toEqual(CREDENTIALS);
    expect(cipher.open(cipher.seal({ secretKey: null, webhookSecret: null }, id), id)).toEqual({
      secretKey: null,
      webhookSecret: null,
    });
  });

  it('refuses credentials moved onto another account, or altered', () => {
    const id = randomUUID();
    const entry = cipher.seal(CREDENTIALS, id);
    expect(() => cipher.open(entry, randomUUID())).toThrow(ProcessorCredentialsIntegrityError);
    const ciphertext = Uint8Array.from(entry.ciphertext, (b, i) => (i === 0 ? b ^ 1 : b));
    expect(() => cipher.open({ ...entry, ciphertext }, id)).toThrow(ProcessorCredentialsIntegrityError);
  });

  it('never opens another sealed value of the vault as credentials', () => {
    const id = randomUUID();
    const number = new BankAccountCipher([k1], randomBytes(32)).encrypt(
      '1234567',
      { country: 'JP', bankName: 'Mizuho', branchName: null },
      id,
    );
    expect(() => cipher.open(number, id)).toThrow(ProcessorCredentialsIntegrityError);
  });

  it('opens with an older key after a rotation, and seals again with the first', () => {
    const id = randomUUID();
    const old = new ProcessorCredentialsCipher([k2]).seal(CREDENTIALS, id);
    const rotated = new ProcessorCredentialsCipher([k1, k2]);
    expect(rotated.open(old, id)).toEqual(CREDENTIALS);
    expect(() => cipher.open(old, id)).toThrow(UnknownVaultKeyError);
    const moved = rotated.reencrypt(old, id);
    expect(moved.keyId).toBe('k1');
    expect(cipher.open(moved, id)).toEqual(CREDENTIALS);
  });

  it('shows no key when logged or inspected', () => {
    const text = `${format('%o', cipher)} ${inspect(cipher)} ${JSON.stringify(cipher)}`;
    expect(text).toContain('k1');
    expect(text).not.toContain(k1.key.toString('base64'));
    expect(text).not.toContain(k1.key.toString('hex'));
  });
});
