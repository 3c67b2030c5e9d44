/**
 * Charges end to end through each processor connector, in one run (issue 32): the same live-mode
 * card charges sent to the processor simulator, to the KOMOJU fake and to the Stripe fake, each
 * provider's turn after the other's with the same processes, so that what differs is the adapter
 * (its request building, its HTTP client, its answer mapping) and the provider's own answers.
 *
 * One gateway, one charge-service and one webhook-service from the compiled build, co-located with
 * Postgres, Redis and this process. Per provider one verified, PCI DSS compliant merchant with
 * BENCH_STORES (8) stores, each with its own live store tokens (the live rate limits stay on and
 * apply to each store's token). The simulator's merchant has no route: its charges go to the
 * deployment's live default (PROCESSOR_LIVE=http at the simulator, BENCH_PROCESSOR_LATENCY_MS 2).
 * The KOMOJU and Stripe merchants each have one processor account (made with the operator's CLI,
 * credentials on standard input, as an operator does) and a route of every store's cards to it.
 * The fakes (libs/testing, the providers' own wire) run in this process: their CPU is counted with
 * the load generator's, as "bench client", and their webhooks go to the gateway signed as the
 * providers sign them.
 *
 * For each provider: card tokens through POST /tokens, a warm-up of BENCH_WARMUP_SECONDS (2), then
 * BENCH_SECONDS (8) of POST /charges from BENCH_CONCURRENCY (32) connections, a drain until every
 * charge is final; measured: accepted/s, end to end (the window's charges over the time from the
 * window's start to the last one final), accept → final p50/p99, and CPU per charge by process over
 * the window and its drain. Every charge must be successful and executed once at its provider (the
 * fakes count creations per charge id), or the benchmark exits 1.
 *
 *   npm run bench:connectors
 *
 * Settings (environment): BENCH_SECONDS (8), BENCH_WARMUP_SECONDS (2), BENCH_CONCURRENCY (32),
 * BENCH_STORES (8 per provider), BENCH_EXPECTED_RATE (600: tokens are made for this many charges per
 * second), BENCH_PROCESSOR_LATENCY_MS (2, the simulator's), BENCH_PROVIDERS (simulator,komoju,stripe:
 * which turns, in that order), TEST_DATABASE_URL.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { runCli } from '@kessai/admin';
import { createRedisClient } from '@kessai/redis';
import {
  type FakeKomoju,
  type FakeStripe,
  REAL_CARD_NUMBER,
  startFakeKomoju,
  startFakeStripe,
  TestEnvironment,
} from '@kessai/testing';
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
import { runRequestLoad, type LoadResult } from './load';
import { recordSummary } from './summary';
import { fmt, num, runBench, statusList, useScratchDatabase } from './settings';

const SECONDS = num('BENCH_SECONDS', 8);
const WARMUP_SECONDS = num('BENCH_WARMUP_SECONDS', 2);
const CONCURRENCY = num('BENCH_CONCURRENCY', 32);
const STORES = num('BENCH_STORES', 8);
const EXPECTED_RATE = num('BENCH_EXPECTED_RATE', 600);
const PROCESSOR_LATENCY_MS = num('BENCH_PROCESSOR_LATENCY_MS', 2);
const NEXT_YEAR = new Date().getUTCFullYear() + 1;
const FINAL = `('successful', 'failed', 'error', 'authorized', 'canceled')`;

const KOMOJU_KEY = 'sk_live_bench_komoju_secret_key';
const KOMOJU_HOOK = 'bench-komoju-webhook-secret';
const STRIPE_KEY = 'sk_live_bench_stripe_secret_key';
const STRIPE_HOOK = 'whsec_bench_stripe_webhook_secret';

useScratchDatabase();

type ProviderName = 'simulator' | 'komoju' | 'stripe';

interface Provider {
  name: ProviderName;
  label: string;
  stores: { storeId: string; setupAuth: string; chargeAuth: string; tokens: string[] }[];
  /** payment creations the provider executed for a charge id (undefined: the simulator, not counted here) */
  createdFor?: (chargeId: string) => number;
}

interface Measured {
  provider: Provider;
  load: LoadResult;
  created: number;
  statuses: Record<string, number>;
  endToEnd: number;
  p50: number;
  p99: number;
  executedTwice: number;
  cpuMs: Record<string, number>;
  table: string;
}

async function seedProvider(
  env: TestEnvironment,
  name: ProviderName,
  label: string,
  cli: (argv: string[], stdin: string) => Promise<{ id: string }>,
): Promise<{ provider: Provider; merchantId: string; accountId?: string }> {
  const merchant = await env.admin.createMerchant({
    name: `Bench ${label}`,
    email: `bench-${name}-${Date.now()}@example.test`,
    verified: true,
  });
  await env.admin.setPciDssCompliant(merchant.id, true);
  const account =
    name === 'simulator'
      ? undefined
      : await cli(
          ['processor-account:create', '--merchant', merchant.id, '--provider', name, '--mode', 'live'],
          name === 'komoju' ? `${KOMOJU_KEY}\n${KOMOJU_HOOK}\n` : `${STRIPE_KEY}\n${STRIPE_HOOK}\n`,
        );
  const stores: Provider['stores'] = [];
  for (let i = 0; i < STORES; i++) {
    const store = await env.admin.createStore({ merchantId: merchant.id, name: `${label} store ${i}` });
    const issue = () => env.admin.issueAppToken({ merchantId: merchant.id, storeId: store.id, mode: 'live' });
    const [setup, charge] = [await issue(), await issue()];
    if (account) {
      await cli(
        [
          'processor-route:set',
          '--store',
          store.id,
          '--mode',
          'live',
          '--payment-type',
          'card',
          '--account',
          account.id,
        ],
        '',
      );
    }
    stores.push({
      storeId: store.id,
      setupAuth: `Bearer ${setup.secret}.${setup.jwt}`,
      chargeAuth: `Bearer ${charge.secret}.${charge.jwt}`,
      tokens: [],
    });
  }
  return { provider: { name, label, stores }, merchantId: merchant.id, accountId: account?.id };
}

async function createTokens(gateway: string, provider: Provider, perStore: number) {
  const wanted = provider.stores.length * perStore;
  let issued = 0;
  await runRequestLoad({
    concurrency: CONCURRENCY,
    durationMs: 30 * 60_000,
    keepBodies: true,
    next: () => {
      if (issued >= wanted) return null;
      const store = provider.stores[issued % provider.stores.length];
      issued++;
      return {
        url: `${gateway}/tokens`,
        method: 'POST',
        headers: { authorization: store.setupAuth, 'x-bench-store': store.storeId },
        json: {
          payment_type: 'card',
          type: 'one_time',
          email: 'buyer@example.test',
          data: {
            cardholder: 'Taro Yamada',
            card_number: REAL_CARD_NUMBER,
            exp_month: 12,
            exp_year: NEXT_YEAR,
            cvv: '123',
          },
        },
      };
    },
    answered: (request, answer) => {
      const store = provider.stores.find((s) => s.storeId === request.headers?.['x-bench-store'])!;
      if (answer.status === 201) store.tokens.push((JSON.parse(answer.body) as { id: string }).id);
      else if (answer.status === 429) issued--;
      else throw new Error(`POST /tokens answered ${answer.status}: ${answer.body}`);
    },
  });
}

async function driveCharges(gateway: string, provider: Provider, durationMs: number) {
  let turn = 0;
  return runRequestLoad({
    concurrency: CONCURRENCY,
    durationMs,
    next: () => {
      for (let tried = 0; tried < provider.stores.length; tried++) {
        const store = provider.stores[turn++ % provider.stores.length];
        const token = store.tokens.pop();
        if (token === undefined) continue;
        return {
          url: `${gateway}/charges`,
          method: 'POST',
          headers: {
            authorization: store.chargeAuth,
            'x-bench-store': store.storeId,
            'x-bench-token': token,
          },
          json: { transaction_token_id: token, amount: 1000, currency: 'JPY' },
        };
      }
      return null;
    },
    answered: (request, answer) => {
      if (answer.status === 429) {
        const store = provider.stores.find((s) => s.storeId === request.headers?.['x-bench-store'])!;
        store.tokens.push(request.headers!['x-bench-token']);
      }
    },
  });
}

/** Every charge of `storeIds` created since `since` final. */
async function drain(db: Client, storeIds: string[], since: Date) {
  await waitUntil(
    'the charges to become final',
    async () =>
      (await scalar(
        db,
        `SELECT count(*) AS n FROM charges
          WHERE store_id = ANY($1::uuid[]) AND created_on >= $2 AND status::text NOT IN ${FINAL}`,
        [storeIds, since],
      )) === 0,
    300_000,
  );
}

async function windowStats(db: Client, storeIds: string[], from: Date, to: Date) {
  const { rows } = await db.query<{ id: string; status: string; ms: number; final_on: Date }>(
    `SELECT c.id, c.status::text AS status,
            extract(epoch FROM (COALESCE(f.finished_on, c.updated_on) - c.created_on)) * 1000 AS ms,
            COALESCE(f.finished_on, c.updated_on) AS final_on
       FROM charges c
       LEFT JOIN (SELECT e.aggregate_id, min(e.created_on) AS finished_on FROM outbox_events e
                   WHERE e.event_type = 'charge_finished' GROUP BY e.aggregate_id) f ON f.aggregate_id = c.id
      WHERE c.store_id = ANY($1::uuid[]) AND c.created_on >= $2 AND c.created_on < $3`,
    [storeIds, from, to],
  );
  const latencies = rows.map((row) => Number(row.ms)).sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  const last = rows.reduce((max, row) => Math.max(max, new Date(row.final_on).getTime()), to.getTime());
  const statuses: Record<string, number> = {};
  for (const row of rows) statuses[row.status] = (statuses[row.status] ?? 0) + 1;
  return {
    ids: rows.map((row) => row.id),
    statuses,
    endToEnd: rows.length / ((last - from.getTime()) / 1000),
    p50: at(0.5),
    p99: at(0.99),
  };
}

async function main(): Promise<number> {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const variables: Record<string, string> = { ...env.variables };
  delete variables.RATE_LIMIT_REDIS_TIMEOUT_MS;
  delete variables.DB_POOL_SIZE;
  const redis = createRedisClient(env.config);
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  const credentialsDir = mkdtempSync(path.join(tmpdir(), 'kessai-bench-cli-'));
  const procs: Proc[] = [];
  let komoju: FakeKomoju | undefined;
  let stripe: FakeStripe | undefined;
  const results: Measured[] = [];
  try {
    console.log(`scratch database ${env.database.name}, Redis prefix ${variables.REDIS_PREFIX}`);
    const cli = async (argv: string[], stdin: string) =>
      (await runCli(argv, {
        env: { ...variables },
        credentialsFile: path.join(credentialsDir, 'credentials.json'),
        print: () => undefined,
        readStdin: () => Promise.resolve(stdin),
      })) as { id: string };

    // the outside world first
    const simulator = await startSimulator(variables, PROCESSOR_LATENCY_MS);
    procs.push(simulator.proc);
    komoju = await startFakeKomoju({ secretKey: KOMOJU_KEY, webhookSecret: KOMOJU_HOOK });
    stripe = await startFakeStripe({ secretKey: STRIPE_KEY, webhookSecret: STRIPE_HOOK });

    const seeded = [
      await seedProvider(env, 'simulator', 'the simulator (no route)', cli),
      await seedProvider(env, 'komoju', 'KOMOJU fake', cli),
      await seedProvider(env, 'stripe', 'Stripe fake', cli),
    ];
    const komojuFake = komoju;
    const stripeFake = stripe;
    seeded[1].provider.createdFor = (id) => komojuFake.createdFor(id);
    seeded[2].provider.createdFor = (id) => stripeFake.createdFor(id);

    const port = await freePort();
    const gateway = `http://127.0.0.1:${port}`;
    komoju.webhookUrl = `${gateway}/processor/komoju/webhooks/${seeded[1].accountId}`;
    stripe.webhookUrl = `${gateway}/processor/stripe/webhooks/${seeded[2].accountId}`;
    const processVariables = {
      ...variables,
      PROCESSOR_TEST_URL: simulator.url,
      PROCESSOR_LIVE: 'http',
      PROCESSOR_LIVE_URL: simulator.url,
      PROCESSOR_CALLBACK_BASE_URL: gateway,
      PUBLIC_BASE_URL: gateway,
      KOMOJU_API_URL: komoju.url,
      STRIPE_API_URL: stripe.url,
    };
    const gatewayProc = Proc.start('gateway', ['dist/apps/gateway/src/main.js'], {
      ...processVariables,
      PORT: String(port),
    });
    procs.push(gatewayProc);
    await gatewayProc.waitHttp(`${gateway}/heartbeat`);
    for (const app of ['charge-service', 'webhook-service'])
      procs.push(await startWorker(app, app, processVariables));

    const order = (process.env.BENCH_PROVIDERS ?? 'simulator,komoju,stripe').split(',');
    for (const { provider } of [...seeded].sort(
      (a, b) => order.indexOf(a.provider.name) - order.indexOf(b.provider.name),
    )) {
      if (!order.includes(provider.name)) continue;
      const storeIds = provider.stores.map((store) => store.storeId);
      console.log(`\n${provider.label}: card tokens …`);
      await createTokens(gateway, provider, Math.ceil((EXPECTED_RATE * WARMUP_SECONDS) / STORES));
      const warmupFrom = new Date();
      await driveCharges(gateway, provider, WARMUP_SECONDS * 1000);
      await drain(db, storeIds, warmupFrom);
      for (const store of provider.stores) store.tokens.length = 0;
      await createTokens(gateway, provider, Math.ceil((EXPECTED_RATE * SECONDS * 1.5) / STORES));
      await sleep(1000); // the tokens' events through the relay before the clock starts

      const before = await cpuSnapshot(procs, redis, db);
      const from = new Date((await db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.getTime());
      const load = await driveCharges(gateway, provider, SECONDS * 1000);
      const to = new Date((await db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.getTime());
      await drain(db, storeIds, from);
      const after = await cpuSnapshot(procs, redis, db);
      const stats = await windowStats(db, storeIds, from, to);
      const executedTwice = provider.createdFor
        ? stats.ids.filter((id) => provider.createdFor!(id) !== 1).length
        : 0;
      results.push({
        provider,
        load,
        created: stats.ids.length,
        statuses: stats.statuses,
        endToEnd: stats.endToEnd,
        p50: stats.p50,
        p99: stats.p99,
        executedTwice,
        cpuMs: cpuPerUnit(before, after, stats.ids.length),
        table: cpuTable(before, after, Math.max(stats.ids.length, 1), 'charge'),
      });
      console.log(
        `${provider.label}: ${stats.ids.length} charges (${statusList(stats.statuses)}), end to end ${fmt(stats.endToEnd)}/s; ` +
          `POST /charges p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms`,
      );
    }
    const answered = (deliveries: { status: number | null }[]) => {
      const statuses: Record<string, number> = {};
      for (const delivery of deliveries)
        statuses[String(delivery.status)] = (statuses[String(delivery.status)] ?? 0) + 1;
      return statusList(statuses);
    };
    console.log(
      `\nprovider webhooks, as the gateway answered them: KOMOJU ${answered(komoju.deliveries)}; Stripe ${answered(stripe.deliveries)}`,
    );
  } catch (error) {
    for (const proc of procs)
      if (proc.output.length > 0) console.error(`--- ${proc.name}:\n${proc.output.slice(-30).join('\n')}`);
    throw error;
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    await komoju?.close();
    await stripe?.close();
    rmSync(credentialsDir, { recursive: true, force: true });
    redis.disconnect();
    await db.end();
    await env.close();
  }

  const reference = results.find((result) => result.provider.name === 'simulator') ?? results[0];
  console.log(
    `\nlive card charges, 1 gateway, 1 charge-service, 1 webhook-service, ${CONCURRENCY} connections, ` +
      `${STORES} stores per provider, ${SECONDS} s each\n`,
  );
  console.log(
    '| provider | accepted/s | end to end/s | of the simulator | accept → final p50 / p99 ms | charges | executed ≠ once | charge-service ms/charge | gateway | postgres | bench client (load + fake) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  let failed = false;
  for (const result of results) {
    const notSuccessful = result.created - (result.statuses.successful ?? 0);
    if (notSuccessful > 0 || result.executedTwice > 0 || result.created === 0) failed = true;
    console.log(
      `| ${result.provider.label} | ${fmt(result.load.perSecond)} (${statusList(result.load.statuses)}) | **${fmt(result.endToEnd)}** | ${fmt((result.endToEnd / reference.endToEnd) * 100)} % | ${fmt(result.p50, 1)} / ${fmt(result.p99, 1)} | ${result.created} (${statusList(result.statuses)}) | ${result.provider.createdFor ? result.executedTwice : 'n/a'} | ${fmt(result.cpuMs['charge-service'], 3)} | ${fmt(result.cpuMs.gateway, 3)} | ${fmt(result.cpuMs.postgres, 3)} | ${fmt(result.cpuMs['bench client'], 3)} |`,
    );
  }
  for (const result of results)
    console.log(`\n${result.provider.label}, CPU over the window and its drain:\n${result.table}`);
  recordSummary(
    ...results.map((result) => ({
      bench: 'connectors',
      path: `live card charges end to end, ${result.provider.label}`,
      perSecond: result.endToEnd,
      reference: { name: 'the simulator (same run)', perSecond: reference.endToEnd },
      pass: result.executedTwice === 0 && result.created === (result.statuses.successful ?? 0),
      p50Ms: result.p50,
      p99Ms: result.p99,
      cpuMsPerOp: result.cpuMs,
      notes: `${result.created} charges; executed other than once ${result.executedTwice}`,
    })),
  );
  if (failed) console.error('\nFAIL: a charge not successful, or executed other than once at its provider');
  return failed ? 1 : 0;
}

runBench(main);
