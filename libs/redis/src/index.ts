export * from './redis.service';
export * from './app-token-changes';
