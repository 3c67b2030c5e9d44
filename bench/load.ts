import http from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  statuses: Record<number, number>;
  p50Ms: number;
  p99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Closed-loop load: `concurrency` keep-alive connections each sending the next request as soon as
 * the previous answer arrived, for `durationMs`. Latency is per request, from write to last byte.
 */
export async function runLoad(options: {
  url: string;
  headers?: Record<string, string>;
  concurrency: number;
  durationMs: number;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const deadline = Date.now() + options.durationMs;
  const started = process.hrtime.bigint();

  const one = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const req = http.get(options.url, { agent, headers: options.headers }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      });
      req.on('error', reject);
    });

  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (Date.now() < deadline) await one();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: latencies.length / seconds,
    statuses,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
