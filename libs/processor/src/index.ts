export * from './payment-errors';
export * from './payment-processor';
export * from './processor-errors';
export * from './processor-callback';
export * from './retry';
export * from './test-qr-codes';
export * from './http/http-payment-processor';
export * from './wire';
