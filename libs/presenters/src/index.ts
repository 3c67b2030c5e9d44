/**
 * The resources as the API returns them (snake_case, api-reference §5): what the gateway answers and
 * what webhook-service sends as a webhook's `data`, from one presenter each.
 */
export * from './optional-field';
export * from './payment-error.presenter';
export * from './charge.presenter';
export * from './refund.presenter';
export * from './cancel.presenter';
export * from './transaction-token.presenter';
export * from './scheduled-payment.presenter';
export * from './subscription.presenter';
export * from './test-clock.presenter';
export * from './deferred-payment.presenter';
export * from './checkout.presenter';
export * from './payment-instructions';
export * from './transfer.presenter';
