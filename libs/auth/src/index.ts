export * from './app-token-jwt';
export * from './secrets';
export * from './authorization-header';
