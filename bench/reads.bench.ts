/**
 * Reads through the gateway against their in-run floor (issue 35): merchants poll, and the SDK's
 * poll helpers call GET in a loop. Two reads, each measured through the real gateway (auth, the rate
 * limiter's Lua script, the repository, the presenter) and then through a bare Fastify route doing one
 * indexed SELECT of the same rows on the same database (bench/read-floor-server.ts), with the same
 * client and concurrency, one after the other in one run:
 *
 *   GET /stores/{storeId}/charges/{id}   the SDK's charges.get / poll   vs  SELECT … WHERE id = $1
 *   GET /charges                         a store token's first page    vs  SELECT … WHERE store_id = $1
 *                                        (10 newest)                       ORDER BY created_on DESC, id DESC LIMIT 10
 *
 * Target: each gateway read at ≥ 35 % of its floor. The gateway is a process of the compiled build
 * (`npm run build`); its charges stay pending (no charge-service: a read does not care). Rate limits
 * stay on but can never refuse (huge buckets), so the limiter's cost is in the figure and its
 * refusals are not. The load is spread over BENCH_STORES stores, each with its own store token.
 *
 *   npm run bench:reads
 *
 * Settings (environment): BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONCURRENCY (32),
 * BENCH_STORES (20), BENCH_CHARGES_PER_STORE (20), TEST_DATABASE_URL (its server hosts the scratch
 * database), BENCH_NODE_ARGS (extra node flags for every spawned process).
 *
 * CPU per read by process (the server measured, Postgres' backends of the scratch database and its
 * background processes, Redis, this client, and the rest of the machine) is taken over the measured
 * window of each read, the warm-up left out.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { createRedisClient, type RedisClient } from '@kessai/redis';
import { TestEnvironment } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { cpuPerUnit, cpuSnapshot, freePort, Proc } from './bench-processes';
import { waitUntil } from './db-helpers';
import { runRequestLoad, type LoadRequest, type LoadResult } from './load';
import { recordSummary } from './summary';
import { fmt, num, statusList, useScratchDatabase } from './settings';

const SECONDS = num('BENCH_SECONDS', 10);
const WARMUP_SECONDS = num('BENCH_WARMUP_SECONDS', 2);
const CONCURRENCY = num('BENCH_CONCURRENCY', 32);
const STORES = num('BENCH_STORES', 20);
const CHARGES_PER_STORE = num('BENCH_CHARGES_PER_STORE', 20);
const TARGET = 0.35;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;
const HUGE = '1000000000';

useScratchDatabase();

interface ReadStore {
  storeId: string;
  auth: string;
  charges: string[];
}

async function seedStores(env: TestEnvironment): Promise<ReadStore[]> {
  const stores: ReadStore[] = [];
  for (let i = 0; i < STORES; i++) {
    const merchant = await env.admin.createMerchant({
      name: `Read Bench Merchant ${i}`,
      email: `read-bench-${i}-${Date.now()}@example.test`,
      verified: true,
    });
    await env.admin.setPciDssCompliant(merchant.id, true);
    const store = await env.admin.createStore({ merchantId: merchant.id, name: `Read Bench Store ${i}` });
    const token = await env.admin.issueAppToken({ merchantId: merchant.id, storeId: store.id, mode: 'test' });
    stores.push({ storeId: store.id, auth: `Bearer ${token.secret}.${token.jwt}`, charges: [] });
  }
  return stores;
}

async function post(url: string, auth: string, json: unknown): Promise<{ id: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(json),
  });
  if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** CHARGES_PER_STORE pending card charges in every store, through the API, a few stores at once. */
async function seedCharges(gateway: string, stores: ReadStore[]): Promise<void> {
  const oneStore = async (store: ReadStore) => {
    for (let i = 0; i < CHARGES_PER_STORE; i++) {
      const token = await post(`${gateway}/tokens`, store.auth, {
        payment_type: 'card',
        type: 'one_time',
        email: 'buyer@example.test',
        data: {
          cardholder: 'Taro Yamada',
          card_number: '4000056655665556',
          exp_month: 12,
          exp_year: NEXT_YEAR,
          cvv: '123',
        },
      });
      const charge = await post(`${gateway}/charges`, store.auth, {
        transaction_token_id: token.id,
        amount: 1000 + i,
        currency: 'JPY',
      });
      store.charges.push(charge.id);
    }
  };
  for (let i = 0; i < stores.length; i += 8) await Promise.all(stores.slice(i, i + 8).map(oneStore));
}

/** What CPU accounting needs: the server measured, and clients of Redis and the scratch database. */
interface Accounting {
  server: Proc;
  redis: RedisClient;
  db: Client;
}

/**
 * A closed loop over every (store, charge), warmed up first; the measured run's result, with CPU
 * per read by process over the measured run.
 */
async function measure(
  request: (store: ReadStore, chargeId: string) => LoadRequest,
  stores: ReadStore[],
  accounting: Accounting,
): Promise<LoadResult & { cpuMsPerRead: Record<string, number> }> {
  let n = 0;
  const next = (): LoadRequest => {
    const store = stores[n % stores.length];
    const chargeId = store.charges[Math.floor(n / stores.length) % store.charges.length];
    n++;
    return request(store, chargeId);
  };
  await runRequestLoad({ concurrency: CONCURRENCY, durationMs: WARMUP_SECONDS * 1000, next });
  const { server, redis, db } = accounting;
  const processes = [{ name: server.name, pid: server.pid }];
  const before = await cpuSnapshot(processes, redis, db);
  const result = await runRequestLoad({ concurrency: CONCURRENCY, durationMs: SECONDS * 1000, next });
  const after = await cpuSnapshot(processes, redis, db);
  return { ...result, cpuMsPerRead: cpuPerUnit(before, after, result.requests) };
}

const cpuCell = (cpu: Record<string, number>) =>
  Object.entries(cpu)
    .map(([name, ms]) => `${name} ${fmt(ms, 3)}`)
    .join(' · ');

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const variables: Record<string, string> = {
    ...env.variables,
    // the limiter runs on every read, with buckets no read can empty
    RATE_LIMIT_ROUTE_BURST: HUGE,
    RATE_LIMIT_ROUTE_PER_MINUTE: HUGE,
    RATE_LIMIT_EXACT_BURST: HUGE,
    RATE_LIMIT_EXACT_PER_MINUTE: HUGE,
    RATE_LIMIT_EXACT_REFILL_PER_MS: '1000',
    RATE_LIMIT_CHARGE_BURST: HUGE,
    RATE_LIMIT_CHARGE_PER_MINUTE: HUGE,
  };
  delete variables.RATE_LIMIT_REDIS_TIMEOUT_MS; // the production default, not the test suites' 5 s
  delete variables.DB_POOL_SIZE;
  const procs: Proc[] = [];
  const redis = createRedisClient(env.config);
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  try {
    console.log(`scratch database ${env.database.name}, Redis prefix ${variables.REDIS_PREFIX}`);
    const stores = await seedStores(env);
    const port = await freePort();
    const gateway = `http://127.0.0.1:${port}`;
    const gatewayProc = Proc.start('gateway', ['dist/apps/gateway/src/main.js'], {
      ...variables,
      PORT: String(port),
    });
    procs.push(gatewayProc);
    await gatewayProc.waitHttp(`${gateway}/heartbeat`);
    console.log(
      `creating ${STORES * CHARGES_PER_STORE} pending charges (${STORES} stores × ${CHARGES_PER_STORE}) …`,
    );
    await seedCharges(gateway, stores);

    type Measured = Awaited<ReturnType<typeof measure>>;
    const onGateway = { server: gatewayProc, redis, db };
    const results: Array<{ read: string; gateway: Measured; floor?: Measured }> = [
      {
        read: 'GET /stores/{storeId}/charges/{id}',
        gateway: await measure(
          (store, id) => ({
            url: `${gateway}/stores/${store.storeId}/charges/${id}`,
            headers: { authorization: store.auth },
          }),
          stores,
          onGateway,
        ),
      },
      {
        read: 'GET /charges (first page, 10)',
        gateway: await measure(
          (store) => ({ url: `${gateway}/charges`, headers: { authorization: store.auth } }),
          stores,
          onGateway,
        ),
      },
    ];
    await gatewayProc.stop();

    // the floor, same client and concurrency, with the gateway stopped
    const floorPort = await freePort();
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    const floor = Proc.start(
      'read-floor-server',
      ['-r', 'ts-node/register/transpile-only', 'bench/read-floor-server.ts'],
      {
        ...variables,
        PORT: String(floorPort),
      },
    );
    procs.push(floor);
    await waitUntil(
      'the floor server',
      () => Promise.resolve(floor.output.some((l) => l.includes('floor listening'))),
      60_000,
    );
    const onFloor = { server: floor, redis, db };
    results[0].floor = await measure(
      (_, id) => ({ url: `${floorUrl}/floor/charges/${id}` }),
      stores,
      onFloor,
    );
    results[1].floor = await measure(
      (store) => ({ url: `${floorUrl}/floor/stores/${store.storeId}/charges` }),
      stores,
      onFloor,
    );

    console.log(
      `\n${CONCURRENCY} connections (closed loop), ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up; ${STORES} stores × ${CHARGES_PER_STORE} charges; 1 gateway`,
    );
    console.log(
      '\n| read | gateway /s | p50 ms | p99 ms | floor /s | p50 ms | p99 ms | gateway / floor | target ≥ 35 % |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    let failed = false;
    for (const { read, gateway: g, floor: f } of results) {
      const okStatuses =
        Object.keys(g.statuses).every((s) => s === '200') &&
        Object.keys(f!.statuses).every((s) => s === '200');
      const ratio = g.perSecond / f!.perSecond;
      const pass = okStatuses && ratio >= TARGET;
      failed ||= !pass;
      console.log(
        `| ${read} | ${fmt(g.perSecond)} | ${fmt(g.p50Ms, 1)} | ${fmt(g.p99Ms, 1)} | ${fmt(f!.perSecond)} | ${fmt(f!.p50Ms, 1)} | ${fmt(f!.p99Ms, 1)} | ${fmt(ratio * 100, 1)} % | ${pass ? 'pass' : 'FAIL'} |`,
      );
      if (!okStatuses)
        console.log(`  answers: gateway ${statusList(g.statuses)}; floor ${statusList(f!.statuses)}`);
      console.log(`  CPU ms per read, gateway: ${cpuCell(g.cpuMsPerRead)}`);
      console.log(`  CPU ms per read, floor:   ${cpuCell(f!.cpuMsPerRead)}`);
      recordSummary({
        bench: 'reads',
        path: read,
        perSecond: g.perSecond,
        reference: { name: 'bare Fastify route, one indexed SELECT', perSecond: f!.perSecond },
        targetRatio: TARGET,
        pass,
        p50Ms: g.p50Ms,
        p99Ms: g.p99Ms,
        cpuMsPerOp: g.cpuMsPerRead,
        notes: okStatuses ? `${g.requests} reads, all 200` : `answers ${statusList(g.statuses)}`,
      });
    }
    process.exitCode = failed ? 1 : 0;
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    redis.disconnect();
    await db.end();
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
