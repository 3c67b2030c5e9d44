import { inspect } from 'node:util';
import type { VaultBinding } from './card-vault';
import { boundTo, SealingKeys, type VaultKey } from './sealing-keys';
import { VaultIntegrityError } from './vault-errors';

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
  readonly #keys: SealingKeys;

  constructor(keys: readonly VaultKey[]) {
    // the text form joins the parts with "."
    this.#keys = new SealingKeys(keys, { forbidden: '.' });
  }

  seal(cvv: string, binding: VaultBinding): SealedCvv {
    const { keyId, iv, ciphertext, authTag } = this.#keys.seal(cvv, additionalData(binding));
    return [keyId, ...[iv, ciphertext, authTag].map((part) => Buffer.from(part).toString('base64url'))].join(
      '.',
    );
  }

  open(sealed: SealedCvv, binding: VaultBinding): string {
    const aad = additionalData(binding);
    const [keyId, iv, ciphertext, tag, ...rest] = sealed.split('.');
    const value = {
      keyId,
      iv: Buffer.from(iv ?? '', 'base64url'),
      ciphertext: Buffer.from(ciphertext ?? '', 'base64url'),
      authTag: Buffer.from(tag ?? '', 'base64url'),
    };
    const plaintext = this.#keys.open(value, aad)?.toString('ascii');
    if (plaintext === undefined || rest.length > 0 || !/^\d{3,4}$/.test(plaintext)) {
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
    return plaintext;
  }

  toJSON(): { activeKeyId: string } {
    return { activeKeyId: this.#keys.activeKeyId };
  }

  [inspect.custom](): string {
    return `CvvCipher ${inspect(this.toJSON())}`;
  }
}

function additionalData(binding: VaultBinding): Buffer {
  return boundTo(AAD_CONTEXT, binding.transactionTokenId, 'transaction token id');
}
