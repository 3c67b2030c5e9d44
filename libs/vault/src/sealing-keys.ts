import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { UnknownVaultKeyError, VaultConfigurationError } from './vault-errors';

/** One entry of VAULT_KEYS as libs/config parses it; the first configured key encrypts. */
export interface VaultKey {
  readonly id: string;
  readonly key: Buffer;
}

/** Bytes backed by a plain ArrayBuffer: the type Prisma's generated client takes for Bytes columns. */
export type VaultBytes = Uint8Array<ArrayBuffer>;

/**
 * An encrypted value as the vault's tables store it. Prisma returns Bytes columns as Uint8Array, so
 * a row can be passed back to `open` as it is read.
 */
export interface EncryptedValue {
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}

/** A value just sealed: its columns, ready for a Prisma create or update. */
export interface SealedValue extends EncryptedValue {
  iv: VaultBytes;
  ciphertext: VaultBytes;
  authTag: VaultBytes;
}

const ALGORITHM = 'aes-256-gcm';
/** 96 bits: the IV size GCM is designed for; random per encryption, never reused with a key. */
export const IV_BYTES = 12;
export const AUTH_TAG_BYTES = 16;
const KEY_BYTES = 32;

/**
 * The vault's keys (VAULT_KEYS) and the one AES-256-GCM construction every sealed value uses: the
 * first key seals, every configured key opens, chosen by the key id stored beside the ciphertext
 * (rotation). What a value is authenticated with (`aad`: what it is and which row it belongs to, see
 * `boundTo`) is the caller's, so that a value sealed for one purpose or row never opens for another.
 */
export class SealingKeys {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly activeKeyId: string;

  /** `forbidden`: characters a key id may not hold (a text form that joins the parts with one). */
  constructor(keys: readonly VaultKey[], { forbidden = '' }: { forbidden?: string } = {}) {
    if (keys.length === 0) throw new VaultConfigurationError('at least one key is required');
    const byId = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (!id || [...forbidden].some((character) => id.includes(character))) {
        throw new VaultConfigurationError(
          forbidden ? `a key id is empty or contains "${forbidden}"` : 'a key has an empty id',
        );
      }
      if (byId.has(id)) throw new VaultConfigurationError(`key id "${id}" appears twice`);
      if (key.length !== KEY_BYTES) {
        throw new VaultConfigurationError(`key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
      }
      byId.set(id, Buffer.from(key));
    }
    this.#keys = byId;
    this.activeKeyId = keys[0].id;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /** `plaintext` (a string is taken as UTF-8) under the active key, with a fresh random IV. */
  seal(plaintext: string | Buffer, aad: Buffer): SealedValue {
    const keyId = this.activeKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(keyId) as Buffer, iv, {
      authTagLength: AUTH_TAG_BYTES,
    });
    cipher.setAAD(aad);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId, iv: bytes(iv), ciphertext: bytes(ciphertext), authTag: bytes(cipher.getAuthTag()) };
  }

  /**
   * The plaintext, or null when the value fails authentication (altered, sealed for another row or
   * purpose, or its key replaced under the same id): the caller names the row in its own error.
   * An unknown key id throws UnknownVaultKeyError (a retired key removed too early).
   */
  open(value: EncryptedValue, aad: Buffer): Buffer | null {
    const key = this.#keys.get(value.keyId);
    if (!key) throw new UnknownVaultKeyError(value.keyId);
    // a shorter tag would be accepted by Node unless checked, and would weaken the authentication
    if (value.iv.length !== IV_BYTES || value.authTag.length !== AUTH_TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, value.iv, { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(value.authTag);
      return Buffer.concat([decipher.update(value.ciphertext), decipher.final()]);
    } catch {
      return null;
    }
  }
}

/**
 * Additional authenticated data: what is sealed (`context`, a label with its version) and the id
 * of the row it belongs to. The key id needs no binding: pointing a value at another key already
 * fails.
 */
export function boundTo(context: string, rowId: string, rowName: string): Buffer {
  if (!rowId) throw new TypeError(`a vault binding needs the ${rowName}`);
  return Buffer.from(JSON.stringify([context, rowId]), 'utf8');
}

function bytes(buffer: Buffer): VaultBytes {
  return new Uint8Array(buffer);
}
