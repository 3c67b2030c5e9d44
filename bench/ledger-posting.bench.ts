/**
 * What the ledger poster costs per sale (issue 31: charges with the ledger posting at ≥ 90 % of
 * charges without it), measured as CPU rather than as a rate, so that a busy machine still gives a
 * comparable figure. On a scratch database: BENCH_POSTING_STORES (40) stores, then
 * BENCH_POSTING_ROUNDS (3) rounds of BENCH_POSTING_CHARGES (6,000) charges left as the charge path
 * leaves them (inserted pending, then made successful with their charge_finished event, 20 per
 * database transaction: the final update is not HOT, as the charge path's is not), each round posted
 * by ledger-service's own poster (LedgerPoster.postOnce, its metrics and logging included, batches of
 * LEDGER_POST_BATCH) until nothing is left. Per round: the Postgres backends' CPU per posting (from
 * /proc), this process's CPU per posting (the poster's share of ledger-service), the cluster's WAL
 * per posting (other databases' writes included: only a quiet server gives the poster's own), and
 * the charges table's updates and HOT updates so far.
 *
 *   npm run bench:ledger-posting
 *
 * Settings (environment): BENCH_POSTING_STORES, BENCH_POSTING_CHARGES, BENCH_POSTING_ROUNDS,
 * LEDGER_POST_BATCH (500), TEST_DATABASE_URL (its server hosts the scratch database).
 */
import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { LedgerRepository, OUTBOX_CURSOR } from '@kessai/db';
import { createLogger } from '@kessai/observability';
import { TestEnvironment, insertCardToken } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { LedgerMetrics } from '../apps/ledger-service/src/ledger-metrics';
import { LedgerPoster } from '../apps/ledger-service/src/ledger-poster';
import { fmt, num, runBench, useScratchDatabase } from './settings';

const STORES = num('BENCH_POSTING_STORES', 40);
const CHARGES = num('BENCH_POSTING_CHARGES', 6_000);
const ROUNDS = num('BENCH_POSTING_ROUNDS', 3);
const PER_TRANSACTION = 20;

useScratchDatabase();

/** A process's CPU time so far, in ms (user + system, /proc/<pid>/stat at 100 ticks a second). */
async function cpuMs(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function main(): Promise<number> {
  await globalSetup();
  const env = await TestEnvironment.create({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    ...(process.env.LEDGER_POST_BATCH ? { LEDGER_POST_BATCH: process.env.LEDGER_POST_BATCH } : {}),
  });
  const batch = env.config.LEDGER_POST_BATCH;
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  try {
    console.log(`scratch database ${env.database.name}`);
    const scopes: { merchantId: string; storeId: string; token: string }[] = [];
    for (let i = 0; i < STORES; i++) {
      const { merchant, store } = await env.seedMerchant(`posting-${i}`);
      const scope = { merchantId: merchant.id, storeId: store.id };
      scopes.push({ ...scope, token: await insertCardToken(env, scope, { cardNumber: '4000056655665556' }) });
    }
    const ledger = new LedgerRepository(env.prisma);
    // ledger-service's own poster, run batch after batch (its metrics on a registry of their own,
    // its log at production's level)
    const poster = new LedgerPoster(
      ledger,
      new LedgerMetrics(new Registry()),
      createLogger({ service: 'ledger-posting-bench', level: 'info' }),
      env.config,
    );
    const backends = async () =>
      (
        await db.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
      ).rows.map((row) => row.pid);
    const postgresCpu = async (pids: number[]) =>
      (await Promise.all(pids.map((pid) => cpuMs(pid).catch(() => 0)))).reduce((a, b) => a + b, 0);

    console.log(
      `\n${STORES} stores; ${ROUNDS} rounds of ${CHARGES} successful charges, posted in batches of ${batch}\n`,
    );
    console.log(
      '| round | postings | runs | Postgres ms per posting | poster (node) ms per posting | WAL bytes per posting (cluster) | charges: updates / HOT |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (let round = 1; round <= ROUNDS; round++) {
      for (let done = 0; done < CHARGES; done += PER_TRANSACTION) {
        const stores = Array.from({ length: PER_TRANSACTION }, (_, i) => scopes[(done + i) % STORES]);
        await db.query(
          `WITH c AS (
             INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                                  status, requested_amount, requested_currency, metadata)
             SELECT (s->>'merchantId')::uuid, (s->>'storeId')::uuid, (s->>'token')::uuid, 'one_time', 'test',
                    'pending', 1000, 'JPY', '{}'
               FROM jsonb_array_elements($1::jsonb) s
             RETURNING id, merchant_id, store_id)
           INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type)
           SELECT merchant_id, store_id, 'charge', id, 'charge_created' FROM c`,
          [JSON.stringify(stores)],
        );
      }
      for (let done = 0; done < CHARGES; done += PER_TRANSACTION) {
        await db.query(
          `WITH c AS (
             UPDATE charges SET status = 'successful', charged_amount = 1000, charged_currency = 'JPY',
                    fee_amount = 0, processor_reference = 'bench-' || id, updated_on = now()
              WHERE id IN (SELECT id FROM charges WHERE status = 'pending' ORDER BY created_on, id
                            LIMIT ${PER_TRANSACTION})
             RETURNING id, merchant_id, store_id)
           INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type)
           SELECT merchant_id, store_id, 'charge', id, 'charge_finished' FROM c`,
        );
      }
      await ledger.withCursor(OUTBOX_CURSOR, () => Promise.resolve(0)); // the pool's connection, before measuring
      const pids = await backends();
      const postgresBefore = await postgresCpu(pids);
      const nodeBefore = process.cpuUsage();
      const { rows: wal } = await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      let posted = 0;
      let runs = 0;
      for (;;) {
        runs++;
        // every event here is a charge_finished: the events read are the sales posted
        const read = await poster.postOnce();
        if (!read) break;
        posted += read;
      }
      const node = process.cpuUsage(nodeBefore);
      const postgres = (await postgresCpu([...new Set([...pids, ...(await backends())])])) - postgresBefore;
      const {
        rows: [after],
      } = await db.query<{ wal: string; updates: string; hot: string }>(
        `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text AS wal, n_tup_upd::text AS updates,
                n_tup_hot_upd::text AS hot
           FROM pg_stat_user_tables WHERE relname = 'charges'`,
        [wal[0].lsn],
      );
      console.log(
        `| ${round} | ${posted} | ${runs} | ${fmt(postgres / Math.max(posted, 1), 3)} | ${fmt(
          (node.user + node.system) / 1000 / Math.max(posted, 1),
          3,
        )} | ${fmt(Number(after.wal) / Math.max(posted, 1))} | ${after.updates} / ${after.hot} |`,
      );
    }
    const unposted = Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM charges c WHERE c.status = 'successful' AND NOT EXISTS (
             SELECT 1 FROM ledger_transactions t
              WHERE t.kind = 'sale' AND t.source_type = 'charge' AND t.source_id = c.id)`,
        )
      ).rows[0].n,
    );
    const broken = await ledger.verify();
    const brokenCount =
      broken.unbalancedTransactions +
      broken.emptyTransactions +
      broken.unbalancedBooks +
      broken.wrongBalances +
      broken.wrongMaturities;
    console.log(`\nunposted successful charges: ${unposted}; ledger:verify broken: ${brokenCount}`);
    return unposted === 0 && brokenCount === 0 ? 0 : 1;
  } finally {
    await db.end();
    await env.close();
  }
}

runBench(main);
