import { inspect } from 'node:util';
import { CardNumber } from '@kessai/cards';
import { CardFingerprinter } from './card-fingerprint';
import { boundTo, SealingKeys, type EncryptedValue, type SealedValue, type VaultKey } from './sealing-keys';
import { VaultIntegrityError } from './vault-errors';

/** The encrypted PAN as the card_vault row stores it (prisma model CardVault). */
export type EncryptedCardNumber = EncryptedValue;

/** A new card_vault row's encrypted columns, ready for a Prisma create or update. */
export interface CardVaultEntry extends SealedValue {
  fingerprint: string;
}

/** The row the ciphertext belongs to. It is authenticated with the ciphertext (GCM AAD). */
export interface VaultBinding {
  transactionTokenId: string;
}

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
  readonly #keys: SealingKeys;
  readonly #fingerprinter: CardFingerprinter;

  constructor(keys: readonly VaultKey[], fingerprintSecret: Buffer | string) {
    this.#keys = new SealingKeys(keys);
    this.#fingerprinter = new CardFingerprinter(fingerprintSecret);
  }

  /** The key new entries are encrypted with. */
  get activeKeyId(): string {
    return this.#keys.activeKeyId;
  }

  encrypt(cardNumber: CardNumber, binding: VaultBinding): CardVaultEntry {
    return {
      ...this.#keys.seal(cardNumber.reveal(), additionalData(binding)),
      fingerprint: this.fingerprint(cardNumber),
    };
  }

  decrypt(entry: EncryptedCardNumber, binding: VaultBinding): CardNumber {
    const plaintext = this.#keys.open(entry, additionalData(binding));
    if (!plaintext) throw new VaultIntegrityError(binding.transactionTokenId);
    try {
      return CardNumber.fromDigits(plaintext.toString('ascii'));
    } catch {
      // Authentic but not a card number: written by something else; still never echo it.
      throw new VaultIntegrityError(binding.transactionTokenId);
    }
  }

  /** Whether an entry still uses an older key and should be re-encrypted. */
  needsReencryption(entry: Pick<EncryptedCardNumber, 'keyId'>): boolean {
    return entry.keyId !== this.#keys.activeKeyId;
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

  toJSON(): { activeKeyId: string; keyIds: string[] } {
    return { activeKeyId: this.#keys.activeKeyId, keyIds: this.#keys.keyIds };
  }

  [inspect.custom](): string {
    return `CardVault ${inspect(this.toJSON())}`;
  }
}

/**
 * What the ciphertext is authenticated together with: what it is and which transaction token it
 * belongs to.
 */
function additionalData(binding: VaultBinding): Buffer {
  return boundTo(AAD_CONTEXT, binding.transactionTokenId, 'transaction token id');
}
