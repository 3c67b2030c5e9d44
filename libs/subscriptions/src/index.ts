export * from './subscriptions.module';
export * from './subscription-inputs';
export * from './subscriptions.service';
export * from './scheduled-payments.service';
export * from './subscription-refusals';
export * from './subscription-token';
export * from './subscription-schedule';
