import type { ProcessorAccount, ProcessorAccountsRepository } from '@kessai/db';
import type { ProcessorCredentials, ProcessorCredentialsCipher } from '@kessai/vault';

/** The providers a processor account may be at (processor_accounts.provider). */
export type ProcessorProviderName = 'simulator' | 'komoju' | 'stripe';

/** A processor account as an adapter is built from it: its credentials opened only when one is. */
export interface RoutedProcessorAccount {
  id: string;
  provider: ProcessorProviderName;
  mode: 'test' | 'live' | 'live_test';
  /** changes whenever its credentials are replaced or encrypted again: a cached adapter is stale */
  version: string;
  credentials(): ProcessorCredentials;
}

/** Where PaymentProcessors finds the account a charge was routed to (decision 0055). */
export interface ProcessorAccountSource {
  /**
   * The account a charge's calls go to (its fallback once it failed over, decision 0056); null:
   * the charge has none, and goes to its mode's default processor
   */
  accountOfCharge(chargeId: string): Promise<RoutedProcessorAccount | null>;
  /** An account by id (a charge's fallback, decision 0056); null: no such account. */
  account?(accountId: string): Promise<RoutedProcessorAccount | null>;
}

/**
 * The accounts of the processor_accounts table (libs/db), their credentials decrypted with the
 * vault's keys (ProcessorCredentialsCipher) when an adapter is built, never kept beside the row.
 */
export class StoredProcessorAccounts implements ProcessorAccountSource {
  constructor(
    private readonly repository: ProcessorAccountsRepository,
    private readonly cipher: ProcessorCredentialsCipher,
  ) {}

  async accountOfCharge(chargeId: string): Promise<RoutedProcessorAccount | null> {
    const row = await this.repository.findForCharge(chargeId);
    return row ? this.#routed(row) : null;
  }

  async account(accountId: string): Promise<RoutedProcessorAccount | null> {
    const row = await this.repository.find(accountId);
    return row ? this.#routed(row) : null;
  }

  #routed(row: ProcessorAccount): RoutedProcessorAccount {
    return {
      id: row.id,
      provider: row.provider,
      mode: row.mode,
      // a fresh IV at every sealing: a rotation, of the credentials or of the vault key, shows here
      version: `${row.keyId}:${Buffer.from(row.iv).toString('base64')}`,
      credentials: () => this.cipher.open(row, row.id),
    };
  }
}
