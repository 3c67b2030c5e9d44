/**
 * The ledger at volume (issue 31), in two parts on one scratch database.
 *
 * 1. The payout run for BENCH_PAYOUT_MERCHANTS (10,000) merchants: each with a store, a primary bank
 *    account (test mode: verified at once) and a sale matured before its latest payout day (the
 *    default schedule: monthly on the 1st, Asia/Tokyo). Then BENCH_PAYOUT_REPLICAS (2) ledger-service
 *    processes of the compiled build (their payout engine and sender every PAYOUT_INTERVAL_MS, 1,000
 *    here), the processor simulator as the test bank and the gateway for the bank's signed notices:
 *    timed until every merchant has its transfer, and until every transfer is paid. Exactly once is
 *    checked: one transfer per merchant, of the sale's net, one payout run per book, and
 *    ledger:verify finds nothing broken afterwards.
 * 2. Then, among those stores' accounts, one store with BENCH_LEDGER_ENTRIES (1,000,000) entries:
 *    sales with a fee (two entries each on the store's pending account) posted through
 *    LedgerRepository.post in batches of BENCH_LEDGER_BATCH (1,000), as ledger-service posts them
 *    (postings per second and CPU per posting printed). Then the balance read the API and the
 *    console use (`ledger_find_store_balances`) under EXPLAIN ANALYZE, custom and generic plans: it
 *    must reach the store's materialized balance rows through an index and touch no entry, so its
 *    cost does not grow with the entries (the bench exits 1 otherwise); its latency over
 *    BENCH_BALANCE_READS (2,000) reads; and `ledger:verify` over the whole book, timed (the periodic
 *    check reads every entry once).
 *
 *   npm run bench:ledger
 *
 * Settings (environment): BENCH_LEDGER_ENTRIES, BENCH_LEDGER_BATCH, BENCH_BALANCE_READS,
 * BENCH_PAYOUT_MERCHANTS, BENCH_PAYOUT_REPLICAS, BENCH_SEED_CONCURRENCY (8), TEST_DATABASE_URL (its
 * server hosts the scratch database).
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { BankAccountsService } from '@kessai/accounts';
import { createRedisClient } from '@kessai/redis';
import { BankAccountsRepository, LedgerRepository, type PostingRequest } from '@kessai/db';
import { salePosting } from '@kessai/domain';
import { lastPayoutDay } from '@kessai/schedule';
import { DEFAULT_CONFIGURATION } from '@kessai/store-configuration';
import {
  registeredStatement,
  statementPlan,
  tableReads,
  TestEnvironment,
  type PlanNode,
} from '@kessai/testing';
import { BankAccountCipher } from '@kessai/vault';
import globalSetup from '../test/global-setup';
import { cpuSnapshot, cpuTable, freePort, Proc, startSimulator, startWorker } from './bench-processes';
import { scalar, waitUntil } from './db-helpers';
import { recordSummary } from './summary';
import { fmt, num, runBench, useScratchDatabase } from './settings';

const ENTRIES = num('BENCH_LEDGER_ENTRIES', 1_000_000);
const BATCH = num('BENCH_LEDGER_BATCH', 1_000);
const READS = num('BENCH_BALANCE_READS', 2_000);
const MERCHANTS = num('BENCH_PAYOUT_MERCHANTS', 10_000);
const REPLICAS = num('BENCH_PAYOUT_REPLICAS', 2);
const SEED_CONCURRENCY = num('BENCH_SEED_CONCURRENCY', 8);
const FIND_STORE_BALANCES = registeredStatement('ledger_find_store_balances');
const GROSS = 10_000n;
const FEE = 360n; // 3.6 %
const DAY = 86_400_000;

useScratchDatabase();

/** Runs `work` for 0…count-1, `concurrency` at a time. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

function sale(owner: { merchantId: string; storeId: string }, availableOn: Date): PostingRequest {
  return {
    posting: salePosting({
      mode: 'test',
      ...owner,
      currency: 'JPY',
      chargeId: randomUUID(),
      grossAmount: GROSS,
      feeAmount: FEE,
      feeRatePpm: 36_000,
      feeFlatAmount: null,
      availableOn,
    }),
    createdBy: 'bench',
    causeEventId: null,
  };
}

/** Part 2: a store with ENTRIES entries, its balance read. Resolves to whether the plan held. */
async function balanceAtVolume(
  env: TestEnvironment,
  db: Client,
  redis: ReturnType<typeof createRedisClient>,
) {
  const ledger = new LedgerRepository(env.prisma);
  const { merchant, store } = await env.seedMerchant('ledger-volume');
  const owner = { merchantId: merchant.id, storeId: store.id };
  // a year ahead: the sales stay pending, so each is one entry on the store's pending account
  const availableOn = new Date(Date.now() + 365 * DAY);
  // a sale puts the gross and takes the fee on the store's pending account: entries per sale
  const perSale = sale(owner, availableOn).posting.lines.filter((line) => 'storeId' in line.account).length;
  const sales = Math.ceil(ENTRIES / perSale);
  console.log(
    `posting ${sales} sales (${perSale} entries each on the store) to one store, ${BATCH} a call …`,
  );
  const before = await cpuSnapshot([], redis, db);
  const started = performance.now();
  for (let posted = 0; posted < sales; posted += BATCH) {
    const count = Math.min(BATCH, sales - posted);
    const result = await ledger.post(Array.from({ length: count }, () => sale(owner, availableOn)));
    if (result.written.length !== count)
      throw new Error(`a batch wrote ${result.written.length} of ${count}`);
    if ((posted / BATCH) % 100 === 99)
      console.log(
        `  ${posted + count} posted (${fmt((posted + count) / ((performance.now() - started) / 1000))}/s)`,
      );
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await cpuSnapshot([], redis, db);
  const postings = sales;
  const storeEntries = await scalar(
    db,
    `SELECT count(*) AS n FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id WHERE a.store_id = $1`,
    [store.id],
  );
  console.log(
    `\nposted ${postings} sales in ${fmt(seconds, 1)} s: ${fmt(postings / seconds)} postings/s; ` +
      `the store's accounts hold ${storeEntries} entries\n`,
  );
  console.log(cpuTable(before, after, postings, 'posting'));
  await db.query('ANALYZE ledger_accounts; ANALYZE ledger_entries; ANALYZE ledger_transactions');

  // the read's plan: the store's balance rows through the store key, no entry touched
  const params = { storeId: store.id, mode: 'test' as const };
  let planHeld = true;
  for (const mode of ['custom', 'generic'] as const) {
    const plan: PlanNode[] = await statementPlan(db, FIND_STORE_BALANCES, params, mode);
    const accounts = tableReads(plan, 'ledger_accounts');
    const entries = tableReads(plan, 'ledger_entries');
    const seqScans = plan
      .filter((node) => node['Node Type'] === 'Seq Scan')
      .map((node) => node['Relation Name']);
    const ok =
      accounts.indexes.length > 0 && seqScans.length === 0 && entries.rows === 0 && accounts.rows <= 16;
    planHeld &&= ok;
    console.log(
      `balance read, ${mode} plan: ${plan.map((node) => node['Node Type']).join(' → ')}; ` +
        `ledger_accounts rows ${accounts.rows} through ${accounts.indexes.join(', ') || 'no index'}; ` +
        `ledger_entries rows ${entries.rows}; ${ok ? 'as it must be' : 'NOT THE PLAN IT MUST BE'}`,
    );
  }
  const balances = await ledger.storeBalances(store.id, 'test');
  const pending = balances.find((row) => row.kind === 'store_pending');
  if (!pending || pending.entryCount !== BigInt(storeEntries) || storeEntries < ENTRIES) {
    console.log(
      `the pending balance row counts ${pending?.entryCount} entries, the store has ${storeEntries}`,
    );
    planHeld = false;
  }
  const latencies: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t = performance.now();
    await ledger.storeBalances(store.id, 'test');
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  console.log(
    `balance read through LedgerRepository.storeBalances, ${READS} reads: p50 ${fmt(p50, 2)} ms, p99 ${fmt(p99, 2)} ms ` +
      `(pending ${pending?.balance} over ${pending?.entryCount} entries)`,
  );
  const verifyStarted = performance.now();
  const verification = await ledger.verify();
  const verifySeconds = (performance.now() - verifyStarted) / 1000;
  const broken =
    verification.unbalancedTransactions +
    verification.emptyTransactions +
    verification.unbalancedBooks +
    verification.wrongBalances +
    verification.wrongMaturities;
  console.log(
    `ledger:verify over ${verification.entries} entries in ${verification.transactions} transactions: ` +
      `${fmt(verifySeconds, 1)} s, ${broken} broken\n`,
  );
  recordSummary({
    bench: 'ledger',
    path: `balance read at ${storeEntries.toLocaleString('en-US')} entries`,
    perSecond: 1000 / p50,
    p50Ms: p50,
    p99Ms: p99,
    pass: planHeld && broken === 0,
    notes: `posting ${fmt(postings / seconds)}/s; verify ${fmt(verifySeconds, 1)} s`,
  });
  return planHeld && broken === 0;
}

/** Part 1: the payout run for MERCHANTS merchants. Resolves to whether exactly once held. */
async function payoutRun(env: TestEnvironment, db: Client, redis: ReturnType<typeof createRedisClient>) {
  const ledger = new LedgerRepository(env.prisma);
  const bankAccounts = new BankAccountsService(
    new BankAccountsRepository(env.prisma),
    new BankAccountCipher(env.config.VAULT_KEYS, env.config.VAULT_FINGERPRINT_SECRET),
  );
  const schedule = DEFAULT_CONFIGURATION.transfer_schedule;
  const payoutDay = lastPayoutDay(schedule, DEFAULT_CONFIGURATION.display_time_zone, new Date());
  // matured an hour before the payout day began: the run owes it
  const matured = new Date(payoutDay.startsAt.getTime() - 3_600_000);
  console.log(`seeding ${MERCHANTS} merchants, each with a store, a bank account and a matured sale …`);
  const seedStarted = performance.now();
  const owners: Array<{ merchantId: string; storeId: string }> = [];
  await pool(MERCHANTS, SEED_CONCURRENCY, async (i) => {
    const merchant = await env.admin.createMerchant({
      name: `Payout Merchant ${i}`,
      email: `payout-${i}-${randomUUID()}@example.test`,
    });
    const store = await env.admin.createStore({ merchantId: merchant.id, name: `Payout Store ${i}` });
    await bankAccounts.create(
      { merchantId: merchant.id, mode: 'test' },
      {
        // ends in 1: the test bank fails a payout to a number ending in 0000
        account_number: String(10_000_001 + i * 10),
        country: 'JP',
        currency: 'JPY',
        holder_name: `Payout ${i} KK`,
        bank_name: 'Mizuho Bank',
        branch_name: 'Shibuya',
        account_type: 'checking',
      },
    );
    owners.push({ merchantId: merchant.id, storeId: store.id });
  });
  for (let i = 0; i < owners.length; i += BATCH)
    await ledger.post(owners.slice(i, i + BATCH).map((owner) => sale(owner, matured)));
  let released = 0;
  for (let n = await ledger.release(BATCH); n > 0; n = await ledger.release(BATCH)) released += n;
  console.log(
    `seeded in ${fmt((performance.now() - seedStarted) / 1000, 1)} s (${released} holdings released); ` +
      `payout day ${payoutDay.day}\n`,
  );

  const procs: Proc[] = [];
  try {
    const variables: Record<string, string> = { ...env.variables, PAYOUT_INTERVAL_MS: '1000' };
    delete variables.DB_POOL_SIZE;
    const simulator = await startSimulator(variables, 2);
    procs.push(simulator.proc);
    const port = await freePort();
    const gatewayUrl = `http://127.0.0.1:${port}`;
    const routes = { PROCESSOR_TEST_URL: simulator.url, PROCESSOR_CALLBACK_BASE_URL: gatewayUrl };
    const gateway = Proc.start('gateway', ['dist/apps/gateway/src/main.js'], {
      ...variables,
      ...routes,
      PORT: String(port),
    });
    procs.push(gateway);
    await gateway.waitHttp(`${gatewayUrl}/heartbeat`);

    const before = await cpuSnapshot(procs, redis, db);
    const started = performance.now();
    for (let i = 0; i < REPLICAS; i++)
      procs.push(
        await startWorker(`ledger-service${REPLICAS > 1 ? ` ${i + 1}` : ''}`, 'ledger-service', {
          ...variables,
          ...routes,
        }),
      );
    const count = (status?: string) =>
      scalar(
        db,
        `SELECT count(*) AS n FROM transfers WHERE payout_day = $1::date${status ? ' AND status = $2' : ''}`,
        status ? [payoutDay.day, status] : [payoutDay.day],
      );
    await waitUntil('a transfer for every merchant', async () => (await count()) >= MERCHANTS, 1_800_000);
    const createdSeconds = (performance.now() - started) / 1000;
    const settled = async () => (await count('paid')) + (await count('failed'));
    await waitUntil('every transfer paid or failed', async () => (await settled()) >= MERCHANTS, 1_800_000);
    const paidSeconds = (performance.now() - started) / 1000;
    const after = await cpuSnapshot(procs, redis, db);

    const { rows } = await db.query<{
      transfers: string;
      merchants: string;
      wrong: string;
      runs: string;
      paid: string;
    }>(
      `SELECT count(*) AS transfers, count(DISTINCT merchant_id) AS merchants,
              count(*) FILTER (WHERE status = 'paid') AS paid,
              count(*) FILTER (WHERE amount <> $2) AS wrong,
              (SELECT count(*) FROM payout_runs WHERE payout_day = $1::date) AS runs
         FROM transfers WHERE payout_day = $1::date`,
      [payoutDay.day, String(GROSS - FEE)],
    );
    const check = rows[0];
    const verification = await ledger.verify();
    const broken =
      verification.unbalancedTransactions +
      verification.emptyTransactions +
      verification.unbalancedBooks +
      verification.wrongBalances +
      verification.wrongMaturities;
    const exactlyOnce =
      Number(check.transfers) === MERCHANTS &&
      Number(check.merchants) === MERCHANTS &&
      Number(check.wrong) === 0 &&
      Number(check.paid) === MERCHANTS &&
      Number(check.runs) === MERCHANTS &&
      broken === 0;
    console.log(
      `\npayout run for ${MERCHANTS} merchants, ${REPLICAS} ledger-service replicas: every transfer created ` +
        `${fmt(createdSeconds, 1)} s after they started (${fmt(MERCHANTS / createdSeconds)} transfers/s, ` +
        `their start included), every one paid by the bank after ${fmt(paidSeconds, 1)} s ` +
        `(${fmt(MERCHANTS / paidSeconds)}/s)`,
    );
    console.log(
      `exactly once: ${check.transfers} transfers for ${check.merchants} merchants (${check.paid} paid), ` +
        `${check.wrong} of a wrong ` +
        `amount, ${check.runs} payout runs; ledger:verify ${broken} broken — ${exactlyOnce ? 'held' : 'DID NOT HOLD'}\n`,
    );
    console.log(cpuTable(before, after, MERCHANTS, 'payout'));
    recordSummary({
      bench: 'ledger',
      path: `payout run, ${MERCHANTS.toLocaleString('en-US')} merchants`,
      perSecond: MERCHANTS / paidSeconds,
      pass: exactlyOnce,
      notes: `created in ${fmt(createdSeconds, 1)} s, paid in ${fmt(paidSeconds, 1)} s`,
    });
    return exactlyOnce;
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
  }
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const redis = createRedisClient(env.config);
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  try {
    console.log(`scratch database ${env.database.name}`);
    // the payout run first: its 10,000 stores' accounts are the table the balance read is planned on
    const payoutsOk = await payoutRun(env, db, redis);
    const balanceOk = await balanceAtVolume(env, db, redis);
    return balanceOk && payoutsOk ? 0 : 1;
  } finally {
    await db.end();
    await redis.quit();
    await env.close();
  }
}

runBench(main);
