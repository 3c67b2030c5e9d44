import { execFile } from 'node:child_process';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { eventually } from './eventually';

const ROOT = path.resolve(__dirname, '../../..');

export function testServerUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/kessai_test';
}

/**
 * The template every suite's database is copied from: named after TEST_DATABASE_URL's database, so
 * that two test runs with different URLs never share one, and after the migrations it holds, so
 * that two runs at once on one server (two checkouts, a branch with a migration more) never drop or
 * copy each other's: runs of the same migrations share it (test/global-setup.ts builds it once).
 */
export function templateDatabase(): string {
  return `${templatePrefix()}${migrationsDigest()}`;
}

/** What every template's name starts with on TEST_DATABASE_URL's server. */
export function templatePrefix(): string {
  return `${new URL(testServerUrl()).pathname.slice(1) || 'kessai_test'}_template_`;
}

let digest: string | undefined;

/** 12 hex digits of SHA-256 over prisma/migrations: each folder's name and its migration.sql. */
function migrationsDigest(): string {
  if (digest === undefined) {
    const dir = path.join(ROOT, 'prisma', 'migrations');
    const hash = createHash('sha256');
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (!entry.isDirectory()) continue;
      hash.update(`${entry.name}\0`);
      hash.update(readFileSync(path.join(dir, entry.name, 'migration.sql')));
    }
    digest = hash.digest('hex').slice(0, 12);
  }
  return digest;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one suite, copied from the template that global setup built. */
export function createTestDatabase(): Promise<TestDatabase> {
  return newDatabase(testServerUrl(), templateDatabase());
}

/** A new database on `serverUrl` (a copy of `template`, or empty), which `drop` removes. */
async function newDatabase(serverUrl: string, template?: string): Promise<TestDatabase> {
  const name = `kessai_t_${randomBytes(6).toString('hex')}`;
  const adminUrl = withDatabase(serverUrl, 'postgres');
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(serverUrl, name),
    async drop() {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * How long `whileHolding` waits for what it started to reach the held lock: what started may first
 * have to authenticate, take a slot and a pooled connection, which on a busy 2-core machine took
 * longer than `eventually`'s default 4 s. Awaiting a state, so a generous bound costs nothing when
 * the state comes.
 */
const BLOCKED_WAIT_MS = 30_000;
/** How long a failed `whileHolding` lets what it started finish before it reports the failure. */
const SETTLE_BOUND_MS = 15_000;

/**
 * Resolves once another backend waits for a lock that `holder` holds (pg_blocking_pids), not merely
 * once any backend waits for some lock. When none comes, the failure lists what the database's other
 * backends were doing, so that a wait that never came says where they were instead.
 *
 * `holder` is inside its transaction, and Postgres keeps one snapshot of pg_stat_activity per
 * transaction (stats_fetch_consistency): a backend that connected after the first look would never
 * be seen. On a busy machine, that is what the waiting requests' new pooled connections did, so
 * each look clears the snapshot first.
 */
async function blockedBy(holder: Pick<Client, 'query'>, what: string): Promise<void> {
  const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  try {
    await eventually(
      async () => {
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const blocked = await holder.query<{ waiting: number }>(
          'SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))',
          [rows[0].pid],
        );
        return blocked.rows[0].waiting > 0 ? true : null;
      },
      { what, timeoutMs: BLOCKED_WAIT_MS },
    );
  } catch (error) {
    await holder.query('SELECT pg_stat_clear_snapshot()');
    const activity = await holder.query<{ state: string | null; wait: string | null; query: string }>(
      `SELECT state, wait_event_type || ':' || wait_event AS wait, left(query, 80) AS query
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1`,
      [rows[0].pid],
    );
    const lines = activity.rows.map((row) => `  ${row.state ?? '?'} ${row.wait ?? '-'} ${row.query}`);
    throw new Error(`${(error as Error).message}; the database's other backends:\n${lines.join('\n')}`);
  }
}

/** What `whileHolding` holds: one statement run in a transaction of its own, left open. */
export interface HeldLock {
  sql: string;
  params: unknown[];
}

/**
 * Starts `start` while another connection holds a lock (`hold`, in a transaction it leaves open);
 * once what started waits for that connection (blockedBy, up to 30 s), `during` runs — with a probe connection
 * of its own, and the holder's, to go on as the holder — then the holder commits. What `start`
 * answered. Both connections are closed whatever happens (closing rolls an open transaction back).
 */
export async function whileHolding<T>(
  url: string,
  hold: HeldLock,
  start: () => Promise<T>,
  what: string,
  during: (probe: Client, holder: Client) => Promise<void> = () => Promise.resolve(),
): Promise<T> {
  const holder = new Client({ connectionString: url });
  const probe = new Client({ connectionString: url });
  await holder.connect();
  await probe.connect();
  let answer: Promise<T> | undefined;
  try {
    await holder.query('BEGIN');
    await holder.query(hold.sql, hold.params);
    answer = start();
    await blockedBy(holder, what);
    await during(probe, holder);
    await holder.query('COMMIT');
    return await answer;
  } finally {
    await holder.end();
    await probe.end();
    // on a failure, what started still runs: let it finish now that the lock is free, so that it
    // does not outlive the test (the suite's teardown would wait for its requests); bounded, so
    // that work which never ends cannot hide the failure behind jest's timeout
    if (answer) {
      await Promise.race([answer.catch(() => undefined), sleep(SETTLE_BOUND_MS, undefined, { ref: false })]);
    }
  }
}

/**
 * A new database on `serverUrl` (another server than TEST_DATABASE_URL's, e.g. a cluster of the
 * test's own: startOwnPostgres) with the real migrations applied (`prisma migrate deploy`).
 */
export async function createMigratedDatabase(serverUrl: string): Promise<TestDatabase> {
  const database = await newDatabase(serverUrl);
  await new Promise<void>((resolve, reject) => {
    // prisma's own entry point under this Node.js: npx costs a second or more per call
    execFile(
      process.execPath,
      [path.join(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: database.url } },
      (error, _out, stderr) =>
        error ? reject(new Error(`prisma migrate deploy failed: ${stderr}`)) : resolve(),
    );
  });
  return database;
}
