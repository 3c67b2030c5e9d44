export * from './webhooks.module';
export * from './webhook-inputs';
export * from './webhook-fields';
export * from './webhooks.service';
export * from './webhook-url.policy';
