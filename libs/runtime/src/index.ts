export * from './bull';
export * from './health.controller';
export * from './queue-processor';
export * from './worker-registry';
export * from './worker-service';
export * from './outbox-relay';
export * from './coalescer';
