// A request's correlation id (its X-Request-Id, or the one the gateway makes) follows it into the
// events and jobs it causes and into every log line written for it: the gateway's, and
// charge-service's for the charge it created (docs/operations.md, "Correlation ids"). The real
// gateway in-process with a captured logger, a charge-service process and the processor simulator.
import { randomUUID } from 'node:crypto';
import { CapturedLog, eventually, outboxEventsOf, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const log = new CapturedLog();
const suite = useSuite({
  simulator: (callbackSecret) =>
    startProcessorSimulator({ callbackSecret, timeoutHoldMs: 5_000, callbackRetryBaseDelayMs: 50 }),
  gateway: (config) =>
    createGatewayApp(config, {
      logger: log.logger('gateway', 'debug'),
    }),
  merchants: { shop: { pci: true, label: 'correlation' } },
  workers: ['charge-service'],
  callbacks: true,
  workerVariables: { LOG_LEVEL: 'debug' },
});

describe('correlation ids', () => {
  it('X-Request-Id of POST /charges is on its events, its answer, and the gateway’s and charge-service’s lines for the charge', async () => {
    const requestId = `order-${randomUUID()}`;
    const tokenId = await suite.api.shop.cardToken();
    const res = await suite.api.shop.request('/charges', {
      method: 'POST',
      json: { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' },
      headers: { 'x-request-id': requestId },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const chargeId = (res.body as { id: string }).id;

    // the charge-service line for this charge, written while processing its job
    const processed = await suite.workers[0].app.waitForLog(
      (line) => line.msg === 'charge processed' && line.chargeId === chargeId,
    );
    expect(processed.correlationId).toBe(requestId);
    expect(processed.status).toBe('successful');

    // its events carry the id on: charge_requested from the request, charge_finished from it
    await eventually(async () => (await outboxEventsOf(suite.env, chargeId)).length >= 2, {
      what: 'charge_requested and charge_finished',
    });
    const events = await outboxEventsOf(suite.env, chargeId);
    expect(events.map((event) => [event.eventType, event.correlationId]).sort()).toEqual([
      ['charge_finished', requestId],
      ['charge_requested', requestId],
    ]);

    // the gateway's line for the request
    const answered = log.records.filter(
      (line) => line.msg === 'request answered' && line.route === '/charges' && line.method === 'POST',
    );
    expect(answered.map((line) => line.correlationId)).toContain(requestId);
  });

  it('a request without X-Request-Id gets an id of its own, on its answer and its lines', async () => {
    const res = await suite.api.shop.request('/charges?limit=10');
    expect(res.status).toBe(200);
    const made = res.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(log.records.some((line) => line.msg === 'request answered' && line.correlationId === made)).toBe(
      true,
    );
  });

  it('an X-Request-Id that may be a card number is replaced, and never logged', async () => {
    const pan = '4000-0566-5566-5556';
    const res = await suite.api.shop.request('/charges?limit=10', { headers: { 'x-request-id': pan } });
    expect(res.status).toBe(200);
    const made = res.headers.get('x-request-id');
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(log.records.some((line) => line.correlationId === made)).toBe(true);
    expect(log.records.some((line) => JSON.stringify(line).includes(pan))).toBe(false);
  });
});
