export * from './payments.module';
export * from './actor';
export * from './checked-input';
export * from './charges/charge-inputs';
export * from './charges/charges.service';
export * from './charges/charge-expiry.service';
export {
  LIVE_PROCESSOR_LIMITS,
  liveProcessorLimitsProvider,
  processorLimitsOf,
  takesTokenCheck,
  type LiveProcessorLimits,
  type TokenCheck,
} from './charges/live-processor-limits';
export * from './refunds/refund-inputs';
export * from './refunds/refunds.service';
export * from './cancels/cancels.service';
export * from './exchange-rates/exchange-rates.service';
export * from './overview/payment-overview.service';
