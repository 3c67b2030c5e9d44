// A request's correlation id (its X-Request-Id, or the one the gateway makes) follows it into the
// events and jobs it causes and into every log line written for it: the gateway's, and
// charge-service's for the charge it created (docs/operations.md, "Correlation ids"). The real
// gateway in-process with a captured logger, a charge-service process and the processor simulator.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@kessai/observability';
import {
  eventually,
  GatewayClient,
  listenLocally,
  outboxEventsOf,
  RELAXED_RATE_LIMITS,
  startWorkerProcess,
  TestEnvironment,
  type SeededMerchant,
  type SpawnedApp,
} from '@kessai/testing';
import {
  startProcessorSimulator,
  type ProcessorSimulator,
} from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let env: TestEnvironment;
let gateway: NestFastifyApplication;
let chargeService: SpawnedApp;
let simulator: ProcessorSimulator;
let api: GatewayClient;
let shop: SeededMerchant;
const gatewayLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  env = await TestEnvironment.create({ ...RELAXED_RATE_LIMITS });
  simulator = await startProcessorSimulator({
    port: 0,
    host: '127.0.0.1',
    callbackSecret: env.config.PROCESSOR_CALLBACK_SECRET,
    timeoutHoldMs: 5_000,
    callbackRetryBaseDelayMs: 50,
  });
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        gatewayLines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  gateway = await createGatewayApp(env.config, {
    logger: createLogger({ service: 'gateway', level: 'debug', destination }),
  });
  const baseUrl = await listenLocally(gateway);
  ({ app: chargeService } = await startWorkerProcess('apps/charge-service/src/main.ts', {
    ...env.variables,
    LOG_LEVEL: 'debug',
    PROCESSOR_TEST_URL: simulator.url,
    PROCESSOR_CALLBACK_BASE_URL: baseUrl,
  }));
  shop = await env.seedPciMerchant('correlation');
  api = new GatewayClient(baseUrl).as(shop);
}, 90_000);

afterAll(async () => {
  await chargeService?.stop();
  await simulator?.close();
  await env?.close(gateway);
});

describe('correlation ids', () => {
  it('X-Request-Id of POST /charges is on its events, its answer, and the gateway’s and charge-service’s lines for the charge', async () => {
    const requestId = `order-${randomUUID()}`;
    const tokenId = await api.cardToken();
    const res = await api.request('/charges', {
      method: 'POST',
      json: { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' },
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const chargeId = (res.body as { id: string }).id;

    // the charge-service line for this charge, written while processing its job
    const processed = await chargeService.waitForLog(
      (line) => line.msg === 'charge processed' && line.chargeId === chargeId,
    );
    expect(processed.correlationId).toBe(requestId);
    expect(processed.status).toBe('successful');

    // its events carry the id on: charge_requested from the request, charge_finished from it
    await eventually(async () => (await outboxEventsOf(env, chargeId)).length >= 2, {
      what: 'charge_requested and charge_finished',
    });
    const events = await outboxEventsOf(env, chargeId);
    expect(events.map((event) => [event.eventType, event.correlationId]).sort()).toEqual([
      ['charge_finished', requestId],
      ['charge_requested', requestId],
    ]);

    // the gateway's line for the request
    const answered = gatewayLines.filter(
      (line) => line.msg === 'request answered' && line.route === '/charges' && line.method === 'POST',
    );
    expect(answered.map((line) => line.correlationId)).toContain(requestId);
  });

  it('a request without X-Request-Id gets an id of its own, on its answer and its lines', async () => {
    const res = await api.request('/charges?limit=10');
    expect(res.status).toBe(200);
    const made = res.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(gatewayLines.some((line) => line.msg === 'request answered' && line.correlationId === made)).toBe(
      true,
    );
  });

  it('an X-Request-Id that may be a card number is replaced, and never logged', async () => {
    const pan = '4000-0566-5566-5556';
    const res = await api.request('/charges?limit=10', { headers: { 'x-request-id': pan } });
    expect(res.status).toBe(200);
    const made = res.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(gatewayLines.some((line) => line.correlationId === made)).toBe(true);
    expect(gatewayLines.some((line) => JSON.stringify(line).includes(pan))).toBe(false);
  });
});
