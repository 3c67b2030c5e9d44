import { randomUUID } from 'node:crypto';
import {
  type AuthorizeRequest,
  HttpPaymentProcessor,
  ProcessorRequestRejectedError,
} from '@kessai/processor';
import { cardWith, standalone } from '@kessai/testing';
import { type SimulatorStats } from './simulator-state';
import { simulatedDelayMs, startProcessorSimulator } from './start-simulator';

const PAN = '4000056655665556';
const authorization = (): AuthorizeRequest => ({
  reference: randomUUID(),
  amount: 1000,
  currency: 'JPY',
  capture: true,
  paymentMethod: { type: 'card', card: cardWith(PAN, { cvv: '987' }) },
});

describe('simulator controls', () => {
  it('applies the configured latency to API calls', async () => {
    const slow = await startProcessorSimulator({ latencyMs: 120 });
    try {
      const time = async (url: string) => {
        const started = performance.now();
        await new HttpPaymentProcessor({ baseUrl: url }).status(randomUUID());
        return performance.now() - started;
      };
      // the configured latency is a floor every call of the slow one pays (a timer never fires
      // early; how much later it fires depends on the machine, so there is no upper bound here)
      expect(await time(slow.url)).toBeGreaterThanOrEqual(115);
    } finally {
      await slow.close();
    }
  });

  it('adds jitter up to the configured bound', async () => {
    const settings = { latencyMs: 20, latencyJitterMs: 40 };
    expect(simulatedDelayMs(settings, () => 0)).toBe(20);
    expect(simulatedDelayMs(settings, () => 0.5)).toBe(40);
    expect(simulatedDelayMs(settings, () => 0.999)).toBeLessThan(60);
    expect(simulatedDelayMs({ latencyMs: 0, latencyJitterMs: 0 })).toBe(0);
    // and a jittery simulator holds every answer back by at least its latency
    const jittery = await startProcessorSimulator(settings);
    try {
      const started = performance.now();
      await new HttpPaymentProcessor({ baseUrl: jittery.url }).status(randomUUID());
      expect(performance.now() - started).toBeGreaterThanOrEqual(19);
    } finally {
      await jittery.close();
    }
  });

  it('publishes its counters over HTTP for tests in other processes, and resets them', async () => {
    const simulator = await startProcessorSimulator({ latencyMs: 0 });
    try {
      const processor = new HttpPaymentProcessor({ baseUrl: simulator.url });
      const request = authorization();
      await processor.authorize(request);
      await processor.authorize(request);
      const stats = (await (await fetch(`${simulator.url}/_sim/stats`)).json()) as SimulatorStats;
      expect(stats).toEqual(simulator.stats());
      expect(stats.operations).toEqual([
        { operation: 'authorize', idempotencyKey: request.reference, requests: 2, executions: 1 },
      ]);
      expect((await fetch(`${simulator.url}/_sim/reset`, { method: 'POST' })).status).toBe(204);
      expect(simulator.stats().operations).toEqual([]);
      expect(await processor.status(request.reference)).toEqual({ found: false });
    } finally {
      await simulator.close();
    }
  });

  it('requires the API key when one is configured', async () => {
    const simulator = await startProcessorSimulator({ latencyMs: 0, apiKey: 'sim-key' });
    try {
      const wrong = new HttpPaymentProcessor({ baseUrl: simulator.url, apiKey: 'nope' });
      await expect(wrong.authorize(authorization())).rejects.toBeInstanceOf(ProcessorRequestRejectedError);
      await expect(wrong.status(randomUUID())).rejects.toMatchObject({
        httpStatus: 401,
        type: 'unauthorized',
      });
      const right = new HttpPaymentProcessor({ baseUrl: simulator.url, apiKey: 'sim-key' });
      expect(await right.authorize(authorization())).toMatchObject({ outcome: 'approved' });
    } finally {
      await simulator.close();
    }
  });

  it('refuses malformed requests without echoing card data', async () => {
    const simulator = await startProcessorSimulator({ latencyMs: 0 });
    try {
      const response = await fetch(`${simulator.url}/v1/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({
          reference: 'r',
          amount: -1,
          currency: 'JPY',
          capture: true,
          payment_method: { type: 'card', card: { number: `${PAN}0000`, cvv: '987' } },
        }),
      });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain('invalid_request');
      expect(text).not.toContain(PAN);
      expect(text).not.toMatch(standalone('987'));
      const noKey = await fetch(`${simulator.url}/v1/payments`, { method: 'POST', body: '{}' });
      expect(noKey.status).toBe(400);
      expect((await fetch(`${simulator.url}/v1/payments`, { method: 'DELETE' })).status).toBe(405);
      expect((await fetch(`${simulator.url}/v1/nothing`)).status).toBe(404);
    } finally {
      await simulator.close();
    }
  });

  it('keeps no card number or CVV in its state or answers', async () => {
    const simulator = await startProcessorSimulator({ latencyMs: 0 });
    try {
      const processor = new HttpPaymentProcessor({ baseUrl: simulator.url });
      const request = authorization();
      const result = await processor.authorize(request);
      const status = await processor.status(request.reference);
      const text = JSON.stringify([result, status, simulator.stats()]);
      expect(text).not.toContain(PAN);
      expect(text).not.toMatch(standalone('987'));
      const raw = await (await fetch(`${simulator.url}/v1/payments?reference=${request.reference}`)).json();
      expect(raw).toMatchObject({ payment: { card: { brand: 'visa', last_four: '5556' } } });
      expect(JSON.stringify(raw)).not.toContain(PAN);
    } finally {
      await simulator.close();
    }
  });
});
