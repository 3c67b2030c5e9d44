import { testCardFor } from '@kessai/cards';
import { HttpPaymentProcessor } from '@kessai/processor';
import { describeProcessorContract } from '@kessai/testing';
import { operationStats } from './simulator-state';
import { type ProcessorSimulator, startProcessorSimulator } from './start-simulator';

// The port's contract, as every adapter keeps it (the KOMOJU adapter runs the same suite on its fake)
const CLIENT_TIMEOUT_MS = 1_000;

let simulator: ProcessorSimulator;
let processor: HttpPaymentProcessor;

beforeAll(async () => {
  simulator = await startProcessorSimulator({ latencyMs: 0, timeoutHoldMs: 4_000, unavailableAttempts: 2 });
  processor = new HttpPaymentProcessor({ baseUrl: simulator.url, timeoutMs: CLIENT_TIMEOUT_MS });
});
afterAll(() => simulator.close());

describeProcessorContract('HttpPaymentProcessor on the simulator', {
  processor: () => processor,
  approvedCard: '4000056655665556',
  declinedCard: { number: '4111111111111111', error: 'CARD_REJECTED' },
  currency: 'JPY',
  paymentsExecuted: (reference) => operationStats(simulator.stats(), 'authorize', reference).executions,
  failNextAuthorization: () => testCardFor('processor_unavailable').number,
  lateNextAuthorization: () => testCardFor('processor_timeout').number,
});
