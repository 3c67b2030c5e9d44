import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Redis } from 'ioredis';
import SDK from 'univapay-node';
import { loadConfig } from '@kessai/config';
import { masterNodes, RedisService } from '@kessai/redis';
import {
  bearer,
  CapturedLog,
  listenLocally,
  requestJson as call,
  startGatewayProcess,
  testRedisCluster,
  useSuite,
  type Credentials,
  type SpawnedApp,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { planFor } from '@kessai/rate-limits';
import { RateLimiter } from '@kessai/rate-limits';

type Token = Credentials & { id: string };

const log = new CapturedLog();
const suite = useSuite({
  relaxedRateLimits: false,
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { shop: { label: 'limits' } },
});
let exactUrl: string;
let secondStoreId: string;

/** A fresh credential, so that each test starts from full balances. */
async function freshToken(storeId: string | null = suite.merchants.shop.store.id): Promise<Token> {
  return suite.env.admin.issueAppToken({
    merchantId: suite.merchants.shop.merchant.id,
    storeId,
    mode: 'test',
  });
}

/**
 * Sets a credential's per-path buckets to empty since `msAgo` on the limiter's own clock (Redis TIME):
 * the state a used-up burst is in that long after its last request (token-bucket.script.ts).
 */
async function emptyExactBucketsSince(token: Token, msAgo: number) {
  const redis = suite.app.get(RedisService).client;
  const pattern = `${suite.env.config.REDIS_PREFIX}:rl:{app_token_${token.id}}:exact:*:b`;
  const keys: string[] = [];
  // on a Redis Cluster (npm run test:redis-cluster) the keys are on one of the masters
  for (const node of masterNodes(redis)) {
    let cursor = '0';
    do {
      const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
  }
  expect(keys.length).toBeGreaterThan(0);
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Number(micros) / 1000;
  for (const key of keys) await redis.hset(key, 'tokens', 0, 'ts', now - msAgo);
}

const standardHeaders = (headers: Headers) => ({
  exact: headers.get('x-remaining-requests-exact'),
  route: headers.get('x-remaining-requests-route'),
  exactPerMinute: headers.get('x-requests-per-minute-exact'),
  routePerMinute: headers.get('x-requests-per-minute-route'),
});

beforeAll(async () => {
  ({ url: exactUrl } = await suite.startGateway({
    RATE_LIMIT_CHARGE_REFILL_PER_MS: '0.000001',
    RATE_LIMIT_ROUTE_REFILL_PER_MS: '0.000001',
    RATE_LIMIT_EXACT_REFILL_PER_MS: '0.000001',
  }));
  secondStoreId = (
    await suite.env.admin.createStore({ merchantId: suite.merchants.shop.merchant.id, name: 'Second' })
  ).id;
});

describe('standard rate limits', () => {
  it("reports the spec's example after one GET on a fresh balance", async () => {
    const token = await freshToken();
    const res = await call(suite.url, '/me', { auth: bearer(token) });
    expect(res.status).toBe(200);
    expect(standardHeaders(res.headers)).toEqual({
      exact: '9',
      route: '29',
      exactPerMinute: '120',
      routePerMinute: '1200',
    });
    expect(res.headers.get('x-remaining-requests')).toBeNull();
  });

  it('works unchanged through the official SDK', async () => {
    const token = await freshToken();
    const sdk = new SDK({ endpoint: suite.url, jwt: token.jwt, secret: token.secret });
    const store = await sdk.stores.get(suite.merchants.shop.store.id);
    expect(store.id).toBe(suite.merchants.shop.store.id);
  });

  it('refuses the 11th rapid GET on one exact path, while another id on the same route passes', async () => {
    const token = await freshToken(null);
    const path = `/stores/${suite.merchants.shop.store.id}`;
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await call(exactUrl, path, { auth: bearer(token) }));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.map((r) => r.headers.get('x-remaining-requests-exact'))).toEqual([
      '9',
      '8',
      '7',
      '6',
      '5',
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);

    const refused = await call(exactUrl, path, { auth: bearer(token) });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: 'error', code: 'TOO_MANY_REQUESTS', errors: [] });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(standardHeaders(refused.headers)).toMatchObject({ exact: '0', route: '20' });

    const otherId = await call(exactUrl, `/stores/${secondStoreId}`, { auth: bearer(token) });
    expect(otherId.status).toBe(200);
    // same route (/stores/:storeId) keeps counting down across ids; the new exact path starts full
    expect(standardHeaders(otherId.headers)).toMatchObject({ exact: '9', route: '19' });

    // a query string makes another exact path too
    const withQuery = await call(exactUrl, `/stores/${suite.merchants.shop.store.id}?x=1`, {
      auth: bearer(token),
    });
    expect(withQuery.status).toBe(200);
  });

  it('allows one more request 50 ms after the exact burst is used up (refill 0.02/ms)', async () => {
    const token = await freshToken();
    // use the burst up: parallel batches, so that even a slow machine outruns the refill
    let refused = false;
    for (let batch = 0; batch < 5 && !refused; batch++) {
      const results = await Promise.all(
        Array.from({ length: 12 }, () => call(suite.url, '/me', { auth: bearer(token) })),
      );
      refused = results.some((r) => r.status === 429);
    }
    expect(refused).toBe(true);
    // used up 50 ms ago (set on the limiter's clock in Redis rather than waited for): 50 ms at
    // 0.02/ms refill exactly one request
    await emptyExactBucketsSince(token, 50);
    const next = await call(suite.url, '/me', { auth: bearer(token) });
    expect(next.status).toBe(200);
  });

  it('puts the headers on error responses too', async () => {
    const token = await freshToken();
    const notFound = await call(suite.url, `/stores/${secondStoreId}`, { auth: bearer(token) });
    expect(notFound.status).toBe(404);
    expect(standardHeaders(notFound.headers)).toEqual({
      exact: '9',
      route: '29',
      exactPerMinute: '120',
      routePerMinute: '1200',
    });

    const invalid = await call(suite.url, `/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(token),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 42 }),
    });
    expect(invalid.status).toBe(400);
    expect(standardHeaders(invalid.headers).exact).toBe('9');

    // unauthenticated and refused credentials are counted per client IP
    const refusedAuth = await call(suite.url, '/me', { auth: 'Bearer nope' });
    expect(refusedAuth.status).toBe(401);
    expect(refusedAuth.headers.get('x-remaining-requests-route')).not.toBeNull();
    const unknownRoute = await call(suite.url, '/no/such/route');
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.headers.get('x-remaining-requests-exact')).not.toBeNull();
  });

  it('limits unauthenticated requests per client IP', async () => {
    const path = `/heartbeat?probe=${Date.now()}`;
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await call(exactUrl, path)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
  });
});

describe('charge rate limit', () => {
  it('accepts exactly 100 of 101 rapid charge-family requests and reports only its own headers', async () => {
    const token = await freshToken();
    const paths = ['/tokens', '/charges', '/subscriptions'];
    const results = await Promise.all(
      Array.from({ length: 101 }, (_, i) =>
        call(exactUrl, paths[i % 3], {
          method: 'POST',
          auth: bearer(token),
          headers: { 'content-type': 'application/json' },
          body: '{}',
        }),
      ),
    );
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0].body.code).toBe('TOO_MANY_REQUESTS');
    for (const r of results) {
      expect(r.headers.get('x-requests-per-minute')).toBe('3000');
      expect(r.headers.get('x-remaining-requests')).not.toBeNull();
      expect(r.headers.get('x-remaining-requests-exact')).toBeNull();
      expect(r.headers.get('x-remaining-requests-route')).toBeNull();
    }
    const remaining = results.map((r) => Number(r.headers.get('x-remaining-requests'))).sort((a, b) => a - b);
    expect(remaining).toEqual([0, 0, ...Array.from({ length: 99 }, (_, i) => i + 1)]);

    // GET /charges is not in the charge family: the standard buckets still have room
    const list = await call(exactUrl, '/charges', { auth: bearer(token) });
    expect(list.status).not.toBe(429);
    expect(list.headers.get('x-remaining-requests-exact')).toBe('9');
  });

  it('keeps a separate balance per credential', async () => {
    const [a, b] = [await freshToken(), await freshToken()];
    for (let i = 0; i < 10; i++) await call(exactUrl, '/me', { auth: bearer(a) });
    expect((await call(exactUrl, '/me', { auth: bearer(a) })).status).toBe(429);
    expect((await call(exactUrl, '/me', { auth: bearer(b) })).status).toBe(200);
  });
});

describe('rolling-minute cap', () => {
  let app: NestFastifyApplication;
  afterAll(async () => {
    await app?.close();
  });

  it('refuses once the per-minute cap is used, even though the burst has refilled', async () => {
    // a burst that refills instantly leaves only the per-minute cap to bind
    app = await createGatewayApp(
      loadConfig({
        ...suite.env.variables,
        RATE_LIMIT_EXACT_PER_MINUTE: '15',
        RATE_LIMIT_EXACT_REFILL_PER_MS: '1000',
      }),
      { logger: log.logger('gateway') },
    );
    const url = await listenLocally(app);
    const token = await freshToken();
    const statuses = [];
    for (let i = 0; i < 16; i++) statuses.push((await call(url, '/me', { auth: bearer(token) })).status);
    expect(statuses.slice(0, 15)).toEqual(Array(15).fill(200));
    const refused = await call(url, '/me', { auth: bearer(token) });
    expect(refused.status).toBe(429);
    // the oldest of the 15 leaves the window about a minute after it was made
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });
});

describe('many credentials at once', () => {
  it('answers each from its own buckets, whichever Cluster master holds them', async () => {
    // the calls of one instant leave in one auto-pipelined write per Redis node; on a Cluster (npm
    // run test:redis-cluster) these credentials' buckets fall on every master
    const store = await suite.env.admin.createStore({
      merchantId: suite.merchants.shop.merchant.id,
      name: 'Many credentials',
    });
    const tokens = await Promise.all(Array.from({ length: 12 }, () => freshToken(store.id)));
    const answers = await Promise.all(tokens.map((token) => call(suite.url, '/me', { auth: bearer(token) })));
    expect(answers.map((answer) => answer.status)).toEqual(tokens.map(() => 200));
    // each from a fresh balance of its own
    for (const answer of answers)
      expect(standardHeaders(answer.headers)).toMatchObject({ exact: '9', route: '29' });
  });
});

describe('a fresh limiter', () => {
  it('answers its first calls of both shapes, made in one tick (no crash of the auto-pipeline)', async () => {
    const redis = new RedisService(suite.env.config);
    await redis.onModuleInit();
    try {
      const limiter = new RateLimiter(suite.env.config, redis);
      const charge = planFor(limiter.settings, { method: 'POST', url: '/charges', routePattern: '/charges' });
      const standard = planFor(limiter.settings, { method: 'GET', url: '/me', routePattern: '/me' });
      expect([charge.buckets.length, standard.buckets.length]).toEqual([1, 2]);
      const outcomes = await Promise.all([
        limiter.take('fresh_a', charge.buckets),
        limiter.take('fresh_b', standard.buckets),
      ]);
      expect(outcomes.map((outcome) => outcome.allowed)).toEqual([true, true]);
    } finally {
      await redis.onModuleDestroy();
    }
  });
});

describe("an app token's secret-less calls", () => {
  it("have a balance of their own: draining it from a forged Origin leaves the secret's calls alone", async () => {
    const token = await freshToken();
    // the public half alone, from an Origin the token does not allow: counted, then refused
    const publicCalls = [];
    for (let i = 0; i < 12; i++) {
      publicCalls.push(
        await call(exactUrl, '/me', { auth: `Bearer ${token.jwt}`, origin: 'https://forged.example' }),
      );
    }
    expect(publicCalls.slice(-2).map((r) => r.status)).toEqual([429, 429]);
    const own = await call(exactUrl, '/me', { auth: bearer(token) });
    expect(own.status).toBe(200);
    expect(own.headers.get('x-remaining-requests-exact')).toBe('9');
  });
});

describe('two gateway processes sharing one Redis', () => {
  let first: SpawnedApp | undefined;
  let second: SpawnedApp | undefined;
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('enforce one balance per credential', async () => {
    const variables = { ...suite.env.variables, RATE_LIMIT_EXACT_REFILL_PER_MS: '0.000001' };
    const [a, b] = await Promise.all([startGatewayProcess(variables), startGatewayProcess(variables)]);
    first = a.app;
    second = b.app;
    const token = await freshToken();
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => call(i % 2 ? a.url : b.url, '/me', { auth: bearer(token) })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(6);
  }, 90_000);
});

describe('when Redis does not answer', () => {
  /** a gateway whose Redis connection is gone, and a fresh credential for it */
  async function gatewayWithoutRedis(overrides: Record<string, string> = {}) {
    const app = await createGatewayApp(loadConfig({ ...suite.env.variables, ...overrides }), {
      logger: log.logger('gateway'),
    });
    const url = await listenLocally(app);
    app.get(RedisService).client.disconnect();
    return { app, url, token: await freshToken() };
  }

  it('fails closed by default: 503 with Retry-After, not a hang', async () => {
    const { app, url, token } = await gatewayWithoutRedis();
    const res = await call(url, '/me', { auth: bearer(token) });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'error', code: 'SERVICE_UNAVAILABLE_TRY_AGAIN', errors: [] });
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('x-requests-per-minute-exact')).toBe('120');
    await app.close();
  });

  it('lets a request through when Redis is connected but slow: a healthy Redis never refuses', async () => {
    // the limiter's own connection stops reading Redis's answers for a while: connected, ready, late
    // (a loaded machine); on a Cluster the client has no single socket to hold
    if (testRedisCluster()) return;
    const app = await createGatewayApp(
      loadConfig({ ...suite.env.variables, RATE_LIMIT_REDIS_TIMEOUT_MS: '100' }),
      {
        logger: log.logger('gateway'),
      },
    );
    const url = await listenLocally(app);
    const token = await freshToken();
    const client = app.get(RedisService).client as Redis;
    expect((await call(url, '/me', { auth: bearer(token) })).status).toBe(200);
    client.stream.pause();
    try {
      const res = await call(url, '/me', { auth: bearer(token) });
      expect(client.status).toBe('ready');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-remaining-requests-exact')).toBeNull();
    } finally {
      client.stream.resume();
    }
    await app.close();
  });

  it('lets requests through when configured to fail open', async () => {
    const { app, url, token } = await gatewayWithoutRedis({ RATE_LIMIT_REDIS_FAILURE: 'open' });
    const res = await call(url, '/me', { auth: bearer(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-remaining-requests-exact')).toBeNull();
    expect(res.headers.get('x-requests-per-minute-exact')).toBe('120');
    await app.close();
  });
});
