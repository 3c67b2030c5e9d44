// Prometheus metrics (docs/operations.md, "Metrics"): the gateway's /metrics and a real
// charge-service process's /metrics on its health port, scraped before and after real charges.
process.env.POLLING_INTERVAL = '100';

import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue } from 'bullmq';
import { loadConfig } from '@kessai/config';
import { CHARGES_QUEUE } from '@kessai/contracts';
import { bullOptions } from '@kessai/runtime';
import {
  bearer,
  eventually,
  listenLocally,
  RELAXED_RATE_LIMITS,
  requestJson,
  scrapeMetrics,
  sdkCardToken,
  sdkFor,
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

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const METRICS_TOKEN = 'metrics-scrape-token-for-tests';

let env: TestEnvironment;
let gateway: NestFastifyApplication;
let strictGateway: NestFastifyApplication;
let chargeService: SpawnedApp;
let simulator: ProcessorSimulator;
let queue: Queue;
let baseUrl: string;
let strictUrl: string;
let workerUrl: string;
let shop: SeededMerchant;

const sdk = () => sdkFor(baseUrl, shop.storeToken);

async function charge() {
  const token = await sdkCardToken(sdk());
  return sdk().charges.create({ transactionTokenId: token.id, amount: 1000, currency: 'JPY' });
}

const pendingCharges = () => env.prisma.charge.count({ where: { status: 'pending' } });

beforeAll(async () => {
  env = await TestEnvironment.create({ ...RELAXED_RATE_LIMITS });
  simulator = await startProcessorSimulator({
    port: 0,
    host: '127.0.0.1',
    callbackSecret: env.config.PROCESSOR_CALLBACK_SECRET,
  });
  gateway = await createGatewayApp(env.config);
  baseUrl = await listenLocally(gateway);
  // one request per exact path, and /metrics behind a token
  strictGateway = await createGatewayApp(
    loadConfig({
      ...env.variables,
      RATE_LIMIT_EXACT_BURST: '1',
      RATE_LIMIT_EXACT_PER_MINUTE: '1',
      RATE_LIMIT_EXACT_REFILL_PER_MS: '0.000001',
      METRICS_TOKEN,
    }),
  );
  strictUrl = await listenLocally(strictGateway);
  ({ app: chargeService, healthUrl: workerUrl } = await startWorkerProcess(
    'apps/charge-service/src/main.ts',
    {
      ...env.variables,
      PROCESSOR_TEST_URL: simulator.url,
      PROCESSOR_CALLBACK_BASE_URL: baseUrl,
    },
  ));
  queue = new Queue(CHARGES_QUEUE.name, bullOptions(env.config));
  shop = await env.seedPciMerchant('metrics');
}, 90_000);

afterAll(async () => {
  await chargeService?.stop();
  await queue?.close();
  await simulator?.close();
  await env?.close(gateway, strictGateway);
});

describe('the gateway’s /metrics', () => {
  it('answers without credentials and outside the rate limits, with the process metrics', async () => {
    const response = await fetch(`${baseUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get('x-remaining-requests-route')).toBeNull();
    const text = await response.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts a charge’s POST /charges and times it under the route pattern', async () => {
    const labels = { method: 'POST', route: '/charges', status: '201' };
    const before = await scrapeMetrics(baseUrl);
    await charge();
    const after = await scrapeMetrics(baseUrl);
    expect(after.sum('kessai_http_requests_total', labels)).toBe(
      before.sum('kessai_http_requests_total', labels) + 1,
    );
    expect(after.sum('kessai_http_request_duration_seconds_count', labels)).toBe(
      before.sum('kessai_http_request_duration_seconds_count', labels) + 1,
    );
    expect(after.sum('kessai_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(
      before.sum('kessai_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }) + 1,
    );
  });

  it('labels requests for two different charges with one route, never their ids', async () => {
    const route = { method: 'GET', route: '/stores/:storeId/charges/:id', status: '200' };
    const before = await scrapeMetrics(baseUrl);
    const charges = [await charge(), await charge()];
    for (const { id } of charges) await sdk().charges.get(shop.store.id, id);
    const after = await scrapeMetrics(baseUrl);

    expect(after.find('kessai_http_requests_total', route)).toHaveLength(1);
    expect(after.sum('kessai_http_requests_total', route)).toBe(
      before.sum('kessai_http_requests_total', route) + 2,
    );
    for (const { id } of charges) expect(after.text).not.toContain(id);
    expect(after.text).not.toContain(shop.store.id);
    const routes = after.find('kessai_http_requests_total').map((sample) => sample.labels.route);
    expect(routes.filter((label) => UUID.test(label))).toEqual([]);
  });

  it('labels a path that matches no route `unmatched`, whatever the path', async () => {
    const labels = { method: 'GET', route: 'unmatched', status: '404' };
    const before = await scrapeMetrics(baseUrl);
    const probes = [`/no-such-thing/${shop.store.id}`, `/charges/${shop.store.id}/nope`];
    for (const path of probes) expect((await fetch(`${baseUrl}${path}`)).status).toBe(404);
    const after = await scrapeMetrics(baseUrl);
    expect(after.sum('kessai_http_requests_total', labels)).toBe(
      before.sum('kessai_http_requests_total', labels) + 2,
    );
    expect(after.text).not.toContain(shop.store.id);
  });

  it('counts an idempotent replay', async () => {
    const token = await sdkCardToken(sdk());
    const post = () =>
      requestJson(baseUrl, '/charges', {
        method: 'POST',
        auth: bearer(shop.storeToken),
        key: `metrics-${token.id}`,
        json: { transaction_token_id: token.id, amount: 1000, currency: 'JPY' },
      });
    const before = await scrapeMetrics(baseUrl);
    expect((await post()).status).toBe(201);
    const replay = await post();
    expect(replay.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
    const after = await scrapeMetrics(baseUrl);
    expect(after.sum('kessai_idempotency_replays_total')).toBe(
      before.sum('kessai_idempotency_replays_total') + 1,
    );
  });

  it('counts rate-limit refusals by family, and is itself never refused', async () => {
    const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
    const before = await scrapeMetrics(strictUrl, auth);
    expect((await fetch(`${strictUrl}/heartbeat`)).status).toBe(200);
    expect((await fetch(`${strictUrl}/heartbeat`)).status).toBe(429);
    // scraped again and again on a gateway that allows one request per path
    await scrapeMetrics(strictUrl, auth);
    const after = await scrapeMetrics(strictUrl, auth);
    expect(after.sum('kessai_rate_limit_refusals_total', { family: 'standard' })).toBe(
      before.sum('kessai_rate_limit_refusals_total', { family: 'standard' }) + 1,
    );
    expect(after.sum('kessai_http_requests_total', { route: '/heartbeat', status: '429' })).toBe(1);
  });

  it('with METRICS_TOKEN, answers only Bearer <token>', async () => {
    const missing = await requestJson(strictUrl, '/metrics');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect((await fetch(`${strictUrl}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(
      401,
    );
    expect(
      (await fetch(`${strictUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status,
    ).toBe(200);
  });
});

describe('a worker service’s /metrics (charge-service, on its health port)', () => {
  it('shows the charge jobs and outcomes move after a charge is processed', async () => {
    // the charges of the tests above are done first, so that this one alone moves the outcomes
    await eventually(async () => (await pendingCharges()) === 0, {
      timeoutMs: 15_000,
      what: 'no pending charge',
    });
    const job = { queue: 'charges', job: 'process_charges' };
    const before = await scrapeMetrics(workerUrl);
    const { id } = await charge();
    const done = (await sdk().charges.poll(shop.store.id, id)) as { status: string };
    expect(done.status).toBe('successful');

    const after = await eventually(
      async () => {
        const scrape = await scrapeMetrics(workerUrl);
        const moved =
          scrape.sum('kessai_jobs_completed_total', job) > before.sum('kessai_jobs_completed_total', job);
        return moved ? scrape : null;
      },
      { what: 'process_charges counted as completed' },
    );
    expect(after.sum('kessai_charge_outcomes_total', { status: 'successful' })).toBe(
      before.sum('kessai_charge_outcomes_total', { status: 'successful' }) + 1,
    );
    expect(after.sum('kessai_job_duration_seconds_count', { ...job, outcome: 'completed' })).toBeGreaterThan(
      before.sum('kessai_job_duration_seconds_count', { ...job, outcome: 'completed' }),
    );
  });

  it('reports the depth of the queue it consumes by state, and the outbox backlog', async () => {
    const scrape = await scrapeMetrics(workerUrl);
    const states = scrape
      .find('kessai_queue_jobs', { queue: 'charges' })
      .map((sample) => sample.labels.state);
    expect(states.sort()).toEqual(['active', 'delayed', 'failed', 'waiting']);
    // charge-service consumes only `charges`
    expect(new Set(scrape.find('kessai_queue_jobs').map((sample) => sample.labels.queue))).toEqual(
      new Set(['charges']),
    );
    expect(scrape.find('kessai_outbox_unpublished_events')).toHaveLength(1);
    expect(scrape.find('kessai_outbox_oldest_unpublished_age_seconds')).toHaveLength(1);
  });

  it('counts a malformed job as failed for good, under its contract name or `unknown`, and in the failed depth', async () => {
    const before = await scrapeMetrics(workerUrl);
    const failedDepth = before.sum('kessai_queue_jobs', { queue: 'charges', state: 'failed' });
    await queue.add('process_charge', { chargeId: 'not-a-uuid' });
    await queue.add('no_such_job', {});
    const after = await eventually(
      async () => {
        const scrape = await scrapeMetrics(workerUrl);
        const failed = scrape.sum('kessai_queue_jobs', { queue: 'charges', state: 'failed' });
        return failed >= failedDepth + 2 ? scrape : null;
      },
      // the depth is read at most every SCRAPE_CACHE_TTL_MS (5 s)
      { timeoutMs: 12_000, intervalMs: 250, what: 'two more failed jobs in the depth gauge' },
    );
    for (const job of ['process_charge', 'unknown'])
      expect(after.sum('kessai_jobs_failed_total', { queue: 'charges', job, final: 'true' })).toBe(
        before.sum('kessai_jobs_failed_total', { queue: 'charges', job, final: 'true' }) + 1,
      );
    expect(after.find('kessai_jobs_failed_total', { job: 'no_such_job' })).toEqual([]);
  }, 20_000);
});
