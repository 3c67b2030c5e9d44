// Prometheus metrics (docs/operations.md, "Metrics"): the gateway's /metrics and a real
// charge-service process's /metrics on its health port, scraped before and after real charges.
process.env.POLLING_INTERVAL = '100';

import { Queue } from 'bullmq';
import { CHARGES_QUEUE } from '@kessai/contracts';
import { bullOptions } from '@kessai/runtime';
import { bearer, eventually, requestJson, scrapeMetrics, sdkCardToken, useSuite } from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const METRICS_TOKEN = 'metrics-scrape-token-for-tests';

const suite = useSuite({
  simulator: (callbackSecret) => startProcessorSimulator({ callbackSecret }),
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'metrics' } },
  workers: ['charge-service'],
  callbacks: true,
});
let queue: Queue;
let strictUrl: string;

const sdk = () => suite.sdk.shop;

async function charge() {
  const token = await sdkCardToken(sdk());
  return sdk().charges.create({ transactionTokenId: token.id, amount: 1000, currency: 'JPY' });
}

const pendingCharges = () => suite.env.prisma.charge.count({ where: { status: 'pending' } });

beforeAll(async () => {
  // one request per exact path, and /metrics behind a token
  ({ url: strictUrl } = await suite.startGateway({
    RATE_LIMIT_EXACT_BURST: '1',
    RATE_LIMIT_EXACT_PER_MINUTE: '1',
    RATE_LIMIT_EXACT_REFILL_PER_MS: '0.000001',
    METRICS_TOKEN,
  }));
  queue = new Queue(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => queue.close());
}, 60_000);

describe('the gateway’s /metrics', () => {
  it('answers without credentials and outside the rate limits, with the process metrics', async () => {
    const response = await fetch(`${suite.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get('x-remaining-requests-route')).toBeNull();
    const text = await response.text();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });

  it('counts a charge’s POST /charges and times it under the route pattern', async () => {
    const labels = { method: 'POST', route: '/charges', status: '201' };
    const before = await scrapeMetrics(suite.url);
    await charge();
    const after = await scrapeMetrics(suite.url);
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
    const before = await scrapeMetrics(suite.url);
    const charges = [await charge(), await charge()];
    for (const { id } of charges) await sdk().charges.get(suite.merchants.shop.store.id, id);
    const after = await scrapeMetrics(suite.url);

    expect(after.find('kessai_http_requests_total', route)).toHaveLength(1);
    expect(after.sum('kessai_http_requests_total', route)).toBe(
      before.sum('kessai_http_requests_total', route) + 2,
    );
    for (const { id } of charges) expect(after.text).not.toContain(id);
    expect(after.text).not.toContain(suite.merchants.shop.store.id);
    const routes = after.find('kessai_http_requests_total').map((sample) => sample.labels.route);
    expect(routes.filter((label) => UUID.test(label))).toEqual([]);
  });

  it('labels a path that matches no route `unmatched`, whatever the path', async () => {
    const labels = { method: 'GET', route: 'unmatched', status: '404' };
    const before = await scrapeMetrics(suite.url);
    const probes = [
      `/no-such-thing/${suite.merchants.shop.store.id}`,
      `/charges/${suite.merchants.shop.store.id}/nope`,
    ];
    for (const path of probes) expect((await fetch(`${suite.url}${path}`)).status).toBe(404);
    const after = await scrapeMetrics(suite.url);
    expect(after.sum('kessai_http_requests_total', labels)).toBe(
      before.sum('kessai_http_requests_total', labels) + 2,
    );
    expect(after.text).not.toContain(suite.merchants.shop.store.id);
  });

  it('counts an idempotent replay', async () => {
    const token = await sdkCardToken(sdk());
    const post = () =>
      requestJson(suite.url, '/charges', {
        method: 'POST',
        auth: bearer(suite.merchants.shop.storeToken),
        key: `metrics-${token.id}`,
        json: { transaction_token_id: token.id, amount: 1000, currency: 'JPY' },
      });
    const before = await scrapeMetrics(suite.url);
    expect((await post()).status).toBe(201);
    const replay = await post();
    expect(replay.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
    const after = await scrapeMetrics(suite.url);
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
    const before = await scrapeMetrics(suite.workers[0].healthUrl);
    const { id } = await charge();
    const done = (await sdk().charges.poll(suite.merchants.shop.store.id, id)) as { status: string };
    expect(done.status).toBe('successful');

    const after = await eventually(
      async () => {
        const scrape = await scrapeMetrics(suite.workers[0].healthUrl);
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
    const scrape = await scrapeMetrics(suite.workers[0].healthUrl);
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
    const before = await scrapeMetrics(suite.workers[0].healthUrl);
    const failedDepth = before.sum('kessai_queue_jobs', { queue: 'charges', state: 'failed' });
    await queue.add('process_charge', { chargeId: 'not-a-uuid' });
    await queue.add('no_such_job', {});
    const after = await eventually(
      async () => {
        const scrape = await scrapeMetrics(suite.workers[0].healthUrl);
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
