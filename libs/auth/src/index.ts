export * from './app-token-jwt';
export * from './secrets';
export * from './authorization-header';
export * from './login-token-jwt';
export * from './passwords';
export * from './checkout-link';
export * from './customer-token-jwt';
