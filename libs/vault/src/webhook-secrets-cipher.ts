import { inspect } from 'node:util';
import { boundTo, SealingKeys, type EncryptedValue, type SealedValue, type VaultKey } from './sealing-keys';

/** Its own label: a card number, a CVV or processor credentials never open as a webhook's secrets, nor the reverse. */
const AAD_CONTEXT = 'kessai.webhooks.secrets.v1';

/**
 * A webhook's secrets: the Standard Webhooks signing secret, the one before the last rotation
 * (null when never rotated; whether it still signs is its row's `previous_secret_expires_on`), and
 * the auth_token sent as the receiver's Authorization header.
 */
export interface WebhookSecrets {
  signingSecret: string;
  previousSigningSecret: string | null;
  authToken: string | null;
}

/**
 * A webhook's secrets as its row holds them: sealed, or, for a row written before they were
 * (until `webhooks:seal` reaches it), still in its plaintext columns.
 */
export type StoredWebhookSecrets =
  { sealed: EncryptedValue; plain: null } | { sealed: null; plain: WebhookSecrets };

/** The secrets failed authentication: altered, copied from another row, or their key replaced. */
export class WebhookSecretsIntegrityError extends Error {
  constructor(readonly webhookId: string) {
    super(
      `webhook ${webhookId}: its secrets failed authentication (tampered with, moved from another row, ` +
        'or the key behind their key id changed)',
    );
    this.name = 'WebhookSecretsIntegrityError';
  }
}

/**
 * Seals webhooks' secrets with the vault's keys (VAULT_KEYS: the first seals, the stored key id
 * opens, so vault:rotate moves them as it moves card numbers), AES-256-GCM bound to the webhook's
 * id: secrets copied onto another webhook's row fail to open instead of signing for it. The
 * plaintext is one JSON value (decision 0086).
 */
export class WebhookSecretsCipher {
  readonly #keys: SealingKeys;

  constructor(keys: readonly VaultKey[]) {
    this.#keys = new SealingKeys(keys);
  }

  seal(secrets: WebhookSecrets, webhookId: string): SealedValue {
    const plaintext = JSON.stringify({
      signing_secret: secrets.signingSecret,
      previous_signing_secret: secrets.previousSigningSecret,
      auth_token: secrets.authToken,
    });
    return this.#keys.seal(plaintext, additionalData(webhookId));
  }

  /** The secrets, to sign a try or to answer a creation or rotation: never logged. */
  open(entry: EncryptedValue, webhookId: string): WebhookSecrets {
    const plaintext = this.#keys.open(entry, additionalData(webhookId));
    if (!plaintext) throw new WebhookSecretsIntegrityError(webhookId);
    const value = JSON.parse(plaintext.toString('utf8')) as Record<string, unknown>;
    if (typeof value.signing_secret !== 'string') throw new WebhookSecretsIntegrityError(webhookId);
    return {
      signingSecret: value.signing_secret,
      previousSigningSecret: textOrNull(value.previous_signing_secret),
      authToken: textOrNull(value.auth_token),
    };
  }

  /** A row's secrets, sealed or (an old row) plaintext. */
  read(stored: StoredWebhookSecrets, webhookId: string): WebhookSecrets {
    return stored.sealed ? this.open(stored.sealed, webhookId) : stored.plain;
  }

  /** The key new secrets are sealed with. */
  get activeKeyId(): string {
    return this.#keys.activeKeyId;
  }

  /** The same secrets under the active key with a fresh IV, for vault:rotate. */
  reencrypt(entry: EncryptedValue, webhookId: string): SealedValue {
    return this.seal(this.open(entry, webhookId), webhookId);
  }

  toJSON(): { activeKeyId: string } {
    return { activeKeyId: this.#keys.activeKeyId };
  }

  [inspect.custom](): string {
    return `WebhookSecretsCipher ${inspect(this.toJSON())}`;
  }
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function additionalData(webhookId: string): Buffer {
  return boundTo(AAD_CONTEXT, webhookId, 'webhook id');
}
