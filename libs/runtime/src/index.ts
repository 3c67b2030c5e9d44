export * from './health.controller';
export * from './queue-workers';
export * from './worker-service';
export * from './outbox-relay';
export * from './coalescer';
