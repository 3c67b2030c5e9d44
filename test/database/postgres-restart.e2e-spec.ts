import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { eventually, startOwnPostgres, type OwnPostgres } from '@kessai/testing';

/**
 * A Postgres restart while connections are checked out of the pool (issue 28, item 1): before, a
 * client held by `inTransaction` or `write` had no 'error' listener, so the server's termination
 * notice (57P01) crashed the process (charge-, subscription- and webhook-service exited 1). Now the
 * work in flight fails with the error, the broken clients are discarded, and the pool reconnects.
 *
 * The database is a cluster of the test's own (initdb), so restarting it disturbs no other suite.
 * The pool runs in a child process, as the services do: an unhandled 'error' event would end it.
 */
const ROOT = path.resolve(__dirname, '../..');

// The child: holds one transaction idle (no statement in flight) and one `write` in flight
// (pg_sleep) while the parent restarts Postgres, reports how each ended, then runs a statement on
// the pool again. It writes one line per step; the parent drives it through stdin.
const CHILD = `
const { PrismaService } = require('@kessai/db');
const db = new PrismaService({ DATABASE_URL: process.env.DATABASE_URL, DB_POOL_SIZE: 4 });
const say = (line) => process.stdout.write(line + '\\n');
const next = () => new Promise((resolve) => process.stdin.once('data', resolve));
const sleeper = {
  name: 'restart_probe_sleep', text: 'SELECT pg_sleep(60) AS slept', replan: false, params: {}, columns: {},
  encode: () => [], decode: (rows) => rows,
};
const one = {
  name: 'restart_probe_one', text: 'SELECT 1 AS one', replan: false, params: {}, columns: {},
  encode: () => [], decode: (rows) => rows,
};
(async () => {
  let resume;
  const resumed = new Promise((resolve) => (resume = resolve));
  const idle = db
    .inTransaction(async (client) => {
      await client.query('SELECT 1');
      say('holding');
      await resumed;
      await client.query('SELECT 1');
    })
    .then(() => 'idle transaction: committed', (error) => 'idle transaction: failed (' + error.constructor.name + ')');
  const inFlight = db
    .write('restart probe', sleeper, {})
    .then(() => 'write: completed', (error) => 'write: failed (' + error.constructor.name + ')');
  await next(); // the parent has restarted Postgres
  resume();
  say(await idle);
  say(await inFlight);
  for (;;) {
    try {
      const rows = await db.run(one, {});
      say('recovered ' + rows[0].one);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await db.pool.end();
  process.exit(0);
})();
`;

describe('a Postgres restart under checked-out connections (issue 28)', () => {
  let postgres: OwnPostgres;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
  }, 120_000);

  afterAll(async () => {
    await postgres?.destroy();
  });

  it('fails the work in flight, keeps the process alive and reconnects', async () => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', '-e', CHILD],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          DATABASE_URL: postgres.url,
          TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'),
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const waiters: Array<() => void> = [];
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const wake of waiters.splice(0)) wake();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const untilOutput = async (text: string) => {
      while (!output.includes(text)) {
        if (child.exitCode !== null) throw new Error(`child exited (${child.exitCode}):\n${output}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          child.once('exit', () => resolve());
        });
      }
    };
    try {
      await untilOutput('holding');
      // the write's pg_sleep is in flight once its backend is active in it
      const admin = new Client({ connectionString: postgres.url });
      await admin.connect();
      try {
        await eventually(
          async () => {
            const { rows } = await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%' AND state = 'active'",
            );
            return rows[0].n === 1;
          },
          { timeoutMs: 30_000, what: 'the write in flight' },
        );
      } finally {
        await admin.end();
      }

      await postgres.restart();
      child.stdin.write('go\n');

      await untilOutput('recovered');
      expect(await exited).toBe(0);
      expect(output).toContain('idle transaction: failed');
      // Postgres answered the statement in flight with its termination (57P01): a DatabaseError
      expect(output).toContain('write: failed (DatabaseError)');
      expect(output).toContain('recovered 1');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 120_000);
});
