import type { Provider } from '@nestjs/common';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import { BankAccountCipher } from './bank-account-cipher';
import { CardVault } from './card-vault';
import { PendingCvvStore } from './pending-cvv-store';
import { WebhookSecretsCipher } from './webhook-secrets-cipher';

/** The process's CardVault, built from VAULT_KEYS and VAULT_FINGERPRINT_SECRET. */
export const cardVaultProvider: Provider = {
  provide: CardVault,
  useFactory: (config: AppConfig) => {
    const keys = requireSecrets(config, ['VAULT_KEYS', 'VAULT_FINGERPRINT_SECRET'], 'the card vault');
    return new CardVault(keys.VAULT_KEYS, keys.VAULT_FINGERPRINT_SECRET);
  },
  inject: [APP_CONFIG],
};

/**
 * What a process that touches card data registers beside RedisService: the vault and the store of
 * pending CVVs (the gateway writes both; charge-service reads them).
 */
export const vaultProviders: Provider[] = [cardVaultProvider, PendingCvvStore];

/** The process's BankAccountCipher, from the same VAULT_KEYS and VAULT_FINGERPRINT_SECRET. */
export const bankAccountCipherProvider: Provider = {
  provide: BankAccountCipher,
  useFactory: (config: AppConfig) => {
    const keys = requireSecrets(config, ['VAULT_KEYS', 'VAULT_FINGERPRINT_SECRET'], 'bank account numbers');
    return new BankAccountCipher(keys.VAULT_KEYS, keys.VAULT_FINGERPRINT_SECRET);
  },
  inject: [APP_CONFIG],
};

/** The process's WebhookSecretsCipher, from VAULT_KEYS (the gateway, the console, webhook-service). */
export const webhookSecretsCipherProvider: Provider = {
  provide: WebhookSecretsCipher,
  useFactory: (config: AppConfig) =>
    new WebhookSecretsCipher(requireSecrets(config, ['VAULT_KEYS'], "webhooks' secrets").VAULT_KEYS),
  inject: [APP_CONFIG],
};
