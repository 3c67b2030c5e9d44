import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { CardNumber } from '@kessai/cards';
import { CardFingerprinter } from './card-fingerprint';
import { UnknownVaultKeyError, VaultConfigurationError, VaultIntegrityError } from './vault-errors';

/** One entry of VAULT_KEYS as libs/config parses it; the first configured key encrypts. */
export interface VaultKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * The encrypted PAN as the card_vault row stores it (prisma model CardVault). Prisma returns
 * Bytes columns as Uint8Array, so a row can be passed back to `decrypt` as it is read.
 */
export interface EncryptedCardNumber {
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}

/** Bytes backed by a plain ArrayBuffer: the type Prisma's generated client takes for Bytes columns. */
export type VaultBytes = Uint8Array<ArrayBuffer>;

/** A new card_vault row's encrypted columns, ready for a Prisma create or update. */
export interface CardVaultEntry extends EncryptedCardNumber {
  iv: VaultBytes;
  ciphertext: VaultBytes;
  authTag: VaultBytes;
  fingerprint: string;
}

/** The row the ciphertext belongs to. It is authenticated with the ciphertext (GCM AAD). */
export interface VaultBinding {
  transactionTokenId: string;
}

const ALGORITHM = 'aes-256-gcm';
/** 96 bits: the IV size GCM is designed for; random per encryption, never reused with a key. */
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Label and version of what is encrypted, so a ciphertext made for anything else never verifies here. */
const AAD_CONTEXT = 'kessai.card_vault.pan.v1';

/**
 * Encrypts card numbers for the card_vault table with AES-256-GCM and decrypts them for the
 * processor. Rotation: the first key encrypts; every configured key decrypts, chosen by the key id
 * stored beside the ciphertext; `reencrypt` moves an entry to the current key.
 *
 * The additional authenticated data binds each ciphertext to its transaction token, so an entry
 * copied onto another token's row (e.g. by an attacker with write access to the table) fails to
 * decrypt instead of charging someone else's card.
 */
export class CardVault {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #activeKeyId: string;
  readonly #fingerprinter: CardFingerprinter;

  constructor(keys: readonly VaultKey[], fingerprintSecret: Buffer | string) {
    if (keys.length === 0) throw new VaultConfigurationError('at least one key is required');
    const byId = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (!id) throw new VaultConfigurationError('a key has an empty id');
      if (byId.has(id)) throw new VaultConfigurationError(`key id "${id}" appears twice`);
      if (key.length !== KEY_BYTES) {
        throw new VaultConfigurationError(`key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
      }
      byId.set(id, Buffer.from(key));
    }
    this.#keys = byId;
    this.#activeKeyId = keys[0].id;
    this.#fingerprinter = new CardFingerprinter(fingerprintSecret);
  }

  /** The key new entries are encrypted with. */
  get activeKeyId(): string {
    return this.#activeKeyId;
  }

  encrypt(cardNumber: CardNumber, binding: VaultBinding): CardVaultEntry {
    return { ...this.#seal(cardNumber, binding), fingerprint: this.fingerprint(cardNumber) };
  }

  decrypt(entry: EncryptedCardNumber, binding: VaultBinding): CardNumber {
    const aad = additionalData(binding);
    const key = this.#keys.get(entry.keyId);
    if (!key) throw new UnknownVaultKeyError(entry.keyId);
    // A shorter tag would be accepted by Node unless checked, and would weaken the authentication.
    if (entry.iv.length !== IV_BYTES || entry.authTag.length !== AUTH_TAG_BYTES) {
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
    let plaintext: Buffer;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, entry.iv, { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(entry.authTag);
      plaintext = Buffer.concat([decipher.update(entry.ciphertext), decipher.final()]);
    } catch {
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
    try {
      return CardNumber.fromDigits(plaintext.toString('ascii'));
    } catch {
      // Authentic but not a card number: written by something else; still never echo it.
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
  }

  /** Whether an entry still uses an older key and should be re-encrypted. */
  needsReencryption(entry: Pick<EncryptedCardNumber, 'keyId'>): boolean {
    return entry.keyId !== this.#activeKeyId;
  }

  /**
   * The same card number under the active key with a fresh IV, for rotation. The fingerprint does
   * not depend on the encryption key, so it stays the same.
   */
  reencrypt(entry: EncryptedCardNumber, binding: VaultBinding): CardVaultEntry {
    return this.encrypt(this.decrypt(entry, binding), binding);
  }

  fingerprint(cardNumber: CardNumber): string {
    return this.#fingerprinter.fingerprint(cardNumber);
  }

  #seal(cardNumber: CardNumber, binding: VaultBinding): Omit<CardVaultEntry, 'fingerprint'> {
    const keyId = this.#activeKeyId;
    const key = this.#keys.get(keyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: AUTH_TAG_BYTES });
    cipher.setAAD(additionalData(binding));
    const ciphertext = Buffer.concat([cipher.update(cardNumber.reveal(), 'ascii'), cipher.final()]);
    return { keyId, iv: bytes(iv), ciphertext: bytes(ciphertext), authTag: bytes(cipher.getAuthTag()) };
  }

  toJSON(): { activeKeyId: string; keyIds: string[] } {
    return { activeKeyId: this.#activeKeyId, keyIds: [...this.#keys.keys()] };
  }

  [inspect.custom](): string {
    return `CardVault ${inspect(this.toJSON())}`;
  }
}

function bytes(buffer: Buffer): VaultBytes {
  return new Uint8Array(buffer);
}

/**
 * What the ciphertext is authenticated together with: what it is and which transaction token it
 * belongs to. The key id needs no binding: pointing an entry at another key already fails.
 */
function additionalData(binding: VaultBinding): Buffer {
  if (!binding.transactionTokenId) throw new TypeError('a vault binding needs the transaction token id');
  return Buffer.from(JSON.stringify([AAD_CONTEXT, binding.transactionTokenId]), 'utf8');
}
