import { createHmac, hkdfSync } from 'node:crypto';
import { inspect } from 'node:util';
import { boundTo, SealingKeys, type EncryptedValue, type SealedValue, type VaultKey } from './sealing-keys';
import { VaultConfigurationError } from './vault-errors';

const MIN_SECRET_BYTES = 32;
/** Its own label: a card vault entry or a sealed CVV never opens as an account number, nor the reverse. */
const AAD_CONTEXT = 'kessai.bank_accounts.account_number.v1';
const HKDF_SALT = 'kessai.bank_accounts';
const HKDF_INFO = 'bank-account-fingerprint.v1';

/** The encrypted account number as the bank_accounts row stores it (same columns as card_vault's). */
export type EncryptedAccountNumber = EncryptedValue;

/** The encrypted columns, ready for a Prisma create or update. */
export type SealedAccountNumber = SealedValue;

/** A new row's encrypted columns, its fingerprint and what may be shown of the number. */
export interface AccountNumberEntry extends SealedAccountNumber {
  fingerprint: string;
  lastFour: string;
}

/** What identifies one account at one bank: the fingerprint is over these and the number. */
export interface AccountIdentity {
  country: string;
  bankName: string;
  branchName: string | null;
}

/** An account number failed authentication: altered, copied from another row, or its key replaced. */
export class BankAccountIntegrityError extends Error {
  constructor(readonly bankAccountId: string) {
    super(
      `bank account ${bankAccountId}: its account number failed authentication (tampered with, ` +
        'moved from another row, or the key behind its key id changed)',
    );
    this.name = 'BankAccountIntegrityError';
  }
}

/**
 * Encrypts merchants' bank account numbers with the card vault's keys (VAULT_KEYS: the first
 * encrypts, any configured one decrypts, chosen by the stored key id) and AES-256-GCM bound to the
 * bank account's id, so a ciphertext copied onto another account's row fails to open instead of
 * paying someone else. The fingerprint (HMAC under a key derived from VAULT_FINGERPRINT_SECRET with
 * its own label) recognises the same account at the same bank without decrypting: it survives a
 * key rotation, and whoever compares fingerprints cannot decrypt.
 */
export class BankAccountCipher {
  readonly #keys: SealingKeys;
  readonly #fingerprintKey: Buffer;

  constructor(keys: readonly VaultKey[], fingerprintSecret: Buffer | string) {
    this.#keys = new SealingKeys(keys);
    const material =
      typeof fingerprintSecret === 'string' ? Buffer.from(fingerprintSecret, 'utf8') : fingerprintSecret;
    if (material.length < MIN_SECRET_BYTES) {
      throw new VaultConfigurationError(`the fingerprint secret must be at least ${MIN_SECRET_BYTES} bytes`);
    }
    this.#fingerprintKey = Buffer.from(hkdfSync('sha256', material, HKDF_SALT, HKDF_INFO, 32));
  }

  /** `accountNumber`: digits only, as the request schema admits it. */
  encrypt(accountNumber: string, identity: AccountIdentity, bankAccountId: string): AccountNumberEntry {
    return {
      ...this.#seal(accountNumber, bankAccountId),
      fingerprint: this.fingerprint(accountNumber, identity),
      lastFour: accountNumber.slice(-4),
    };
  }

  /** The account number, for the bank a payout is sent to: never logged, never answered. */
  decrypt(entry: EncryptedAccountNumber, bankAccountId: string): string {
    const plaintext = this.#keys.open(entry, additionalData(bankAccountId));
    if (!plaintext) throw new BankAccountIntegrityError(bankAccountId);
    return plaintext.toString('utf8');
  }

  /** The key new numbers are encrypted with. */
  get activeKeyId(): string {
    return this.#keys.activeKeyId;
  }

  /** The same number under the active key with a fresh IV, for rotation (the fingerprint stays). */
  reencrypt(entry: EncryptedAccountNumber, bankAccountId: string): SealedAccountNumber {
    return this.#seal(this.decrypt(entry, bankAccountId), bankAccountId);
  }

  /** 64 hex characters, equal for the same number at the same bank (country, bank and branch, case-blind). */
  fingerprint(accountNumber: string, identity: AccountIdentity): string {
    const subject = JSON.stringify([
      identity.country.toUpperCase(),
      identity.bankName.trim().toLowerCase(),
      (identity.branchName ?? '').trim().toLowerCase(),
      accountNumber,
    ]);
    return createHmac('sha256', this.#fingerprintKey).update(subject, 'utf8').digest('hex');
  }

  #seal(accountNumber: string, bankAccountId: string): SealedAccountNumber {
    return this.#keys.seal(accountNumber, additionalData(bankAccountId));
  }

  toJSON(): { activeKeyId: string } {
    return { activeKeyId: this.#keys.activeKeyId };
  }

  [inspect.custom](): string {
    return `BankAccountCipher ${inspect(this.toJSON())}`;
  }
}

function additionalData(bankAccountId: string): Buffer {
  return boundTo(AAD_CONTEXT, bankAccountId, 'bank account id');
}
