import { randomBytes, randomUUID } from 'node:crypto';
import { format, inspect } from 'node:util';
import { CardNumber } from '@kessai/cards';
import { CardVault, type CardVaultEntry } from './card-vault';
import type { VaultKey } from './sealing-keys';
import { UnknownVaultKeyError, VaultConfigurationError, VaultIntegrityError } from './vault-errors';

const PAN = '4000056655665556';
const OTHER_PAN = '5555555555554444';
const FINGERPRINT_SECRET = randomBytes(32);
const key = (id: string): VaultKey => ({ id, key: randomBytes(32) });
const k1 = key('k1');
const k2 = key('k2');

const card = CardNumber.fromDigits(PAN);
const binding = { transactionTokenId: randomUUID() };

function flipFirstBit(bytes: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[0] ^= 0x01;
  return copy;
}

describe('CardVault', () => {
  const vault = new CardVault([k1], FINGERPRINT_SECRET);

  it('round-trips a card number', () => {
    const entry = vault.encrypt(card, binding);
    expect(entry.keyId).toBe('k1');
    expect(entry.iv).toHaveLength(12);
    expect(entry.authTag).toHaveLength(16);
    expect(entry.ciphertext).toHaveLength(PAN.length);
    expect(vault.decrypt(entry, binding).reveal()).toBe(PAN);
  });

  it('never stores the digits in the clear, and uses a fresh IV each time', () => {
    const a = vault.encrypt(card, binding);
    const b = vault.encrypt(card, binding);
    expect(Buffer.from(a.ciphertext).toString('latin1')).not.toContain(PAN);
    expect(Buffer.from(a.iv).equals(Buffer.from(b.iv))).toBe(false);
    expect(Buffer.from(a.ciphertext).equals(Buffer.from(b.ciphertext))).toBe(false);
  });

  it('decrypts a row as Prisma returns it (plain Uint8Array columns)', () => {
    const entry = vault.encrypt(card, binding);
    const row = {
      id: randomUUID(),
      transactionTokenId: binding.transactionTokenId,
      keyId: entry.keyId,
      iv: Uint8Array.from(entry.iv),
      ciphertext: Uint8Array.from(entry.ciphertext),
      authTag: Uint8Array.from(entry.authTag),
      fingerprint: entry.fingerprint,
    };
    expect(vault.decrypt(row, row).reveal()).toBe(PAN);
  });

  describe('refuses tampered entries', () => {
    const entry = vault.encrypt(card, binding);
    it.each<[string, (e: CardVaultEntry) => CardVaultEntry]>([
      ['iv', (e) => ({ ...e, iv: flipFirstBit(e.iv) as CardVaultEntry['iv'] })],
      [
        'ciphertext',
        (e) => ({ ...e, ciphertext: flipFirstBit(e.ciphertext) as CardVaultEntry['ciphertext'] }),
      ],
      ['auth tag', (e) => ({ ...e, authTag: flipFirstBit(e.authTag) as CardVaultEntry['authTag'] })],
      ['truncated auth tag', (e) => ({ ...e, authTag: e.authTag.slice(0, 12) })],
      ['truncated iv', (e) => ({ ...e, iv: e.iv.slice(0, 8) })],
    ])('%s', (_part, tamper) => {
      expect(() => vault.decrypt(tamper(entry), binding)).toThrow(VaultIntegrityError);
    });

    it('refuses to work without the row it belongs to', () => {
      expect(() => vault.encrypt(card, { transactionTokenId: '' })).toThrow(TypeError);
      expect(() => vault.decrypt(entry, { transactionTokenId: '' })).toThrow(TypeError);
    });

    it('moved to another row (different AAD)', () => {
      const other = { transactionTokenId: randomUUID() };
      expect(() => vault.decrypt(entry, other)).toThrow(VaultIntegrityError);
    });

    it('with its key id pointed at another configured key', () => {
      const both = new CardVault([k1, k2], FINGERPRINT_SECRET);
      expect(() => both.decrypt({ ...both.encrypt(card, binding), keyId: 'k2' }, binding)).toThrow(
        VaultIntegrityError,
      );
    });
  });

  describe('key rotation', () => {
    const before = new CardVault([k1], FINGERPRINT_SECRET);
    const during = new CardVault([k2, k1], FINGERPRINT_SECRET);
    const after = new CardVault([k2], FINGERPRINT_SECRET);
    const old = before.encrypt(card, binding);

    it('encrypts with the first key and decrypts with any configured key', () => {
      expect(during.activeKeyId).toBe('k2');
      expect(during.decrypt(old, binding).reveal()).toBe(PAN);
      expect(during.encrypt(card, binding).keyId).toBe('k2');
    });

    it('re-encrypts an old entry under the active key with the same fingerprint', () => {
      expect(during.needsReencryption(old)).toBe(true);
      const moved = during.reencrypt(old, binding);
      expect(moved.keyId).toBe('k2');
      expect(during.needsReencryption(moved)).toBe(false);
      expect(moved.fingerprint).toBe(old.fingerprint);
      expect(after.decrypt(moved, binding).reveal()).toBe(PAN);
    });

    it('says clearly when an entry needs a key that is no longer configured', () => {
      expect(() => after.decrypt(old, binding)).toThrow(UnknownVaultKeyError);
      expect(() => after.decrypt(old, binding)).toThrow(/"k1" is not configured/);
    });
  });

  describe('fingerprints', () => {
    it('are stable across keys and encryptions, and differ between cards', () => {
      const a = new CardVault([k1], FINGERPRINT_SECRET);
      const b = new CardVault([k2, k1], FINGERPRINT_SECRET);
      expect(a.encrypt(card, binding).fingerprint).toBe(
        b.encrypt(card, { transactionTokenId: randomUUID() }).fingerprint,
      );
      expect(a.fingerprint(card)).toMatch(/^[0-9a-f]{64}$/);
      expect(a.fingerprint(card)).not.toBe(a.fingerprint(CardNumber.fromDigits(OTHER_PAN)));
    });

    it('depend on the fingerprint secret', () => {
      const other = new CardVault([k1], randomBytes(32));
      expect(other.fingerprint(card)).not.toBe(new CardVault([k1], FINGERPRINT_SECRET).fingerprint(card));
    });
  });

  describe('configuration', () => {
    it.each<[string, () => CardVault]>([
      ['no keys', () => new CardVault([], FINGERPRINT_SECRET)],
      ['a short key', () => new CardVault([{ id: 'k', key: randomBytes(16) }], FINGERPRINT_SECRET)],
      ['duplicate ids', () => new CardVault([k1, { ...k2, id: 'k1' }], FINGERPRINT_SECRET)],
      ['a short fingerprint secret', () => new CardVault([k1], 'too short')],
    ])('refuses %s', (_name, build) => {
      expect(build).toThrow(VaultConfigurationError);
    });

    it('does not keep a reference to the caller’s key buffers', () => {
      const mutable = key('m');
      const v = new CardVault([mutable], FINGERPRINT_SECRET);
      const entry = v.encrypt(card, binding);
      mutable.key.fill(0);
      expect(v.decrypt(entry, binding).reveal()).toBe(PAN);
    });
  });

  describe('leaks nothing', () => {
    const entry = vault.encrypt(card, binding);
    const decrypted = vault.decrypt(entry, binding);
    const keyHex = k1.key.toString('hex');
    const keyBase64 = k1.key.toString('base64');

    it('in the text forms of the vault, its entries and what it decrypts', () => {
      const text = [vault, entry, decrypted]
        .flatMap((v) => [
          JSON.stringify(v),
          inspect(v, { depth: 10, showHidden: true }),
          format('%s %o', v, v),
        ])
        .concat(decrypted.toString())
        .join('\n');
      expect(text).not.toContain(PAN);
      expect(text).not.toContain(keyHex);
      expect(text).not.toContain(keyBase64);
      expect(inspect(vault)).toContain('k1');
    });

    it('in error messages', () => {
      const errors: unknown[] = [];
      const attempts = [
        () => vault.decrypt({ ...entry, authTag: flipFirstBit(entry.authTag) }, binding),
        () => new CardVault([k2], FINGERPRINT_SECRET).decrypt(entry, binding),
        () => vault.decrypt(entry, { transactionTokenId: randomUUID() }),
      ];
      for (const attempt of attempts) {
        try {
          attempt();
        } catch (error) {
          errors.push(error);
        }
      }
      expect(errors).toHaveLength(3);
      const text = errors.map((e) => `${String(e)} ${inspect(e)} ${JSON.stringify(e)}`).join('\n');
      expect(text).not.toContain(PAN);
      expect(text).not.toContain(keyHex);
    });
  });
});
