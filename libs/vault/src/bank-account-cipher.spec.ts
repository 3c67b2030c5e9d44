import { randomBytes, randomUUID } from 'node:crypto';
import { CardNumber } from '@kessai/cards';
import { format, inspect } from 'node:util';
import { BankAccountCipher, BankAccountIntegrityError } from './bank-account-cipher';
import { CardVault } from './card-vault';
import type { VaultKey } from './sealing-keys';
import { UnknownVaultKeyError, VaultConfigurationError } from './vault-errors';

const NUMBER = '1234567';
const SECRET = randomBytes(32);
const key = (id: string): VaultKey => ({ id, key: randomBytes(32) });
const k1 = key('k1');
const k2 = key('k2');
const bank = { country: 'JP', bankName: 'Mizuho Bank', branchName: 'Shibuya' };

describe('BankAccountCipher', () => {
  const cipher = new BankAccountCipher([k1], SECRET);

  it('round-trips an account number bound to its bank account, and keeps its last four', () => {
    const id = randomUUID();
    const entry = cipher.encrypt(NUMBER, bank, id);
    expect(entry).toMatchObject({ keyId: 'k1', lastFour: '4567' });
    expect(Buffer.from(entry.ciphertext).toString('latin1')).not.toContain(NUMBER);
    expect(cipher.decrypt(entry, id)).toBe(NUMBER);
  });

  it('refuses an entry moved onto another bank account, or altered', () => {
    const entry = cipher.encrypt(NUMBER, bank, randomUUID());
    expect(() => cipher.decrypt(entry, randomUUID())).toThrow(BankAccountIntegrityError);
    const id = randomUUID();
    const sealed = cipher.encrypt(NUMBER, bank, id);
    const ciphertext = Uint8Array.from(sealed.ciphertext, (b, i) => (i === 0 ? b ^ 1 : b));
    expect(() => cipher.decrypt({ ...sealed, ciphertext }, id)).toThrow(BankAccountIntegrityError);
    expect(() => cipher.decrypt({ ...entry, authTag: entry.authTag.slice(0, 8) }, id)).toThrow(
      BankAccountIntegrityError,
    );
  });

  it('never opens a card vault entry as an account number', () => {
    const vault = new CardVault([k1], SECRET);
    const id = randomUUID();
    const card = vault.encrypt(CardNumber.fromDigits('4242424242424242'), { transactionTokenId: id });
    expect(() => cipher.decrypt(card, id)).toThrow(BankAccountIntegrityError);
  });

  it('decrypts with an older key after a rotation, and encrypts with the first', () => {
    const id = randomUUID();
    const old = new BankAccountCipher([k2], SECRET).encrypt(NUMBER, bank, id);
    const rotated = new BankAccountCipher([k1, k2], SECRET);
    expect(rotated.decrypt(old, id)).toBe(NUMBER);
    expect(rotated.encrypt(NUMBER, bank, id).keyId).toBe('k1');
    expect(() => cipher.decrypt(old, id)).toThrow(UnknownVaultKeyError);
    const moved = rotated.reencrypt(old, id);
    expect(moved.keyId).toBe('k1');
    expect(cipher.decrypt(moved, id)).toBe(NUMBER);
  });

  it('fingerprints the same account at the same bank alike, whatever the key and case', () => {
    const a = cipher.fingerprint(NUMBER, bank);
    expect(new BankAccountCipher([k2], SECRET).fingerprint(NUMBER, bank)).toBe(a);
    expect(
      cipher.fingerprint(NUMBER, { country: 'jp', bankName: ' mizuho bank', branchName: 'SHIBUYA' }),
    ).toBe(a);
    expect(cipher.fingerprint(NUMBER, { ...bank, branchName: 'Shinjuku' })).not.toBe(a);
    expect(cipher.fingerprint('1234568', bank)).not.toBe(a);
    expect(new BankAccountCipher([k1], randomBytes(32)).fingerprint(NUMBER, bank)).not.toBe(a);
  });

  it('shows no key material', () => {
    expect(format('%o', cipher)).not.toContain(k1.key.toString('hex'));
    expect(inspect(cipher)).toBe("BankAccountCipher { activeKeyId: 'k1' }");
    expect(JSON.stringify(cipher)).toBe('{"activeKeyId":"k1"}');
  });

  it('refuses a bad configuration', () => {
    expect(() => new BankAccountCipher([], SECRET)).toThrow(VaultConfigurationError);
    expect(() => new BankAccountCipher([k1, k1], SECRET)).toThrow(VaultConfigurationError);
    expect(() => new BankAccountCipher([{ id: 'k', key: randomBytes(16) }], SECRET)).toThrow(
      VaultConfigurationError,
    );
    expect(() => new BankAccountCipher([k1], 'short')).toThrow(VaultConfigurationError);
  });
});
