export * from './payments.module';
export * from './actor';
export * from './charges/charge-inputs';
export * from './charges/charges.service';
export * from './charges/charge-expiry.service';
export * from './refunds/refund-inputs';
export * from './refunds/refunds.service';
export * from './cancels/cancels.service';
