/**
 * Recurring payments end to end (issue 13): BENCH_PAYMENTS due scheduled payments claimed by the
 * scheduler, charged through charge-service and the processor simulator, and settled (paid, the
 * next cycle scheduled), with BENCH_SUBSCRIPTION_SERVICES (2) subscription-service replicas, one
 * charge-service (the outbox relay), one webhook-service and the simulator, all co-located with
 * Postgres, Redis and this process, from the compiled build. Then, in the same run, `bench:charges`
 * (charges only) as the reference: a recurring payment skips the HTTP accept path, so it should not
 * be slower than a one-shot charge end to end.
 *
 *   npm run bench:recurring
 *
 * The subscriptions (open-ended, monthly, on BENCH_TOKENS recurring card tokens of one store) and
 * their first payments are written before anything runs, not yet due; one UPDATE then makes them
 * all due at once, and the clock starts. Measured from the database once every payment is settled:
 * payments per second (release → last settled), p50/p99 of due → settled per payment, duplicates
 * (a payment with more than one charge, or more than one successful) and missed (a payment not paid,
 * or a subscription without exactly one next payment).
 *
 * A warm-up of BENCH_WARMUP_PAYMENTS (2,000) other subscriptions goes first, released and settled
 * the same way, as bench:charges warms up before it measures.
 *
 * Settings (environment): BENCH_PAYMENTS (20000; issue 35 asks 1,000,000),
 * BENCH_WARMUP_PAYMENTS (2000; 0: none), BENCH_TOKENS (50),
 * BENCH_SUBSCRIPTION_SERVICES (2), BENCH_PROCESSOR_LATENCY_MS (2), BENCH_WEBHOOK_SERVICE (1),
 * BENCH_COMPARE_CHARGES (1; 0 skips the bench:charges reference), BENCH_CHARGES_SECONDS (10),
 * BENCH_STALL_SECONDS (120: the run fails when no payment settles for that long; the wait itself
 * has no fixed length), BENCH_PROGRESS_SECONDS (10: how often the settled count is printed),
 * SUBSCRIPTION_SCHEDULER_BATCH (the default), TEST_DATABASE_URL.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import {
  APPROVED_TEST_CARD,
  insertCardToken,
  insertWaitingSubscriptions,
  releaseDuePayments,
  TestEnvironment,
} from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { cpuPerUnit, cpuSnapshot, cpuTable, type Proc, startSimulator, startWorker } from './bench-processes';
import { scalar, sleep, waitUntil } from './db-helpers';
import { meetsTargets, recordSummary, type SummaryRow } from './summary';
import { num, on, useScratchDatabase } from './settings';

const PAYMENTS = num('BENCH_PAYMENTS', 20_000);
const WARMUP_PAYMENTS = num('BENCH_WARMUP_PAYMENTS', 2_000);
const TOKENS = num('BENCH_TOKENS', 50);
const SUBSCRIPTION_SERVICES = num('BENCH_SUBSCRIPTION_SERVICES', 2);
const PROCESSOR_LATENCY_MS = num('BENCH_PROCESSOR_LATENCY_MS', 2);
const WEBHOOK_SERVICE = on('BENCH_WEBHOOK_SERVICE');
const COMPARE_CHARGES = on('BENCH_COMPARE_CHARGES');
const CHARGES_SECONDS = num('BENCH_CHARGES_SECONDS', 10);
const STALL_SECONDS = num('BENCH_STALL_SECONDS', 120);
const PROGRESS_SECONDS = num('BENCH_PROGRESS_SECONDS', 10);

useScratchDatabase();

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits }) : 'n/a';

interface RecurringResult {
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  paid: number;
  duplicates: number;
  missed: number;
  perSecondSeries: number[];
}

async function measure(db: Client, subscriptionIds: string[], releasedAt: Date): Promise<RecurringResult> {
  const { rows } = await db.query<{
    paid: string;
    p50: number | null;
    p99: number | null;
    last: Date | null;
  }>(
    `SELECT count(*) AS paid,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_on - $2) * 1000) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_on - $2) * 1000) AS p99,
            max(updated_on) AS last
       FROM scheduled_payments
      WHERE subscription_id = ANY($1::uuid[]) AND sequence = 1 AND status = 'paid'`,
    [subscriptionIds, releasedAt],
  );
  const paid = Number(rows[0].paid);
  const seconds = rows[0].last ? (rows[0].last.getTime() - releasedAt.getTime()) / 1000 : NaN;
  const duplicates = await scalar(
    db,
    `SELECT count(*) AS n FROM (
       SELECT scheduled_payment_id FROM charges WHERE subscription_id = ANY($1::uuid[])
        GROUP BY scheduled_payment_id
       HAVING count(*) > 1 OR count(*) FILTER (WHERE status = 'successful') > 1) d`,
    [subscriptionIds],
  );
  const nextCycles = await scalar(
    db,
    `SELECT count(DISTINCT subscription_id) AS n FROM scheduled_payments
      WHERE subscription_id = ANY($1::uuid[]) AND sequence = 2 AND status = 'pending'`,
    [subscriptionIds],
  );
  const series = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM scheduled_payments
      WHERE subscription_id = ANY($1::uuid[]) AND sequence = 1 AND status = 'paid'
      GROUP BY floor(extract(epoch FROM updated_on - $2)) ORDER BY floor(extract(epoch FROM updated_on - $2))`,
    [subscriptionIds, releasedAt],
  );
  return {
    seconds,
    perSecond: paid / seconds,
    p50Ms: rows[0].p50 ?? NaN,
    p99Ms: rows[0].p99 ?? NaN,
    paid,
    duplicates,
    missed: subscriptionIds.length - paid + (subscriptionIds.length - nextCycles),
    perSecondSeries: series.rows.map((row) => Number(row.n)),
  };
}

/** The per-second series, as 10-second means once it is longer than five minutes. */
function seriesText(series: number[]): string {
  if (series.length <= 300) return series.join(' ');
  const means: number[] = [];
  for (let i = 0; i < series.length; i += 10) {
    const slice = series.slice(i, i + 10);
    means.push(Math.round(slice.reduce((sum, n) => sum + n, 0) / slice.length));
  }
  return `(10-second means) ${means.join(' ')}`;
}

/**
 * Released first payments not settled yet (due or processing; those not released yet wait a year),
 * counted through the engine's own partial indexes, so that polling costs Postgres next to nothing
 * (a count over an array of the measured ids cost as much as the engine's hottest statement).
 */
async function openPayments(db: Client): Promise<number> {
  return scalar(
    db,
    `SELECT count(*) AS n FROM scheduled_payments
      WHERE sequence = 1
        AND (status = 'processing'
             OR (status = 'pending' AND test_clock_id IS NULL AND next_try_at <= now()))`,
  );
}

/**
 * Waits until every released payment is settled, however many there are: the wait has no fixed
 * length (a million payments take longer than twenty thousand), it fails only when nothing settles
 * for BENCH_STALL_SECONDS (120). Prints how many are still open every BENCH_PROGRESS_SECONDS (10),
 * so that a rate falling as the backlog drains shows while the run goes, not only in the end.
 */
async function waitForSettlement(db: Client, released: number) {
  const started = Date.now();
  let open = released;
  let lastProgress = Date.now();
  let lastPrinted = Date.now();
  let openAtPrint = released;
  const progress: string[] = [];
  while (open > 0) {
    // a count reads the partial indexes' entries: at a million open, every 2 s cost the engine 5 %
    await sleep(open > 200_000 ? 5_000 : open > 50_000 ? 2_000 : 250);
    const now = await openPayments(db);
    if (now < open) lastProgress = Date.now();
    open = now;
    if (Date.now() - lastProgress > STALL_SECONDS * 1000) {
      throw new Error(`no payment settled for ${STALL_SECONDS} s; ${open} of ${released} still open`);
    }
    if (Date.now() - lastPrinted >= PROGRESS_SECONDS * 1000 || open === 0) {
      const seconds = (Date.now() - lastPrinted) / 1000;
      const rate = (openAtPrint - open) / seconds;
      progress.push(
        `${Math.round((Date.now() - started) / 1000)} s: ${released - open} settled (${fmt(rate)}/s)`,
      );
      console.log(`  ${progress[progress.length - 1]}`);
      lastPrinted = Date.now();
      openAtPrint = open;
    }
  }
}

/** bench:charges, charges only, as a child process: its end-to-end rate in this same run. */
async function chargesReference(): Promise<{ endToEnd: number; floor: number; table: string[] }> {
  const child = spawn(
    process.execPath,
    ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', 'bench/charges.bench.ts'],
    {
      cwd: path.resolve(__dirname, '..'),
      env: {
        ...process.env,
        // its rows are this benchmark's reference, not lines of bench:all's table
        BENCH_SUMMARY_FILE: '',
        TS_NODE_TRANSPILE_ONLY: '1',
        BENCH_REFUNDS: '0',
        BENCH_SECONDS: String(CHARGES_SECONDS),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench:charges exited ${code}:\n${output.slice(-3000)}`);
  const lines = output.split('\n');
  const rate = (prefix: string) => {
    const line = lines.find((candidate) => candidate.startsWith(prefix));
    return line ? Number(line.split('|')[2].trim().replace(/,/g, '')) : NaN;
  };
  return {
    endToEnd: rate('| end to end'),
    floor: rate('| floor'),
    table: lines.filter((line) => line.startsWith('| ') && !line.startsWith('| process')).slice(0, 6),
  };
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const variables: Record<string, string> = { ...env.variables };
  delete variables.DB_POOL_SIZE;
  const redis = new Redis(env.config.REDIS_URL);
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  const procs: Proc[] = [];
  let result: RecurringResult | undefined;
  let cpu = '';
  let cpuPerPayment: Record<string, number> = {};
  try {
    console.log(`scratch database ${env.database.name}, Redis prefix ${variables.REDIS_PREFIX}`);
    const shop = await env.seedMerchant('bench-recurring');
    const tokens: string[] = [];
    for (let i = 0; i < TOKENS; i++)
      tokens.push(await insertCardToken(env, shop, { cardNumber: APPROVED_TEST_CARD, type: 'recurring' }));
    console.log(`writing ${PAYMENTS} subscriptions and their first payments …`);
    const write = async (count: number) => {
      const ids: string[] = [];
      for (let start = 0; start < count; start += 10_000)
        ids.push(...(await insertWaitingSubscriptions(env, shop, tokens, Math.min(10_000, count - start))));
      return ids;
    };
    const warmup = await write(WARMUP_PAYMENTS);
    const subscriptions = await write(PAYMENTS);
    await db.query('VACUUM ANALYZE subscriptions, scheduled_payments, transaction_tokens');

    const simulator = await startSimulator(variables, PROCESSOR_LATENCY_MS);
    procs.push(simulator.proc);
    const workers: Array<[string, string]> = [
      ['charge-service', 'charge-service'],
      ...Array.from({ length: SUBSCRIPTION_SERVICES }, (_, i): [string, string] => [
        `subscription-service ${i + 1}`,
        'subscription-service',
      ]),
      ...(WEBHOOK_SERVICE ? [['webhook-service', 'webhook-service'] as [string, string]] : []),
    ];
    for (const [name, app] of workers)
      procs.push(await startWorker(name, app, { ...variables, PROCESSOR_TEST_URL: simulator.url }));
    await sleep(1000);

    // warm-up: JIT, pools, prepared statements, BullMQ scripts, as bench:charges warms up too
    if (warmup.length > 0) {
      await releaseDuePayments(env, warmup);
      await waitUntil(
        'the warm-up payments to be settled',
        async () => (await openPayments(db)) === 0,
        600_000,
      );
      console.log(`warm-up: ${warmup.length} payments settled`);
      await sleep(1000);
    }

    const cpuBefore = await cpuSnapshot(procs, redis, db);
    const releasedAt = new Date((await db.query<{ now: Date }>('SELECT now() AS now')).rows[0].now.getTime());
    await releaseDuePayments(env, subscriptions);
    await waitForSettlement(db, subscriptions.length);
    const cpuAfter = await cpuSnapshot(procs, redis, db);
    result = await measure(db, subscriptions, releasedAt);
    cpu = cpuTable(cpuBefore, cpuAfter, Math.max(result.paid, 1), 'payment');
    cpuPerPayment = cpuPerUnit(cpuBefore, cpuAfter, result.paid);
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

  const reference = COMPARE_CHARGES ? await chargesReference() : null;
  console.log(
    `\n${PAYMENTS} due payments, ${SUBSCRIPTION_SERVICES} subscription-service, 1 charge-service` +
      `${WEBHOOK_SERVICE ? ', 1 webhook-service' : ''}, processor simulator latency ${PROCESSOR_LATENCY_MS} ms\n`,
  );
  console.log('| measure | per second | p50 ms | p99 ms | notes |');
  console.log('|---|---|---|---|---|');
  console.log(
    `| recurring payments, release → settled | **${fmt(result.perSecond)}** | ${fmt(result.p50Ms, 1)} | ${fmt(result.p99Ms, 1)} | ${result.paid} paid in ${fmt(result.seconds, 1)} s; duplicates **${result.duplicates}**, missed **${result.missed}** |`,
  );
  if (reference) {
    console.log(
      `| bench:charges end to end (same run, after) | ${fmt(reference.endToEnd)} | | | floor ${fmt(reference.floor)}/s; recurring / charges = ${fmt(result.perSecond / reference.endToEnd, 2)} |`,
    );
  }
  console.log(`\nsettled per second (from the release): ${seriesText(result.perSecondSeries)}`);
  const row: SummaryRow = {
    bench: 'recurring',
    path: `recurring payments, release → settled (${PAYMENTS})`,
    perSecond: result.perSecond,
    ...(reference
      ? {
          reference: { name: 'charges end to end (same run)', perSecond: reference.endToEnd },
          targetRatio: 1,
        }
      : {}),
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    cpuMsPerOp: cpuPerPayment,
    notes: `duplicates ${result.duplicates}, missed ${result.missed}`,
  };
  recordSummary({ ...row, pass: meetsTargets(row) && result.duplicates === 0 && result.missed === 0 });
  console.log(`\nCPU from the release until every payment was settled (per payment):\n`);
  console.log(cpu);
  if (reference) console.log(`\nbench:charges rows:\n${reference.table.join('\n')}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
