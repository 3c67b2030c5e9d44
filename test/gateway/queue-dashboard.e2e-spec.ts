// The queue dashboard (docs/operations.md, "Queue dashboard"): off by default; on, Bull Board over
// every queue of libs/contracts under the suite's BullMQ prefix, behind HTTP Basic credentials,
// read-only, outside the rate limits and the OpenAPI document, and the credentials never logged.
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { CHARGES_QUEUE, jobId, QUEUES } from '@kessai/contracts';
import { bullOptions } from '@kessai/runtime';
import {
  CapturedLog,
  eventually,
  launchChromium,
  requestJson,
  SpawnedApp,
  useSuite,
  waitForJobs,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { QUEUE_DASHBOARD_PATH } from '../../apps/gateway/src/queue-dashboard/queue-dashboard';

const USERNAME = 'ops';
const PASSWORD = 'dashboard-password-for-tests-0123';
const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
const AUTH = basic(`${USERNAME}:${PASSWORD}`);

let baseUrl: string;
let queue: Queue;
const log = new CapturedLog();
const suite = useSuite({ relaxedRateLimits: false, gateway: createGatewayApp });
const failedJobId = jobId('process_charge', randomUUID());

const dashboard = (path: string, authorization?: string, init: RequestInit = {}) =>
  fetch(`${baseUrl}${QUEUE_DASHBOARD_PATH}${path}`, {
    ...init,
    headers: authorization ? { authorization } : {},
  });

beforeAll(async () => {
  ({ url: baseUrl } = await suite.startGateway(
    {
      QUEUE_DASHBOARD_ENABLED: 'true',
      QUEUE_DASHBOARD_USERNAME: USERNAME,
      QUEUE_DASHBOARD_PASSWORD: PASSWORD,
    },
    // debug: a line per answered request, where a leaked header would show
    (config) => createGatewayApp(config, { logger: log.logger('gateway', 'debug') }),
  ));

  // a dead job in the suite's charges queue (its own prefix): one attempt, failed for good
  queue = new Queue(CHARGES_QUEUE.name, bullOptions(suite.env.config));
  suite.cleanup(() => queue.close());
  const worker = new Worker(
    CHARGES_QUEUE.name,
    () => Promise.reject(new UnrecoverableError('dashboard test: processor unreachable')),
    bullOptions(suite.env.config),
  );
  await queue.add(
    'process_charge',
    { aggregateId: randomUUID(), eventType: 'charge_requested' },
    { jobId: failedJobId, attempts: 1 },
  );
  expect(await waitForJobs(queue, [failedJobId], { timeoutMs: 15_000 })).toEqual(['failed']);
  await worker.close();
}, 60_000);

describe('off by default', () => {
  it('is not there: 404 for the page and its API', async () => {
    expect(suite.env.config.QUEUE_DASHBOARD_ENABLED).toBe(false);
    for (const path of ['', '/', '/api/queues']) {
      const res = await fetch(`${suite.url}${QUEUE_DASHBOARD_PATH}${path}`, {
        headers: { authorization: AUTH },
      });
      expect(res.status).toBe(404);
    }
  });

  it('on without a password, the gateway refuses to start with a config error (exit 78)', async () => {
    const app = SpawnedApp.start('apps/gateway/src/main.ts', {
      ...suite.env.variables,
      QUEUE_DASHBOARD_ENABLED: 'true',
    });
    // a gateway booted from source takes seconds, more on a busy machine: wait for its exit
    await eventually(() => app.child.exitCode !== null, { timeoutMs: 100_000, what: 'the gateway to exit' });
    expect(app.child.exitCode).toBe(78);
    expect(app.lines.join('\n')).toContain(
      'QUEUE_DASHBOARD_PASSWORD is required when QUEUE_DASHBOARD_ENABLED=true',
    );
  }, 120_000);
});

describe('on, behind HTTP Basic credentials', () => {
  it.each([
    ['no credentials', undefined],
    ['a wrong password', basic(`${USERNAME}:${PASSWORD}x`)],
    ['a wrong user name', basic(`admin:${PASSWORD}`)],
    ['an app token', 'Bearer a.b.c'],
  ])('answers 401 with a Basic challenge to %s, on every path under it', async (_what, authorization) => {
    for (const path of ['', '/api/queues', '/static/images/logo.svg', '/no-such-page']) {
      const res = await dashboard(path, authorization);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+"/);
      expect(((await res.json()) as { code: string }).code).toBe('INVALID_CREDENTIALS');
    }
  });

  it('serves the page and its own files under a CSP that allows nothing from elsewhere', async () => {
    const page = await dashboard('', AUTH);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    const scripts = [...html.matchAll(/<script[^>]* src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts) {
      expect(script).toMatch(/^static\//); // relative to the page's <base href>
      const res = await dashboard(`/${script}`, AUTH);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/javascript/);
    }
    // the API's own answers keep their headers
    const heartbeat = await fetch(`${baseUrl}/heartbeat`);
    expect(heartbeat.headers.get('content-security-policy')).toBeNull();
  });

  it('renders in a browser under that CSP: the queues and the dead job, nothing refused', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({
        httpCredentials: { username: USERNAME, password: PASSWORD },
      });
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (
          /Content Security Policy/i.test(message.text()) &&
          !message.text().includes('fonts.googleapis.com')
        )
          refused.push(message.text());
      });
      await page.goto(`${baseUrl}${QUEUE_DASHBOARD_PATH}/queue/${CHARGES_QUEUE.name}?status=failed`);
      await page.getByText('dashboard test: processor unreachable').first().waitFor({ timeout: 15_000 });
      for (const { name } of QUEUES) await page.getByText(name, { exact: true }).first().waitFor();
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 30_000);

  it('lists every queue of libs/contracts, and the dead job with why it failed', async () => {
    const all = await requestJson(baseUrl, `${QUEUE_DASHBOARD_PATH}/api/queues`, { auth: AUTH });
    expect(all.status).toBe(200);
    const names = (all.body.queues as Array<{ name: string; readOnlyMode: boolean }>).map((q) => q.name);
    expect(names.sort()).toEqual(QUEUES.map((q) => q.name).sort());

    const failed = await requestJson(
      baseUrl,
      `${QUEUE_DASHBOARD_PATH}/api/queues?activeQueue=${CHARGES_QUEUE.name}&status=failed&page=1&jobsPerPage=10`,
      { auth: AUTH },
    );
    expect(failed.status).toBe(200);
    const charges = (failed.body.queues as Array<Record<string, any>>).find(
      (q) => q.name === CHARGES_QUEUE.name,
    )!;
    expect(charges.counts.failed).toBe(1);
    expect(charges.readOnlyMode).toBe(true);
    expect(charges.jobs).toEqual([
      expect.objectContaining({
        id: failedJobId,
        name: 'process_charge',
        failedReason: 'dashboard test: processor unreachable',
      }),
    ]);
  });

  it('is read-only: a retry through it is refused and the job stays dead (jobs:retry replays)', async () => {
    const retry = await dashboard(`/api/queues/${CHARGES_QUEUE.name}/${failedJobId}/retry`, AUTH, {
      method: 'PUT',
    });
    expect(retry.status).toBe(405);
    const clean = await dashboard(`/api/queues/${CHARGES_QUEUE.name}/clean/failed`, AUTH, { method: 'PUT' });
    expect(clean.status).toBe(405);
    expect(await queue.getJobState(failedJobId)).toBe('failed');
  });

  it('is outside the rate limits and the OpenAPI document', async () => {
    const res = await dashboard('/api/queues', AUTH);
    expect(res.status).toBe(200);
    expect([...res.headers.keys()].filter((name) => name.startsWith('x-remaining-requests'))).toEqual([]);
    const document = await requestJson(baseUrl, '/openapi.json');
    expect(Object.keys(document.body.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
  });

  it('never logs the credentials', async () => {
    await dashboard('/api/queues', AUTH);
    await dashboard('/api/queues', basic(`${USERNAME}:${PASSWORD}-wrong`));
    await eventually(() => log.text.includes(`"route":"${QUEUE_DASHBOARD_PATH}/api/queues"`), {
      what: 'the request lines',
    });
    for (const secret of [PASSWORD, AUTH, AUTH.slice('Basic '.length)])
      expect(log.text).not.toContain(secret);
  });
});
