import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import type { VaultBinding, VaultKey } from './card-vault';
import { UnknownVaultKeyError, VaultConfigurationError, VaultIntegrityError } from './vault-errors';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;
const KEY_BYTES = 32;
/** A different label from the PAN's, so a sealed CVV can never be passed off as a vault entry or back. */
const AAD_CONTEXT = 'kessai.pending_cvv.v1';

/** A sealed CVV in the text form Redis keeps: "<key id>.<iv>.<ciphertext>.<tag>", base64url parts. */
export type SealedCvv = string;

/**
 * Encrypts a card security code for the few minutes it waits for its authorization, with the card
 * vault's keys (VAULT_KEYS: the first seals, any configured key opens) and AES-256-GCM bound to the
 * transaction token it belongs to. Whoever reads Redis sees no CVV, and a sealed value copied under
 * another token's key fails to open.
 */
export class CvvCipher {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #activeKeyId: string;

  constructor(keys: readonly VaultKey[]) {
    if (keys.length === 0) throw new VaultConfigurationError('at least one key is required');
    const byId = new Map<string, Buffer>();
    for (const { id, key } of keys) {
      if (!id || id.includes('.')) throw new VaultConfigurationError('a key id is empty or contains "."');
      if (byId.has(id)) throw new VaultConfigurationError(`key id "${id}" appears twice`);
      if (key.length !== KEY_BYTES) {
        throw new VaultConfigurationError(`key "${id}" must be ${KEY_BYTES} bytes, not ${key.length}`);
      }
      byId.set(id, Buffer.from(key));
    }
    this.#keys = byId;
    this.#activeKeyId = keys[0].id;
  }

  seal(cvv: string, binding: VaultBinding): SealedCvv {
    const key = this.#keys.get(this.#activeKeyId) as Buffer;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: AUTH_TAG_BYTES });
    cipher.setAAD(additionalData(binding));
    const ciphertext = Buffer.concat([cipher.update(cvv, 'ascii'), cipher.final()]);
    return [this.#activeKeyId, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  open(sealed: SealedCvv, binding: VaultBinding): string {
    const aad = additionalData(binding);
    const [keyId, iv, ciphertext, tag, ...rest] = sealed.split('.');
    const key = this.#keys.get(keyId);
    if (!key) throw new UnknownVaultKeyError(keyId);
    const ivBytes = Buffer.from(iv ?? '', 'base64url');
    const tagBytes = Buffer.from(tag ?? '', 'base64url');
    if (rest.length > 0 || ivBytes.length !== IV_BYTES || tagBytes.length !== AUTH_TAG_BYTES) {
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
    let plaintext: string;
    try {
      const decipher = createDecipheriv(ALGORITHM, key, ivBytes, { authTagLength: AUTH_TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(tagBytes);
      plaintext = Buffer.concat([
        decipher.update(Buffer.from(ciphertext ?? '', 'base64url')),
        decipher.final(),
      ]).toString('ascii');
    } catch {
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
    if (!/^\d{3,4}$/.test(plaintext)) throw new VaultIntegrityError(binding.transactionTokenId);
    return plaintext;
  }

  toJSON(): { activeKeyId: string } {
    return { activeKeyId: this.#activeKeyId };
  }

  [inspect.custom](): string {
    return `CvvCipher ${inspect(this.toJSON())}`;
  }
}

function additionalData(binding: VaultBinding): Buffer {
  if (!binding.transactionTokenId) throw new TypeError('a CVV binding needs the transaction token id');
  return Buffer.from(JSON.stringify([AAD_CONTEXT, binding.transactionTokenId]), 'utf8');
}
