export * from './card-fingerprint';
export * from './card-vault';
export * from './vault-errors';
