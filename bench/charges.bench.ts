/**
 * Charges end to end on this machine: POST /charges accepted per second and charges reaching a
 * final status per second, with p50/p99, next to an in-run floor (bench/floor-server.ts: a bare route
 * doing one Redis call, one insert and one enqueue) driven by the same client at the same concurrency.
 * Then, in the same run, refunds end to end (bench/refunds-phase.ts): full refunds of the measured
 * window's charges through the gateway, carried out by refund-cancel-service.
 *
 * Everything is a real process from the compiled build (`npm run build`), co-located with Postgres,
 * Redis and the load generator: the processor simulator (dist/apps/processor-simulator/src/main.js), the
 * gateway(s), charge-service(s) and webhook-service. Rate limits stay on (3,000 charges/min per
 * credential): the load is spread over BENCH_STORES merchants, each with one store and its own
 * store token, like many merchants sharing one service, which also keeps every store within its
 * 1,440 test charges per day. Card tokens (one_time, an approved test card) are created through
 * POST /tokens before the measured phase, with a second token per store so the charge credentials'
 * buckets start full.
 *
 *   npm run bench:charges
 *
 * Settings (environment): BENCH_SECONDS (15), BENCH_WARMUP_SECONDS (3), BENCH_CONCURRENCY (64),
 * BENCH_STORES (40), BENCH_GATEWAYS (1), BENCH_CHARGE_SERVICES (1), BENCH_WEBHOOK_SERVICE (1),
 * BENCH_PROCESSOR_LATENCY_MS (2), BENCH_EXPECTED_RATE (1500: tokens are made for this many charges
 * per second), BENCH_CARD (4000056655665556: approved, and its refund succeeds), BENCH_REFUNDS (1; 0
 * leaves the refunds phase and refund-cancel-service out), BENCH_REFUND_SECONDS (BENCH_SECONDS),
 * BENCH_REFUND_CREDENTIALS (4 store tokens per store for the refunds, in turn),
 * BENCH_LEDGER (1; 0 leaves the ledger phase out: ledger-service started after the measured window,
 * its catch-up on that window's charges timed, then a second window of as many stores of their own
 * measured with it running and a third, on others again, with it stopped: issue 31's "with the
 * ledger posting" against "without", bracketed by a window without it on each side),
 * BENCH_DB_POOL_SIZE (unset: the processes' default),
 * RATE_LIMIT_ENABLED (true), TEST_DATABASE_URL (its server hosts the scratch database),
 * BENCH_NODE_ARGS (extra node flags for every spawned process, e.g. --cpu-prof --cpu-prof-dir=DIR).
 */
import 'reflect-metadata';
import { createRedisClient, masterNodes, type RedisClient } from '@kessai/redis';
import { Client } from 'pg';
import { TestEnvironment } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import {
  cpuPerUnit,
  cpuSnapshot,
  cpuTable,
  freePort,
  Proc,
  startSimulator,
  startWorker,
} from './bench-processes';
import { scalar, sleep, waitUntil } from './db-helpers';
import { runRequestLoad, type LoadRequest, type LoadResult } from './load';
import { drainRefunds, driveRefunds, refundableCharges, refundStats } from './refunds-phase';
import { meetsTargets, recordSummary, type SummaryRow } from './summary';
import { startWaitSampler, waitLine } from './wait-sampler';
import { fmt, num, on, statusList, useScratchDatabase } from './settings';

const SECONDS = num('BENCH_SECONDS', 15);
const WARMUP_SECONDS = num('BENCH_WARMUP_SECONDS', 3);
const CONCURRENCY = num('BENCH_CONCURRENCY', 64);
const STORES = num('BENCH_STORES', 40);
const GATEWAYS = num('BENCH_GATEWAYS', 1);
const CHARGE_SERVICES = num('BENCH_CHARGE_SERVICES', 1);
const WEBHOOK_SERVICE = on('BENCH_WEBHOOK_SERVICE');
const PROCESSOR_LATENCY_MS = num('BENCH_PROCESSOR_LATENCY_MS', 2);
const EXPECTED_RATE = num('BENCH_EXPECTED_RATE', 1500);
// not 4242…4242: in test mode that card's refunds fail, as at UnivaPay
const CARD = process.env.BENCH_CARD ?? '4000056655665556';
const REFUNDS = on('BENCH_REFUNDS');
const REFUND_SECONDS = num('BENCH_REFUND_SECONDS', SECONDS);
const REFUND_CREDENTIALS = num('BENCH_REFUND_CREDENTIALS', 4);
const LEDGER = on('BENCH_LEDGER');
const RATE_LIMITS = process.env.RATE_LIMIT_ENABLED ?? 'true';
const DAILY_TEST_CHARGES = 1_440;
const FINAL = `('successful', 'failed', 'error', 'authorized', 'canceled')`;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;

useScratchDatabase();

// ---------- seeding ----------

interface BenchStore {
  storeId: string;
  /** used for POST /tokens only */
  setupAuth: string;
  /** used for POST /charges only: its rate-limit buckets are untouched when measuring starts */
  chargeAuth: string;
  /**
   * used for POST …/refunds only, likewise, in turn: BENCH_REFUND_CREDENTIALS of them, since the
   * route's limit (1,200/min per credential) would otherwise cap the phase below the charges' rate
   */
  refundAuths: string[];
  tokens: string[];
}

async function seedStores(env: TestEnvironment, count: number): Promise<BenchStore[]> {
  const stores: BenchStore[] = [];
  for (let i = 0; i < count; i++) {
    const merchant = await env.admin.createMerchant({
      name: `Bench Merchant ${i}`,
      email: `bench-${i}-${Date.now()}@example.test`,
      verified: true,
    });
    await env.admin.setPciDssCompliant(merchant.id, true);
    const store = await env.admin.createStore({ merchantId: merchant.id, name: `Bench Store ${i}` });
    const issue = () => env.admin.issueAppToken({ merchantId: merchant.id, storeId: store.id, mode: 'test' });
    const [setup, charge] = [await issue(), await issue()];
    const refunds = [];
    for (let k = 0; k < REFUND_CREDENTIALS; k++) refunds.push(await issue());
    stores.push({
      storeId: store.id,
      setupAuth: `Bearer ${setup.secret}.${setup.jwt}`,
      chargeAuth: `Bearer ${charge.secret}.${charge.jwt}`,
      refundAuths: refunds.map((refund) => `Bearer ${refund.secret}.${refund.jwt}`),
      tokens: [],
    });
  }
  return stores;
}

/** Creates `perStore` one_time card tokens in every store through POST /tokens, round robin. */
/** kessai_rate_limiter_failures_total of every gateway, by reason (slow: let through; unavailable: refused). */
async function limiterFailures(gateways: string[]): Promise<string> {
  const totals: Record<string, number> = { slow: 0, unavailable: 0 };
  for (const gateway of gateways) {
    const text = await (await fetch(`${gateway}/metrics`)).text();
    for (const match of text.matchAll(/^kessai_rate_limiter_failures_total\{reason="(\w+)"\} (\d+)/gm))
      totals[match[1]] = (totals[match[1]] ?? 0) + Number(match[2]);
  }
  return `${totals.slow} calls slower than RATE_LIMIT_REDIS_TIMEOUT_MS with Redis connected (let through), ${totals.unavailable} with Redis unreachable (refused)`;
}

async function createCardTokens(gateways: string[], stores: BenchStore[], perStore: number) {
  const wanted = stores.length * perStore;
  let issued = 0;
  const result = await runRequestLoad({
    concurrency: CONCURRENCY,
    durationMs: 30 * 60_000,
    keepBodies: true,
    next: (worker) => {
      if (issued >= wanted) return null;
      const store = stores[issued % stores.length];
      issued++;
      return {
        url: `${gateways[worker % gateways.length]}/tokens`,
        method: 'POST',
        headers: { authorization: store.setupAuth, 'x-bench-store': store.storeId },
        json: {
          payment_type: 'card',
          type: 'one_time',
          email: 'buyer@example.test',
          data: {
            cardholder: 'Taro Yamada',
            card_number: CARD,
            exp_month: 12,
            exp_year: NEXT_YEAR,
            cvv: '123',
          },
        },
      };
    },
    answered: (request, answer) => {
      const store = stores.find((s) => s.storeId === request.headers?.['x-bench-store'])!;
      if (answer.status === 201) store.tokens.push((JSON.parse(answer.body) as { id: string }).id);
      else if (answer.status === 429) {
        issued--; // made again later (round robin: another store's turn comes first)
      } else throw new Error(`POST /tokens answered ${answer.status}: ${answer.body}`);
    },
  });
  return result;
}

// ---------- the measured runs ----------

interface ChargeRun {
  load: LoadResult;
  startedAt: Date;
  endedAt: Date;
  exhausted: boolean;
}

async function driveCharges(
  gateways: string[],
  stores: BenchStore[],
  durationMs: number,
): Promise<ChargeRun> {
  let turn = 0;
  let exhausted = false;
  const startedAt = new Date();
  const load = await runRequestLoad({
    concurrency: CONCURRENCY,
    durationMs,
    next: (worker) => {
      for (let tried = 0; tried < stores.length; tried++) {
        const store = stores[turn++ % stores.length];
        const token = store.tokens.pop();
        if (token === undefined) continue;
        return {
          url: `${gateways[worker % gateways.length]}/charges`,
          method: 'POST',
          headers: {
            authorization: store.chargeAuth,
            'x-bench-store': store.storeId,
            'x-bench-token': token,
          },
          json: { transaction_token_id: token, amount: 1000, currency: 'JPY', metadata: { bench: true } },
        };
      }
      exhausted = true;
      return null;
    },
    answered: (request, answer) => {
      // refused by the rate limiter: the token was not used, it goes back for a later request
      if (answer.status === 429) {
        const store = stores.find((s) => s.storeId === request.headers?.['x-bench-store'])!;
        store.tokens.push(request.headers!['x-bench-token']);
      }
    },
  });
  return { load, startedAt, endedAt: new Date(), exhausted };
}

async function driveFloor(url: string, stores: BenchStore[], durationMs: number): Promise<LoadResult> {
  let turn = 0;
  return runRequestLoad({
    concurrency: CONCURRENCY,
    durationMs,
    next: (): LoadRequest => {
      const store = stores[turn++ % stores.length];
      return {
        url: `${url}/floor`,
        method: 'POST',
        headers: { authorization: store.chargeAuth },
        json: {
          transaction_token_id: store.storeId,
          amount: 1000,
          currency: 'JPY',
          metadata: { bench: true },
        },
      };
    },
  });
}

/** Every charge created since `since` final; resolves with the time the last one became final. */
async function drain(db: Client, since: Date, timeoutMs: number) {
  await waitUntil(
    'charges to become final',
    async () =>
      (await scalar(
        db,
        `SELECT count(*) AS n FROM charges WHERE created_on >= $1 AND status NOT IN ${FINAL}`,
        [since],
      )) === 0,
    timeoutMs,
  );
}

/** When each charge became final: its charge_finished event, else (authorized) its last update. */
// one grouped pass over the events, joined by hash: a subquery per charge let the planner, on
// statistics taken before the burst, AND the aggregate index with the ledger's partial index of
// every finished event, scanning that whole index once per charge (minutes at 30,000 charges)
const FINAL_TIMES = `
  SELECT c.id, c.status, c.created_on, COALESCE(f.finished_on, c.updated_on) AS final_on
  FROM charges c
  LEFT JOIN (SELECT e.aggregate_id, min(e.created_on) AS finished_on FROM outbox_events e
              WHERE e.event_type = 'charge_finished' GROUP BY e.aggregate_id) f ON f.aggregate_id = c.id`;

/**
 * Keys and memory this run holds in Redis (its prefix), grouped by their second segment: a BullMQ
 * queue's name, or the limiter's and the vault's own groups. Job retention must keep this bounded
 * whatever the number of charges.
 */
async function redisFootprint(redis: RedisClient, prefix: string) {
  const groups = new Map<string, { keys: number; bytes: number }>();
  let keys = 0;
  let bytes = 0;
  // every master of a Cluster; BullMQ's keys are under `{prefix}` there
  for (const node of masterNodes(redis)) {
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        const sizes = await Promise.all(batch.map((key) => node.memory('USAGE', key)));
        batch.forEach((key, i) => {
          const group = key.split(':')[1] ?? '?';
          const entry = groups.get(group) ?? { keys: 0, bytes: 0 };
          entry.keys++;
          entry.bytes += Number(sizes[i] ?? 0);
          groups.set(group, entry);
          keys++;
          bytes += Number(sizes[i] ?? 0);
        });
      } while (cursor !== '0');
    }
  }
  return { keys, bytes, groups };
}

async function finalStats(db: Client, from: Date, to: Date) {
  const windowSeconds = (to.getTime() - from.getTime()) / 1000;
  const finals = await scalar(
    db,
    `SELECT count(*) AS n FROM (${FINAL_TIMES}) f WHERE f.status IN ${FINAL} AND f.final_on >= $1 AND f.final_on < $2`,
    [from, to],
  );
  const { rows: latency } = await db.query<{ n: string; p50: number; p99: number; last: Date }>(
    `SELECT count(*) AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) AS p99,
            max(final_on) AS last
     FROM (SELECT f.final_on, extract(epoch FROM (f.final_on - f.created_on)) * 1000 AS ms
           FROM (${FINAL_TIMES}) f WHERE f.created_on >= $1 AND f.created_on < $2 AND f.status IN ${FINAL}) x`,
    [from, to],
  );
  const { rows: perSecond } = await db.query<{ s: number; n: string }>(
    `SELECT floor(extract(epoch FROM (f.final_on - $1::timestamptz)))::int AS s, count(*) AS n
     FROM (${FINAL_TIMES}) f WHERE f.status IN ${FINAL} AND f.final_on >= $1
     GROUP BY 1 ORDER BY 1`,
    [from],
  );
  const { rows: statuses } = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM charges WHERE created_on >= $1 AND created_on < $2 GROUP BY 1 ORDER BY 1`,
    [from, to],
  );
  const created = statuses.reduce((sum, row) => sum + Number(row.n), 0);
  const last = latency[0]?.last ? new Date(latency[0].last) : to;
  return {
    finalsInWindow: finals,
    finalizedPerSecond: finals / windowSeconds,
    created,
    acceptToFinalP50: Number(latency[0]?.p50),
    acceptToFinalP99: Number(latency[0]?.p99),
    /** the window's charges, from the first accepted to the last final */
    endToEndPerSecond: created / ((last.getTime() - from.getTime()) / 1000),
    drainSeconds: (last.getTime() - to.getTime()) / 1000,
    perSecond: perSecond.map((row) => Number(row.n)),
    statuses: Object.fromEntries(statuses.map((row) => [row.status, Number(row.n)])),
  };
}

/**
 * The refunds phase (bench/refunds-phase.ts): the measured windows' successful charges refunded in
 * full through the gateway, a warm-up first, then a closed-loop window of BENCH_REFUND_SECONDS and
 * every accepted refund awaited until final; printed like the charges' figures. Each store's
 * refunds go through its BENCH_REFUND_CREDENTIALS credentials in turn.
 */
async function measureRefunds(context: {
  procs: Proc[];
  redis: RedisClient;
  db: Client;
  gateways: string[];
  stores: BenchStore[];
  /** the charges refunded: every successful one created between the first window's start and the last's end */
  charges: { startedAt: Date; endedAt: Date };
  /** the charges' end-to-end rate of this run: refunds are measured against it (issue 35) */
  chargesEndToEnd: number;
}) {
  const { procs, redis, db, gateways } = context;
  const authByStore = new Map(
    context.stores.map((store) => [store.storeId, { auths: store.refundAuths, turn: 0 }]),
  );
  const authOf = (storeId: string) => {
    const store = authByStore.get(storeId)!;
    return store.auths[store.turn++ % store.auths.length];
  };
  const charges = await refundableCharges(db, context.charges.startedAt, context.charges.endedAt);
  console.log(`\nrefunds: ${charges.length} successful charges of the measured windows to refund`);
  let next = 0;
  if (WARMUP_SECONDS > 0) {
    const warm = await driveRefunds({
      gateways,
      charges: charges.slice(0, Math.min(charges.length, 50 * WARMUP_SECONDS * STORES)),
      authOf,
      concurrency: CONCURRENCY,
      durationMs: WARMUP_SECONDS * 1000,
    });
    next = warm.load.statuses[201] ?? 0;
    console.log(`refunds warm-up: ${warm.load.requests} requests (${statusList(warm.load.statuses)})`);
    if (!next) throw new Error(`POST …/refunds accepted nothing (${statusList(warm.load.statuses)})`);
    await drainRefunds(db, warm.startedAt, 120_000);
    await sleep(1000);
  }
  // the charges the warm-up refunded are not offered again (a second full refund would be a 400)
  const remaining = await refundableCharges(db, context.charges.startedAt, context.charges.endedAt);
  const cpuBefore = await cpuSnapshot(procs, redis, db);
  const run = await driveRefunds({
    gateways,
    charges: remaining,
    authOf,
    concurrency: CONCURRENCY,
    durationMs: REFUND_SECONDS * 1000,
  });
  const cpuAtEnd = await cpuSnapshot(procs, redis, db);
  let drained = true;
  try {
    await drainRefunds(db, run.startedAt, 300_000);
  } catch {
    drained = false;
  }
  const cpuDrained = await cpuSnapshot(procs, redis, db);
  const stats = await refundStats(db, run.startedAt, run.endedAt);
  const accepted = run.load.statuses[201] ?? 0;

  console.log(
    `\nPOST /stores/{id}/charges/{id}/refunds (full refunds of the window's charges), ${CONCURRENCY} connections ` +
      `(closed loop), ${REFUND_SECONDS} s after a ${WARMUP_SECONDS} s warm-up; ${REFUND_CREDENTIALS} store tokens of their own per store, in turn ` +
      `(${fmt((REFUND_CREDENTIALS * context.stores.length * 1200) / 60)} refunds/s allowed by the route's limit); ` +
      `1 refund-cancel-service`,
  );
  console.log('\n| measure | per second | p50 ms | p99 ms | notes |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| POST …/refunds accepted (201) | ${fmt(accepted / run.load.seconds)} | ${fmt(run.load.p50Ms, 1)} | ${fmt(run.load.p99Ms, 1)} | ${statusList(run.load.statuses)}${run.exhausted ? ' (ran out of charges to refund)' : ''} |`,
  );
  console.log(
    `| refunds reaching a final status (during the window) | ${fmt(stats.finalizedPerSecond)} | ${fmt(stats.acceptToFinalP50, 1)} | ${fmt(stats.acceptToFinalP99, 1)} | accept → final latency; ${statusList(stats.statuses)} |`,
  );
  console.log(
    `| end to end (window's refunds, first accepted → last final) | ${fmt(stats.endToEndPerSecond)} | | | ${stats.created} refunds, drained ${fmt(stats.drainSeconds, 1)} s after the window${drained ? '' : ' (NOT drained within 300 s)'} |`,
  );
  console.log(
    `\ncharges whose refunded amount differs from their successful refunds, or over-reserved: ${stats.overRefunded}`,
  );
  console.log(`\nCPU during the ${REFUND_SECONDS} s refunds window (per accepted refund):\n`);
  console.log(cpuTable(cpuBefore, cpuAtEnd, Math.max(accepted, 1), 'refund'));
  console.log(`\nCPU from the refunds window's start until every refund was final (per refund):\n`);
  console.log(cpuTable(cpuBefore, cpuDrained, Math.max(stats.created, 1), 'refund'));
  const row: SummaryRow = {
    bench: 'charges',
    path: 'refunds end to end',
    perSecond: stats.endToEndPerSecond,
    reference: { name: 'charges end to end', perSecond: context.chargesEndToEnd },
    targetRatio: 1,
    p50Ms: stats.acceptToFinalP50,
    p99Ms: stats.acceptToFinalP99,
    cpuMsPerOp: cpuPerUnit(cpuBefore, cpuDrained, stats.created),
    notes: `${stats.created} refunds; out of step ${stats.overRefunded}`,
  };
  recordSummary({ ...row, pass: meetsTargets(row) && drained && stats.overRefunded === 0 });
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const variables: Record<string, string> = { ...env.variables, RATE_LIMIT_ENABLED: RATE_LIMITS };
  delete variables.RATE_LIMIT_REDIS_TIMEOUT_MS; // the production default, not the test suites' 5 s
  if (process.env.BENCH_DB_POOL_SIZE) variables.DB_POOL_SIZE = process.env.BENCH_DB_POOL_SIZE;
  else delete variables.DB_POOL_SIZE;
  const redis = createRedisClient(env.config);
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  const procs: Proc[] = [];
  try {
    console.log(`scratch database ${env.database.name}, Redis prefix ${variables.REDIS_PREFIX}`);
    const allStores = await seedStores(env, LEDGER ? 3 * STORES : STORES);
    // the ledger's windows charge stores of their own: each store's daily test quota holds one window
    const stores = allStores.slice(0, STORES);
    const ledgerStores = allStores.slice(STORES, 2 * STORES);
    const afterStores = allStores.slice(2 * STORES);

    // the outside world first
    const simulator = await startSimulator(variables, PROCESSOR_LATENCY_MS);
    procs.push(simulator.proc);
    const simulatorUrl = simulator.url;

    const gateways: string[] = [];
    for (let i = 0; i < GATEWAYS; i++) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const gateway = Proc.start(
        `gateway${GATEWAYS > 1 ? ` ${i + 1}` : ''}`,
        ['dist/apps/gateway/src/main.js'],
        {
          ...variables,
          PORT: String(port),
          PROCESSOR_TEST_URL: simulatorUrl,
          PROCESSOR_CALLBACK_BASE_URL: url,
        },
      );
      procs.push(gateway);
      await gateway.waitHttp(`${url}/heartbeat`);
      gateways.push(url);
    }
    const workers: Array<[string, string]> = [
      ...Array.from({ length: CHARGE_SERVICES }, (_, i): [string, string] => [
        `charge-service${CHARGE_SERVICES > 1 ? ` ${i + 1}` : ''}`,
        'charge-service',
      ]),
      ...(WEBHOOK_SERVICE ? [['webhook-service', 'webhook-service'] as [string, string]] : []),
      ...(REFUNDS ? [['refund-cancel-service', 'refund-cancel-service'] as [string, string]] : []),
    ];
    for (const [name, app] of workers) {
      procs.push(
        await startWorker(name, app, {
          ...variables,
          PROCESSOR_TEST_URL: simulatorUrl,
          PROCESSOR_CALLBACK_BASE_URL: gateways[0],
        }),
      );
    }

    // card tokens are made before each phase: for the warm-up at BENCH_EXPECTED_RATE, for the
    // measured run at twice the rate the warm-up reached (within the stores' daily test quota)
    const makeTokens = async (perStore: number, forStores = stores) => {
      const used = forStores === stores ? tokensPerStore : 0;
      perStore = Math.max(1, Math.min(perStore, DAILY_TEST_CHARGES - used));
      if (forStores === stores) tokensPerStore += perStore;
      console.log(
        `creating ${perStore * forStores.length} card tokens (${forStores.length} stores × ${perStore}) …`,
      );
      const cpu = await cpuSnapshot(procs, redis, db);
      const load = await createCardTokens(gateways, forStores, perStore);
      const gatewayCpu = gateways.length
        ? ((await cpuSnapshot(procs, redis, db)).seconds.gateway - cpu.seconds.gateway) * 1000
        : NaN;
      console.log(
        `POST /tokens: ${fmt(load.perSecond)}/s, p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms (${statusList(load.statuses)}); ` +
          `gateway CPU ${fmt(gatewayCpu / load.requests, 2)} ms per token`,
      );
      // the token events go through the outbox relay: let it finish before measuring
      await waitUntil(
        'the outbox relay',
        async () =>
          (await scalar(db, 'SELECT count(*) AS n FROM outbox_events WHERE published_on IS NULL')) === 0,
        300_000,
      );
    };
    let tokensPerStore = 0;
    let expectedRate = EXPECTED_RATE;

    // warm-up: JIT, pools, prepared queries, BullMQ scripts; then let it drain
    if (WARMUP_SECONDS > 0) {
      await makeTokens(Math.ceil((EXPECTED_RATE * WARMUP_SECONDS) / STORES) + 1);
      const warm = await driveCharges(gateways, stores, WARMUP_SECONDS * 1000);
      console.log(
        `warm-up: ${warm.load.requests} charges, ${fmt((warm.load.statuses[201] ?? 0) / warm.load.seconds)}/s accepted (${statusList(warm.load.statuses)})`,
      );
      if (!warm.load.statuses[201])
        throw new Error(`POST /charges accepted nothing in the warm-up (${statusList(warm.load.statuses)})`);
      expectedRate = Math.max(100, (2 * (warm.load.statuses[201] ?? 0)) / warm.load.seconds);
      await drain(db, warm.startedAt, 120_000);
      await sleep(1000);
    }
    await makeTokens(Math.ceil((expectedRate * SECONDS) / STORES) + 1);

    // measured: accepted/s and latency from the client, finals from the database
    const cpuBefore = await cpuSnapshot(procs, redis, db);
    const waits = await startWaitSampler(env.database.url);
    const run = await driveCharges(gateways, stores, SECONDS * 1000);
    const windowWaits = await waits.stop();
    const cpuAtEnd = await cpuSnapshot(procs, redis, db);
    let drained = true;
    try {
      await drain(db, run.startedAt, 300_000);
    } catch {
      drained = false;
    }
    const cpuDrained = await cpuSnapshot(procs, redis, db);
    const stats = await finalStats(db, run.startedAt, run.endedAt);
    const accepted = run.load.statuses[201] ?? 0;
    const allCharges = await scalar(db, 'SELECT count(*) AS n FROM charges', []);
    const footprint = await redisFootprint(redis, variables.REDIS_PREFIX);

    const unposted = () =>
      scalar(
        db,
        `SELECT count(*) AS n FROM charges c WHERE c.status = 'successful' AND NOT EXISTS (
           SELECT 1 FROM ledger_transactions t
            WHERE t.kind = 'sale' AND t.source_type = 'charge' AND t.source_id = c.id)`,
      );
    const startLedgerService = async () => {
      const ledgerService = await startWorker('ledger-service', 'ledger-service', { ...variables });
      procs.push(ledgerService);
      return ledgerService;
    };
    /** a window of SECONDS on `forStores` (tokens made first), drained; its figures and its CPU per accepted charge */
    const chargeWindow = async (forStores: BenchStore[]) => {
      await makeTokens(Math.ceil((expectedRate * SECONDS) / STORES) + 1, forStores);
      const before = await cpuSnapshot(procs, redis, db);
      const sampler = await startWaitSampler(env.database.url);
      const window = await driveCharges(gateways, forStores, SECONDS * 1000);
      const waitProfile = await sampler.stop();
      const atEnd = await cpuSnapshot(procs, redis, db);
      await drain(db, window.startedAt, 300_000);
      const windowStats = await finalStats(db, window.startedAt, window.endedAt);
      const windowAccepted = window.load.statuses[201] ?? 0;
      return {
        window,
        windowStats,
        windowAccepted,
        waits: waitProfile,
        cpu: cpuTable(before, atEnd, Math.max(windowAccepted, 1), 'charge'),
        cpuPerCharge: cpuPerUnit(before, atEnd, windowAccepted),
      };
    };
    /**
     * Issue 31's "with the ledger posting" against "without", bracketed: the window with
     * ledger-service posting runs between two windows without it (the first, measured window and
     * one after it), each on stores of its own, so that what drifts with the run's order (the
     * database grows, and with autovacuum off as in CI every later window reads the earlier ones'
     * dead row versions) weighs on "without" as much as on "with".
     */
    const measureLedger = async () => {
      const backlog = await unposted();
      const catchUpBefore = await cpuSnapshot(procs, redis, db);
      const caughtUpFrom = performance.now();
      let ledgerService = await startLedgerService();
      await waitUntil(
        'ledger-service to post every charge so far',
        async () => (await unposted()) === 0,
        600_000,
      );
      const catchUp = { charges: backlog, seconds: (performance.now() - caughtUpFrom) / 1000 };
      const catchUpCpu = cpuTable(
        catchUpBefore,
        await cpuSnapshot(procs, redis, db),
        Math.max(backlog, 1),
        'posting',
      );
      const posting = await chargeWindow(ledgerStores);
      await waitUntil('the window’s charges to be posted', async () => (await unposted()) === 0, 300_000);
      // without it again: ledger-service stopped (its last run committed: nothing is left unposted)
      await ledgerService.stop();
      procs.splice(procs.indexOf(ledgerService), 1);
      const after = await chargeWindow(afterStores);
      // and started again for the rest of the run (the refunds post as in production)
      ledgerService = await startLedgerService();
      await waitUntil(
        'the last window’s charges to be posted',
        async () => (await unposted()) === 0,
        300_000,
      );
      return { catchUp, catchUpCpu, posting, after };
    };

    // the floor, same client and concurrency, while the rest idles
    const floorPort = await freePort();
    const floor = Proc.start(
      'floor-server',
      ['-r', 'ts-node/register/transpile-only', 'bench/floor-server.ts'],
      { ...variables, PORT: String(floorPort) },
    );
    procs.push(floor);
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    await waitUntil(
      'the floor server',
      () => Promise.resolve(floor.output.some((line) => line.includes('floor listening'))),
      60_000,
    );
    await driveFloor(floorUrl, stores, 2_000);
    const floorCpuBefore = await cpuSnapshot([floor], redis, db);
    const floorLoad = await driveFloor(floorUrl, stores, SECONDS * 1000);
    const floorCpuAfter = await cpuSnapshot([floor], redis, db);

    // the ledger (issue 31): ledger-service started now, its catch-up on everything so far timed,
    // then a second window on stores of their own with it running
    const ledger = LEDGER ? await measureLedger() : null;

    const header = [
      `\nPOST /charges, ${CONCURRENCY} connections (closed loop), ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up;`,
      `${STORES} merchants × 1 store × 1 store token, rate limits ${RATE_LIMITS === 'true' ? 'on' : 'OFF'};`,
      `${GATEWAYS} gateway, ${CHARGE_SERVICES} charge-service${WEBHOOK_SERVICE ? ', 1 webhook-service' : ''}, processor simulator latency ${PROCESSOR_LATENCY_MS} ms; card ${CARD}`,
    ];
    console.log(header.join('\n'));
    console.log('\n| measure | per second | p50 ms | p99 ms | notes |');
    console.log('|---|---|---|---|---|');
    console.log(
      `| POST /charges accepted (201) | ${fmt(accepted / run.load.seconds)} | ${fmt(run.load.p50Ms, 1)} | ${fmt(run.load.p99Ms, 1)} | ${statusList(run.load.statuses)}${run.exhausted ? ' (ran out of card tokens: raise BENCH_EXPECTED_RATE)' : ''} |`,
    );
    console.log(
      `| charges reaching a final status (during the window) | ${fmt(stats.finalizedPerSecond)} | ${fmt(stats.acceptToFinalP50, 1)} | ${fmt(stats.acceptToFinalP99, 1)} | accept → final latency; ${statusList(stats.statuses)} |`,
    );
    console.log(
      `| end to end (window's charges, first accepted → last final) | ${fmt(stats.endToEndPerSecond)} | | | ${stats.created} charges, drained ${fmt(stats.drainSeconds, 1)} s after the window${drained ? '' : ' (NOT drained within 300 s)'} |`,
    );
    console.log(
      `| floor: bare route, 1 Redis INCR + 1 INSERT + 1 BullMQ add | ${fmt(floorLoad.perSecond)} | ${fmt(floorLoad.p50Ms, 1)} | ${fmt(floorLoad.p99Ms, 1)} | ${statusList(floorLoad.statuses)} |`,
    );
    console.log(
      `\nfinal statuses reached per second (from the window's start): ${stats.perSecond.join(' ')}`,
    );
    // decision 0025: how often the limiter's call outran RATE_LIMIT_REDIS_TIMEOUT_MS with Redis healthy
    console.log(`\nrate limiter, warm-up included: ${await limiterFailures(gateways)}`);
    console.log(
      `\nRedis after ${allCharges} charges in all (warm-up included), once drained: ${footprint.keys} keys, ` +
        `${fmt(footprint.bytes / 1_048_576, 1)} MiB (MEMORY USAGE); by group: ` +
        [...footprint.groups]
          .sort((a, b) => b[1].keys - a[1].keys)
          .map(([group, entry]) => `${group} ${entry.keys} (${fmt(entry.bytes / 1_048_576, 1)} MiB)`)
          .join(', '),
    );
    console.log(`\nCPU during the ${SECONDS} s window (per accepted charge):\n`);
    console.log(cpuTable(cpuBefore, cpuAtEnd, Math.max(accepted, 1), 'charge'));
    console.log(`\nCPU from the window's start until every charge was final (per charge):\n`);
    console.log(cpuTable(cpuBefore, cpuDrained, Math.max(stats.created, 1), 'charge'));
    console.log(`\nCPU of the floor run (per request):\n`);
    console.log(cpuTable(floorCpuBefore, floorCpuAfter, Math.max(floorLoad.requests, 1), 'request'));
    const chargesRow: SummaryRow = {
      bench: 'charges',
      path: 'charges end to end',
      perSecond: stats.endToEndPerSecond,
      reference: { name: 'floor (INCR + INSERT + BullMQ add)', perSecond: floorLoad.perSecond },
      targetRatio: 0.75,
      p50Ms: stats.acceptToFinalP50,
      p99Ms: stats.acceptToFinalP99,
      cpuMsPerOp: cpuPerUnit(cpuBefore, cpuDrained, stats.created),
      notes: `${stats.created} charges, accepted ${fmt(accepted / run.load.seconds)}/s`,
    };
    recordSummary({ ...chargesRow, pass: meetsTargets(chargesRow) && drained });

    if (ledger) {
      const withIt = ledger.posting.windowStats.endToEndPerSecond;
      const before = stats.endToEndPerSecond;
      const after = ledger.after.windowStats.endToEndPerSecond;
      const without = (before + after) / 2;
      const ratio = withIt / without;
      console.log(
        `\nledger (issue 31): ledger-service posted the ${ledger.catchUp.charges} charges made before it started in ` +
          `${fmt(ledger.catchUp.seconds, 1)} s (${fmt(ledger.catchUp.charges / Math.max(ledger.catchUp.seconds, 0.001))} postings/s, ` +
          `its poll interval included); then a ${SECONDS} s window on ${ledgerStores.length} stores of their own with it running, ` +
          `and one more without it (stopped) on ${afterStores.length} others:\n`,
      );
      console.log('| measure | per second | p50 ms | p99 ms | notes |');
      console.log('|---|---|---|---|---|');
      for (const [name, measured] of [
        ['ledger-service running', ledger.posting],
        ['after, ledger-service stopped', ledger.after],
      ] as const) {
        console.log(
          `| POST /charges accepted (201), ${name} | ${fmt(measured.windowAccepted / measured.window.load.seconds)} | ${fmt(measured.window.load.p50Ms, 1)} | ${fmt(measured.window.load.p99Ms, 1)} | ${statusList(measured.window.load.statuses)} |`,
        );
        console.log(
          `| end to end, ${name} | ${fmt(measured.windowStats.endToEndPerSecond)} | ${fmt(measured.windowStats.acceptToFinalP50, 1)} | ${fmt(measured.windowStats.acceptToFinalP99, 1)} | ${measured.windowStats.created} charges, drained ${fmt(measured.windowStats.drainSeconds, 1)} s after the window |`,
        );
      }
      console.log(
        `\nwith the ledger posting: ${fmt(withIt)}/s; without it ${fmt(before)}/s before and ${fmt(after)}/s after ` +
          `(after/before ${fmt((100 * after) / before)} %: the drift of the run's order); ` +
          `**${fmt(100 * ratio)} %** of their mean (${fmt((100 * withIt) / before)} % of the one before, ` +
          `${fmt((100 * withIt) / after)} % of the one after; issue 31: at least 90 %)`,
      );
      console.log(`\nPostgres backends' waits, sampled every 100 ms:`);
      console.log(`- without (the measured window): ${waitLine(windowWaits)}`);
      console.log(`- with ledger-service posting: ${waitLine(ledger.posting.waits)}`);
      console.log(`- without, after: ${waitLine(ledger.after.waits)}`);
      console.log(`\nCPU of the catch-up (per posting):\n`);
      console.log(ledger.catchUpCpu);
      console.log(`\nCPU during the window with ledger-service running (per accepted charge):\n`);
      console.log(ledger.posting.cpu);
      console.log(`\nCPU during the window after it, ledger-service stopped (per accepted charge):\n`);
      console.log(ledger.after.cpu);
      const ledgerRow: SummaryRow = {
        bench: 'charges',
        path: 'charges end to end, ledger posting',
        perSecond: withIt,
        reference: {
          name: 'charges end to end without it (mean of the windows before and after)',
          perSecond: without,
        },
        targetRatio: 0.9,
        cpuMsPerOp: ledger.posting.cpuPerCharge,
        notes: `without: ${fmt(before)}/s before, ${fmt(after)}/s after; catch-up ${fmt(ledger.catchUp.charges / Math.max(ledger.catchUp.seconds, 0.001))} postings/s`,
      };
      recordSummary({ ...ledgerRow, pass: meetsTargets(ledgerRow) });
    } else
      console.log(
        `\nPostgres backends' waits during the window, sampled every 100 ms: ${waitLine(windowWaits)}`,
      );

    if (REFUNDS)
      await measureRefunds({
        procs,
        redis,
        db,
        gateways,
        stores: allStores,
        charges: { startedAt: run.startedAt, endedAt: ledger?.after.window.endedAt ?? run.endedAt },
        chargesEndToEnd: stats.endToEndPerSecond,
      });
    console.log(`\nPostgres storage per 1,000,000 charges (docs/scaling.md), from this run's tables:\n`);
    console.log(await storageTable(db));
  } catch (error) {
    for (const proc of procs) {
      if (proc.output.length > 0) console.error(`--- ${proc.name}:\n${proc.output.slice(-30).join('\n')}`);
    }
    throw error;
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    redis.disconnect();
    await db.end();
    await env.close();
  }
}

/**
 * What each table holds per charge, rows and bytes (heap, TOAST and every index: pg_total_relation_size
 * after a VACUUM, so that dead row versions are not counted), scaled to a million charges.
 */
async function storageTable(db: Client): Promise<string> {
  const tables = [
    'charges',
    'transaction_tokens',
    'card_vault',
    'outbox_events',
    'webhook_deliveries',
    'webhook_attempts',
    'idempotency_records',
    'refunds',
    'ledger_transactions',
    'ledger_entries',
  ];
  await db.query(`VACUUM ${tables.join(', ')}`);
  const charges = await scalar(db, 'SELECT count(*) AS n FROM charges');
  const rows = [
    '| table | rows per charge | bytes per charge | GiB per 1,000,000 charges |',
    '|---|---|---|---|',
  ];
  for (const table of tables) {
    const { rows: size } = await db.query<{ n: string; bytes: string }>(
      `SELECT (SELECT count(*) FROM ${table})::text AS n, pg_total_relation_size('${table}')::text AS bytes`,
    );
    const perCharge = Number(size[0].bytes) / Math.max(charges, 1);
    rows.push(
      `| ${table} | ${fmt(Number(size[0].n) / Math.max(charges, 1), 2)} | ${fmt(perCharge)} | ${fmt((perCharge * 1e6) / 2 ** 30, 2)} |`,
    );
  }
  return rows.join('\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
