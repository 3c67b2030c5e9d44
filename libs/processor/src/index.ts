export * from './amounts';
export * from './payment-errors';
export * from './payment-processor';
export * from './processor-errors';
export * from './processor-callback';
export * from './retry';
export * from './test-qr-codes';
export * from './http/http-payment-processor';
export {
  startProcessorSimulator,
  SIMULATOR_DEFAULTS,
  type ProcessorSimulator,
  type ProcessorSimulatorOptions,
} from './simulator/start-simulator';
export {
  operationStats,
  type SimulatorCallbackStats,
  type SimulatorOperation,
  type SimulatorOperationStats,
  type SimulatorStats,
} from './simulator/simulator-state';
