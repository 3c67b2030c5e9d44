import { Module } from '@nestjs/common';
import { bankAccountCipherProvider } from '@kessai/vault';
import { BankAccountsService } from './bank-accounts.service';

/**
 * Bank account management for Nest apps. Its own module, apart from AccountsModule: it registers
 * libs/vault's BankAccountCipher, so a process that imports it needs VAULT_KEYS and
 * VAULT_FINGERPRINT_SECRET. Needs the (global) ConfigModule and DbModule.
 */
@Module({
  providers: [bankAccountCipherProvider, BankAccountsService],
  exports: [BankAccountsService],
})
export class BankAccountsModule {}
