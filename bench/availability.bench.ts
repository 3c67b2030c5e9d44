/**
 * One tenant cannot slow another down (issue 27): a victim merchant's p95 latency through a gateway
 * process, alone (control) and during each flood another client sends, measured in one run, with
 * control and flood alternated so that the machine's drift falls on both alike:
 *
 *   unauthenticated deep bodies   1 MiB of nested JSON to POST /charges, no credential
 *   callbacks flood               1 MiB bodies to POST /processor/callbacks, a forged signature
 *   public-token drain            a merchant's public (secret-less) token from a forged Origin
 *   same-store PATCH convoy       another merchant's PATCHes of one store whose row is held locked
 *
 * Each flood passes when the victim's p95 stays within 2x its control and the flooding client got
 * no 500 (4xx and 503 are its expected answers; a reset connection is a refusal too).
 *
 *   npm run bench:availability      (BENCH_SECONDS=8 per window, BENCH_FLOOD_CONCURRENCY=8)
 */
import 'reflect-metadata';
import http from 'node:http';
import { Client } from 'pg';
import { TestEnvironment, startGatewayProcess, type SeededMerchant } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { percentile } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const FLOOD_CONCURRENCY = Number(process.env.BENCH_FLOOD_CONCURRENCY ?? 8);
const VICTIM_CONCURRENCY = 4;
const MIB = 1024 * 1024;

interface Request {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

interface Window {
  latencies: number[];
  statuses: Record<string, number>;
}

/** A closed loop of `concurrency` keep-alive connections sending `next()` until `until` resolves. */
async function loop(
  base: string,
  concurrency: number,
  next: () => Request,
  until: Promise<void>,
): Promise<Window> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const window: Window = { latencies: [], statuses: {} };
  let done = false;
  void until.then(() => (done = true));
  const one = (request: Request) =>
    new Promise<void>((resolve) => {
      const t0 = process.hrtime.bigint();
      const count = (status: string) => {
        window.statuses[status] = (window.statuses[status] ?? 0) + 1;
        window.latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        resolve();
      };
      const headers = {
        ...request.headers,
        ...(request.body ? { 'content-length': String(request.body.length) } : {}),
      };
      let counted = false;
      const once = (status: string) => {
        if (counted) return;
        counted = true;
        count(status);
      };
      // a flood's body goes on a connection of its own: the gateway may answer before reading it
      const options = request.body
        ? { agent: false as const, headers: { ...headers, connection: 'close' } }
        : { agent, headers };
      const req = http.request(`${base}${request.path}`, { ...options, method: request.method }, (res) => {
        res.resume();
        res.on('end', () => once(String(res.statusCode)));
        res.on('error', () => once('reset'));
      });
      req.setTimeout(15_000, () => {
        once('timeout');
        req.destroy();
      });
      req.on('error', () => once('reset'));
      req.end(request.body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!done) await one(next());
    }),
  );
  agent.destroy();
  window.latencies.sort((a, b) => a - b);
  return window;
}

const seconds = (s: number) => new Promise<void>((resolve) => setTimeout(resolve, s * 1000));

function deepJson(bytes: number): Buffer {
  const depth = Math.floor(bytes / 2);
  return Buffer.from('['.repeat(depth) + ']'.repeat(depth));
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create({ DB_POOL_SIZE: '10', LOG_LEVEL: 'warn' });
  const { app, url } = await startGatewayProcess({
    ...env.variables,
    // the victim's own pace must not meet its own limits; floods are then limited by nothing but
    // the defences under test
    RATE_LIMIT_ROUTE_BURST: '1000000',
    RATE_LIMIT_ROUTE_PER_MINUTE: '100000000',
    RATE_LIMIT_EXACT_BURST: '1000000',
    RATE_LIMIT_EXACT_PER_MINUTE: '100000000',
    RATE_LIMIT_EXACT_REFILL_PER_MS: '1000',
  });
  const holder = new Client({ connectionString: env.database.url });
  await holder.connect();
  try {
    const victim: SeededMerchant = await env.seedMerchant('victim');
    const attacker: SeededMerchant = await env.seedMerchant('attacker', { domains: ['shop.attacker.test'] });
    const attackerMerchant = await env.merchantToken(attacker);
    const victimAuth = `Bearer ${victim.storeToken.secret}.${victim.storeToken.jwt}`;
    const victimRead: Request = {
      method: 'GET',
      path: `/stores/${victim.store.id}`,
      headers: { authorization: victimAuth },
    };
    const deep = deepJson(MIB);
    const junk = Buffer.from(JSON.stringify({ padding: 'x'.repeat(MIB - 64) }));

    const floods: Array<{
      name: string;
      request: () => Request;
      before?: () => Promise<void>;
      after?: () => Promise<void>;
    }> = [
      {
        name: 'unauthenticated deep bodies',
        request: () => ({
          method: 'POST',
          path: '/charges',
          headers: { 'content-type': 'application/json' },
          body: deep,
        }),
      },
      {
        name: 'callbacks flood',
        request: () => ({
          method: 'POST',
          path: '/processor/callbacks',
          headers: {
            'content-type': 'application/json',
            'x-processor-signature': 't=1,v1=' + '0'.repeat(64),
          },
          body: junk,
        }),
      },
      {
        name: 'public-token drain',
        request: () => ({
          method: 'GET',
          path: '/me',
          headers: { authorization: `Bearer ${attacker.storeToken.jwt}`, origin: 'https://forged.example' },
        }),
      },
      {
        name: 'same-store PATCH convoy',
        before: async () => {
          await holder.query('BEGIN');
          await holder.query('SELECT id FROM stores WHERE id = $1 FOR UPDATE', [attacker.store.id]);
        },
        after: async () => {
          await holder.query('ROLLBACK');
        },
        request: () => ({
          method: 'PATCH',
          path: `/stores/${attacker.store.id}`,
          headers: {
            authorization: `Bearer ${attackerMerchant.secret}.${attackerMerchant.jwt}`,
            'content-type': 'application/json',
          },
          body: Buffer.from(JSON.stringify({ name: 'Convoy' })),
        }),
      },
    ];

    // warm-up: JIT, pools, caches
    await loop(url, VICTIM_CONCURRENCY, () => victimRead, seconds(2));
    const rows: string[] = [];
    let failed = false;
    for (const flood of floods) {
      const control = await loop(url, VICTIM_CONCURRENCY, () => victimRead, seconds(SECONDS));
      await flood.before?.();
      const stop = seconds(SECONDS);
      const [during, flooding] = await Promise.all([
        loop(url, VICTIM_CONCURRENCY, () => victimRead, stop),
        loop(url, FLOOD_CONCURRENCY, flood.request, stop),
      ]);
      await flood.after?.();
      const p95Control = percentile(control.latencies, 95);
      const p95During = percentile(during.latencies, 95);
      const ratio = p95During / p95Control;
      const victimBad = Object.keys(during.statuses).filter((s) => s !== '200');
      const flooderBad = Object.keys(flooding.statuses).filter((s) => s.startsWith('5') && s !== '503');
      const ok = ratio <= 2 && victimBad.length === 0 && flooderBad.length === 0;
      failed ||= !ok;
      const statuses = (w: Window) =>
        Object.entries(w.statuses)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ');
      rows.push(
        `| ${flood.name} | ${p95Control.toFixed(1)} | ${p95During.toFixed(1)} | ${ratio.toFixed(2)} | ${statuses(during)} | ${statuses(flooding)} | ${ok ? 'pass' : 'FAIL'} |`,
      );
    }
    console.log(
      `\nvictim: GET /stores/{id}, ${VICTIM_CONCURRENCY} connections; floods: ${FLOOD_CONCURRENCY} connections; ${SECONDS} s windows\n`,
    );
    console.log(
      '| flood | victim p95 alone (ms) | victim p95 during (ms) | ratio | victim answers | flooder answers | ≤ 2×, no 500 |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    if (failed) process.exitCode = 1;
  } finally {
    await holder.end();
    await app.stop();
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
