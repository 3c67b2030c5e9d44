export * from './transaction-tokens.module';
export * from './token-inputs';
export * from './transaction-tokens.service';
export * from './token-three-ds.service';
export * from './token-aliases.service';
export * from './token-confirmation';
export * from './qr-brand';
export * from './online-gateways';
