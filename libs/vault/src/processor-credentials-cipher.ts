import { inspect } from 'node:util';
import { boundTo, SealingKeys, type EncryptedValue, type SealedValue, type VaultKey } from './sealing-keys';

/** Its own label: a card number, a CVV or an account number never opens as credentials, nor the reverse. */
const AAD_CONTEXT = 'kessai.processor_accounts.credentials.v1';

/**
 * A processor account's credentials: the secret key its API is called with, and the secret its
 * webhooks are signed with (null where the provider has none, as the simulator's accounts).
 */
export interface ProcessorCredentials {
  secretKey: string | null;
  webhookSecret: string | null;
}

/** The encrypted credentials as the processor_accounts row stores them. */
export type EncryptedProcessorCredentials = EncryptedValue;

/** The credentials failed authentication: altered, copied from another row, or their key replaced. */
export class ProcessorCredentialsIntegrityError extends Error {
  constructor(readonly processorAccountId: string) {
    super(
      `processor account ${processorAccountId}: its credentials failed authentication (tampered with, ` +
        'moved from another row, or the key behind their key id changed)',
    );
    this.name = 'ProcessorCredentialsIntegrityError';
  }
}

/**
 * Encrypts processor accounts' credentials with the card vault's keys (VAULT_KEYS: the first
 * encrypts, any configured one decrypts, chosen by the stored key id, so vault:rotate moves them as
 * it moves card numbers) and AES-256-GCM bound to the account's id, so credentials copied onto
 * another account's row fail to open instead of charging through someone else's account. The
 * plaintext is one JSON value; nothing of it is kept beside the ciphertext.
 */
export class ProcessorCredentialsCipher {
  readonly #keys: SealingKeys;

  constructor(keys: readonly VaultKey[]) {
    this.#keys = new SealingKeys(keys);
  }

  seal(credentials: ProcessorCredentials, processorAccountId: string): SealedValue {
    const plaintext = JSON.stringify({
      secret_key: credentials.secretKey,
      webhook_secret: credentials.webhookSecret,
    });
    return this.#keys.seal(plaintext, additionalData(processorAccountId));
  }

  /** The credentials, for the adapter that calls the provider: never logged, never answered. */
  open(entry: EncryptedProcessorCredentials, processorAccountId: string): ProcessorCredentials {
    const plaintext = this.#keys.open(entry, additionalData(processorAccountId));
    if (!plaintext) throw new ProcessorCredentialsIntegrityError(processorAccountId);
    const value = JSON.parse(plaintext.toString('utf8')) as { secret_key: unknown; webhook_secret: unknown };
    return { secretKey: textOrNull(value.secret_key), webhookSecret: textOrNull(value.webhook_secret) };
  }

  /** The key new credentials are encrypted with. */
  get activeKeyId(): string {
    return this.#keys.activeKeyId;
  }

  /** The same credentials under the active key with a fresh IV, for vault:rotate. */
  reencrypt(entry: EncryptedProcessorCredentials, processorAccountId: string): SealedValue {
    return this.seal(this.open(entry, processorAccountId), processorAccountId);
  }

  toJSON(): { activeKeyId: string } {
    return { activeKeyId: this.#keys.activeKeyId };
  }

  [inspect.custom](): string {
    return `ProcessorCredentialsCipher ${inspect(this.toJSON())}`;
  }
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function additionalData(processorAccountId: string): Buffer {
  return boundTo(AAD_CONTEXT, processorAccountId, 'processor account id');
}
