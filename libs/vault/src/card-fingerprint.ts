import { createHmac, hkdfSync } from 'node:crypto';
import { type CardNumber } from '@kessai/cards';
import { VaultConfigurationError } from './vault-errors';

const MIN_SECRET_BYTES = 32;
const HKDF_SALT = 'kessai.card_vault';
const HKDF_INFO = 'card-fingerprint.v1';

/**
 * A keyed hash of the PAN that recognises the same card again (duplicate detection, "card already
 * used") without decrypting anything.
 *
 * Why keyed: the card number space is small (a known BIN and last four leave about a million
 * candidates), so a plain hash could be reversed by trying them all; without the key it cannot.
 *
 * Why its own secret, not one derived from the vault encryption keys: those keys rotate, and a
 * fingerprint must stay the same across a rotation or the same card would look new after every
 * one. Separate keys also keep the two capabilities apart: whoever can compare fingerprints
 * cannot decrypt, and the reverse. The secret is stretched with HKDF under a purpose label so the
 * same configured secret could never collide with another use of it.
 */
export class CardFingerprinter {
  readonly #key: Buffer;

  constructor(secret: Buffer | string) {
    const material = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
    if (material.length < MIN_SECRET_BYTES) {
      throw new VaultConfigurationError(`the fingerprint secret must be at least ${MIN_SECRET_BYTES} bytes`);
    }
    this.#key = Buffer.from(hkdfSync('sha256', material, HKDF_SALT, HKDF_INFO, 32));
  }

  /** 64 lowercase hex characters; equal for equal card numbers. */
  fingerprint(cardNumber: CardNumber): string {
    return createHmac('sha256', this.#key).update(cardNumber.reveal(), 'ascii').digest('hex');
  }

  toJSON(): string {
    return 'CardFingerprinter';
  }
}
