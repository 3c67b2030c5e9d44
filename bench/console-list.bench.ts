/**
 * The console's payments list and its CSV export on BENCH_CONSOLE_CHARGES (1,000,000) charges of one
 * merchant (issue 33): the console process of the compiled build, signed in over HTTP as the
 * merchant's viewer, the same sessions, guard and use case as a support person's browser.
 *
 * Seeding: one store, BENCH_CONSOLE_EMAILS (1,000) card tokens, each with its own customer email,
 * then the charges copied in by one INSERT … SELECT (a seed, not the path under test): spread over
 * the past year, nine in ten successful, the rest failed, amounts 100–10,099 JPY, every hundredth
 * with metadata `{"order": "…"}`.
 *
 * Measured: each filter's first page BENCH_CONSOLE_PAGES (50) times, one request at a time (p50,
 * p95, max); then the CSV export of a filter matching about 900,000 rows, streamed and counted
 * (rows per second) while the console's resident memory is sampled every 20 ms (peak RSS, and the
 * kernel's high-water mark VmHWM before and after). The export's rows are checked against the
 * database's count of the same filter.
 *
 *   npm run bench:console
 *
 * Settings (environment): BENCH_CONSOLE_CHARGES, BENCH_CONSOLE_EMAILS, BENCH_CONSOLE_PAGES,
 * TEST_DATABASE_URL (its server hosts the scratch database).
 */
import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { Client } from 'pg';
import { insertCardToken, insertPendingCharge, TestEnvironment } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { freePort, Proc } from './bench-processes';
import { scalar } from './db-helpers';
import { recordSummary } from './summary';
import { fmt, num, runBench, useScratchDatabase } from './settings';

const CHARGES = num('BENCH_CONSOLE_CHARGES', 1_000_000);
const EMAILS = num('BENCH_CONSOLE_EMAILS', 1_000);
const PAGES = num('BENCH_CONSOLE_PAGES', 50);
const PASSWORD = 'bench-console-password-1';

useScratchDatabase();

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function memoryOf(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
}

const mib = (bytes: number) => `${fmt(bytes / 1_048_576, 1)} MiB`;

/** Signs in as a browser does (the sign-in form's CSRF cookie and field): the session cookie. */
async function signIn(base: string, email: string): Promise<string> {
  const form = await fetch(`${base}/sign-in`);
  const cookies = form.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1];
  if (!csrf) throw new Error('the sign-in form has no CSRF field');
  const answer = await fetch(`${base}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString(),
  });
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}: ${await answer.text()}`);
  return answer.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .filter((cookie) => !cookie.endsWith('='))
    .join('; ');
}

async function seed(env: TestEnvironment, db: Client): Promise<{ merchantId: string; email: string }> {
  const seeded = await env.seedMerchant('console-bench');
  const email = `viewer-${Date.now()}@example.test`;
  await env.admin.createUser({ merchantId: seeded.merchant.id, email, password: PASSWORD, role: 'viewer' });
  const token = await insertCardToken(env, seeded, { cardNumber: '4000056655665556' });
  const charge = await insertPendingCharge(env, seeded, token, { amount: 1000, requested: false });
  const columns = async (table: string) =>
    (
      await db.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1 AND column_name <> 'id'`,
        [table],
      )
    ).rows.map((column) => `"${column.name}"`);
  const started = performance.now();
  const tokenColumns = (await columns('transaction_tokens')).filter((c) => c !== '"email"');
  await db.query(
    `INSERT INTO transaction_tokens (id, email, ${tokenColumns.join(', ')})
     SELECT gen_random_uuid(), 'buyer-' || n || '@example.test', ${tokenColumns.join(', ')}
       FROM transaction_tokens, generate_series(1, $2::int) AS n WHERE id = $1`,
    [token, EMAILS],
  );
  const varied = ['"transaction_token_id"', '"status"', '"requested_amount"', '"created_on"', '"metadata"'];
  const chargeColumns = (await columns('charges')).filter((c) => !varied.includes(c));
  await db.query(
    `WITH tokens AS (
       SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM transaction_tokens
        WHERE store_id = $2 AND email LIKE 'buyer-%'
     )
     INSERT INTO charges (id, transaction_token_id, status, requested_amount, created_on, metadata, ${chargeColumns.join(', ')})
     SELECT gen_random_uuid(), t.id,
            (CASE WHEN n % 10 = 0 THEN 'failed' ELSE 'successful' END)::charge_status,
            100 + (n::bigint * 7919) % 10000, -- not correlated with the instant
            now() - make_interval(secs => n * (31536000.0 / $3)),
            CASE WHEN n % 100 = 0 THEN jsonb_build_object('order', 'order-' || n) ELSE '{}'::jsonb END,
            ${chargeColumns.map((c) => `c.${c}`).join(', ')}
       FROM charges c, generate_series(1, $3::int) AS n
       JOIN tokens t ON t.k = n % $4
      WHERE c.id = $1`,
    [charge, seeded.store.id, CHARGES, EMAILS],
  );
  await db.query('ANALYZE charges; ANALYZE transaction_tokens');
  console.log(
    `seeded ${CHARGES} charges on ${EMAILS} tokens in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  return { merchantId: seeded.merchant.id, email };
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const db = new Client({ connectionString: env.database.url });
  await db.connect();
  let proc: Proc | undefined;
  try {
    console.log(`scratch database ${env.database.name}`);
    const { merchantId, email } = await seed(env, db);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const variables: Record<string, string> = { ...env.variables, CONSOLE_PORT: String(port) };
    delete variables.DB_POOL_SIZE;
    proc = Proc.start('console', ['dist/apps/console/src/main.js'], variables);
    await proc.waitHttp(`${base}/health`);
    const cookie = await signIn(base, email);
    const get = (path: string) => fetch(`${base}${path}`, { headers: { cookie }, redirect: 'manual' });

    const year = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
    const month = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const filters: Array<[string, string]> = [
      ['no filter', ''],
      ['status failed', 'status=failed'],
      ['email (one customer of 1,000)', 'email=buyer-7@example.test'],
      ['last 30 days, 5,000–6,000 JPY', `from=${month}&amount_from=5000&amount_to=6000`],
      ['metadata order', `metadata_key=order&metadata_value=order-500000`],
      ['card last four, failed, since a year', `last_four=5556&status=failed&from=${year}`],
    ];
    console.log(`\n${PAGES} first pages of each filter, one at a time:\n`);
    console.log('| filter | p50 ms | p95 ms | max ms | rows on the page |');
    console.log('|---|---|---|---|---|');
    let worstP95 = 0;
    for (const [name, query] of filters) {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < PAGES; i++) {
        const t = performance.now();
        const answer = await get(`/payments${query ? `?${query}` : ''}`);
        const body = await answer.text();
        times.push(performance.now() - t);
        if (answer.status !== 200) throw new Error(`/payments?${query} answered ${answer.status}`);
        rows = (body.match(/href="\/payments\/[0-9a-f-]{36}"/g) ?? []).length;
      }
      times.sort((a, b) => a - b);
      worstP95 = Math.max(worstP95, percentile(times, 95));
      console.log(
        `| ${name} | ${fmt(percentile(times, 50), 1)} | ${fmt(percentile(times, 95), 1)} | ${fmt(times[times.length - 1], 1)} | ${rows} |`,
      );
    }

    // the export: the successful charges, about nine in ten
    const expected = await scalar(
      db,
      `SELECT count(*) AS n FROM charges WHERE merchant_id = $1 AND status = 'successful' AND mode = 'test'`,
      [merchantId],
    );
    const before = await memoryOf(proc.pid);
    let peak = before.rss;
    const sampler = setInterval(() => {
      void memoryOf(proc!.pid).then(
        (memory) => (peak = Math.max(peak, memory.rss)),
        () => undefined,
      );
    }, 20);
    const started = performance.now();
    const answer = await get('/payments/export.csv?status=successful');
    if (answer.status !== 200 || !answer.body) throw new Error(`the export answered ${answer.status}`);
    let lines = 0;
    let bytes = 0;
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const after = await memoryOf(proc.pid);
    const rows = lines - 1; // the header
    console.log(
      `\nCSV export of the successful charges: ${rows} rows (the database counts ${expected}), ${mib(bytes)} ` +
        `in ${fmt(seconds, 1)} s: ${fmt(rows / seconds)} rows/s`,
    );
    console.log(
      `console memory: RSS ${mib(before.rss)} before, peak ${mib(Math.max(peak, after.rss))} during the export ` +
        `(sampled every 20 ms), ${mib(after.rss)} after; VmHWM ${mib(before.hwm)} before, ${mib(after.hwm)} after\n`,
    );
    const complete = rows === expected;
    recordSummary(
      {
        bench: 'console',
        path: `payments list, first page on ${CHARGES.toLocaleString('en-US')} charges (worst filter's p95)`,
        perSecond: 1000 / worstP95,
        pass: true,
        notes: `p95 ${fmt(worstP95, 1)} ms`,
      },
      {
        bench: 'console',
        path: `CSV export, ${rows.toLocaleString('en-US')} rows`,
        perSecond: rows / seconds,
        pass: complete,
        notes: `peak RSS ${mib(Math.max(peak, after.rss))} (${mib(before.rss)} before)`,
      },
    );
    return complete ? 0 : 1;
  } finally {
    await proc?.stop();
    await db.end();
    await env.close();
  }
}

runBench(main);
