/**
 * What the rate limiter costs per request: Redis round trips, time of one limiter call, and the
 * latency and throughput of an authenticated GET through a gateway process with the limiter on and
 * off. Everything runs on this machine (gateway, load generator, Postgres, Redis).
 *
 *   npm run bench:limiter            (BENCH_SECONDS=10 BENCH_CONCURRENCY=16 by default)
 */
import 'reflect-metadata';
import { Redis } from 'ioredis';
import { loadConfig } from '@kessai/config';
import { RedisService } from '@kessai/redis';
import { RELAXED_RATE_LIMITS, TestEnvironment, startGatewayProcess } from '@kessai/testing';
import globalSetup from '../test/global-setup';
import { RateLimiter } from '@kessai/rate-limits';
import { planFor } from '@kessai/rate-limits';
import { pidCpuSeconds, redisCpuSeconds } from './bench-processes';
import { percentile, runLoad, type LoadResult } from './load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) calls += Number(match[2]);
  return calls;
}

async function commandsProcessed(redis: Redis): Promise<number> {
  const stats = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? NaN);
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
async function limiterCallTimings(env: TestEnvironment, calls: number) {
  const config = loadConfig({ ...env.variables, ...RELAXED_RATE_LIMITS });
  const redis = new RedisService(config);
  await redis.onModuleInit();
  const limiter = new RateLimiter(config, redis);
  const plan = planFor(limiter.settings, { method: 'GET', url: '/me', routePattern: '/me' });
  const timings: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = process.hrtime.bigint();
    await limiter.take('bench_credential', plan.buckets);
    timings.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  await redis.onModuleDestroy();
  timings.sort((a, b) => a - b);
  return { p50Ms: percentile(timings, 50), p99Ms: percentile(timings, 99) };
}

async function gatewayRun(env: TestEnvironment, enabled: boolean, auth: string, redis: Redis) {
  const { app, url } = await startGatewayProcess({
    ...env.variables,
    ...RELAXED_RATE_LIMITS,
    RATE_LIMIT_ENABLED: String(enabled),
    LOG_LEVEL: 'warn',
  });
  try {
    const target = { url: `${url}/me`, headers: { authorization: auth }, concurrency: CONCURRENCY };
    await runLoad({ ...target, durationMs: 2_000 }); // warm-up: JIT, pools, script cache
    const pid = app.child.pid!;
    const [scriptsBefore, commandsBefore] = [await scriptCalls(redis), await commandsProcessed(redis)];
    const [gatewayCpuBefore, redisCpuBefore] = [await pidCpuSeconds(pid), await redisCpuSeconds(redis)];
    const result = await runLoad({ ...target, durationMs: SECONDS * 1_000 });
    const [gatewayCpuAfter, redisCpuAfter] = [await pidCpuSeconds(pid), await redisCpuSeconds(redis)];
    const [scriptsAfter, commandsAfter] = [await scriptCalls(redis), await commandsProcessed(redis)];
    return {
      result,
      gatewayCpuMsPerRequest: ((gatewayCpuAfter - gatewayCpuBefore) * 1000) / result.requests,
      redisCpuMsPerRequest: ((redisCpuAfter - redisCpuBefore) * 1000) / result.requests,
      scriptCallsPerRequest: (scriptsAfter - scriptsBefore) / result.requests,
      // minus the 2 INFO calls of the measurement itself
      redisCommandsPerRequest: (commandsAfter - commandsBefore - 2) / result.requests,
    };
  } finally {
    await app.stop();
  }
}

function row(name: string, r: LoadResult, extra: string) {
  const statuses = Object.entries(r.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return `| ${name} | ${r.perSecond.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${statuses} | ${extra} |`;
}

async function main() {
  await globalSetup();
  const env = await TestEnvironment.create();
  const redis = new Redis(env.config.REDIS_URL);
  try {
    const shop = await env.seedMerchant('bench');
    const auth = `Bearer ${shop.storeToken.secret}.${shop.storeToken.jwt}`;

    const direct = await limiterCallTimings(env, 5_000);
    // alternate on/off twice and keep the second pair: the first warms Postgres and the page cache
    await gatewayRun(env, true, auth, redis);
    await gatewayRun(env, false, auth, redis);
    const on = await gatewayRun(env, true, auth, redis);
    const off = await gatewayRun(env, false, auth, redis);

    console.log(
      `\nGET /me (app-token auth: one indexed Postgres read), ${CONCURRENCY} connections, ${SECONDS} s each\n`,
    );
    console.log('| limiter | req/s | p50 ms | p99 ms | statuses | per request |');
    console.log('|---|---|---|---|---|---|');
    console.log(
      row(
        'on',
        on.result,
        `${on.scriptCallsPerRequest.toFixed(2)} Redis round trip(s) (${on.redisCommandsPerRequest.toFixed(1)} commands incl. those inside the script); gateway CPU ${on.gatewayCpuMsPerRequest.toFixed(3)} ms, Redis CPU ${on.redisCpuMsPerRequest.toFixed(3)} ms`,
      ),
    );
    console.log(
      row(
        'off',
        off.result,
        `${off.scriptCallsPerRequest.toFixed(2)} Redis round trips; gateway CPU ${off.gatewayCpuMsPerRequest.toFixed(3)} ms, Redis CPU ${off.redisCpuMsPerRequest.toFixed(3)} ms`,
      ),
    );
    console.log(
      `\nadded latency (p50): ${(on.result.p50Ms - off.result.p50Ms).toFixed(2)} ms; ` +
        `throughput change: ${(((on.result.perSecond - off.result.perSecond) / off.result.perSecond) * 100).toFixed(1)} %`,
    );
    console.log(
      `one limiter call alone (sequential, 5000 calls, route + exact buckets): p50 ${direct.p50Ms.toFixed(3)} ms, p99 ${direct.p99Ms.toFixed(3)} ms`,
    );
  } finally {
    redis.disconnect();
    await env.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
