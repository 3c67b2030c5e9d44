export * from './queues';
export * from './jobs';
export * from './charges.queue';
export * from './refunds-cancels.queue';
export * from './subscriptions.queue';
export * from './webhooks.queue';
export * from './events';
export * from './broadcasts';
