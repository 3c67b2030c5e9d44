export * from './configuration';
export * from './schema';
export * from './merge';
export * from './charge-rules';
export * from './payment-deadline';
export * from './checkout-theme';
export * from './wait-period';
export * from './presented';
