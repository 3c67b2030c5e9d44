export * from './bank-account-cipher';
export * from './card-fingerprint';
export * from './card-vault';
export * from './cvv-cipher';
export * from './pending-cvv-store';
export * from './sealing-keys';
export * from './vault.providers';
export * from './vault-errors';
