/**
 * Vault failures. Messages name key ids and transaction token ids, which are not secret, and never
 * anything decrypted.
 */
export class VaultConfigurationError extends Error {
  constructor(problem: string) {
    super(`card vault configuration: ${problem}`);
    this.name = 'VaultConfigurationError';
  }
}

/** An entry was encrypted under a key that is no longer configured. */
export class UnknownVaultKeyError extends Error {
  constructor(readonly keyId: string) {
    super(
      `card vault key "${keyId}" is not configured; keep a retired key in VAULT_KEYS until every ` +
        'entry encrypted with it has been re-encrypted',
    );
    this.name = 'UnknownVaultKeyError';
  }
}

/**
 * Authenticated decryption failed: the entry was altered, copied from another row, or its key was
 * replaced by a different one under the same id.
 */
export class VaultIntegrityError extends Error {
  constructor(readonly transactionTokenId: string) {
    super(
      `card vault entry of transaction token ${transactionTokenId} failed authentication ` +
        '(tampered with, moved from another row, or the key behind its key id changed)',
    );
    this.name = 'VaultIntegrityError';
  }
}
