export * from './rate-limit.policy';
export * from './rate-limiter';
export * from './token-bucket.script';
