export * from './redis.service';
export * from './app-token-changes';
export * from './redis.module';
export * from './redis-client';
export * from './unavailable';
