export * from './events';
export * from './queues';
export * from './outbox-routes';
