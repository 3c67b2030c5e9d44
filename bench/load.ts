import http from 'node:http';

export interface LoadResult {
  requests: number;
  perSecond: number;
  statuses: Record<number, number>;
  p50Ms: number;
  p99Ms: number;
  /** wall time of the run, in seconds */
  seconds: number;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One request of a load run: where it goes and what it carries. */
export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** sent as JSON (content-type set) */
  json?: unknown;
}

/** What a request of `runRequestLoad` answered, for callers that keep or retry its work. */
export interface LoadAnswer {
  status: number;
  body: string;
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
  return runRequestLoad({
    concurrency: options.concurrency,
    durationMs: options.durationMs,
    next: () => ({ url: options.url, headers: options.headers }),
  });
}

/**
 * The same closed loop with a request chosen per call: `next(worker)` returns the request, or null
 * when there is no more work for that connection (it then stops early); `answered` sees each answer.
 * `perSecond` counts every answer; callers wanting only successes count them from `statuses`.
 */
export async function runRequestLoad(options: {
  concurrency: number;
  durationMs: number;
  next: (worker: number) => LoadRequest | null;
  answered?: (request: LoadRequest, answer: LoadAnswer) => void;
  /** keep the answer bodies (for `answered`); off by default */
  keepBodies?: boolean;
}): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const deadline = Date.now() + options.durationMs;
  const started = process.hrtime.bigint();

  const one = (request: LoadRequest) =>
    new Promise<void>((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const body = request.json === undefined ? undefined : JSON.stringify(request.json);
      const headers: Record<string, string> = { ...request.headers };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      const req = http.request(request.url, { agent, method: request.method ?? 'GET', headers }, (res) => {
        const chunks: Buffer[] = [];
        if (options.keepBodies) res.on('data', (chunk: Buffer) => chunks.push(chunk));
        else res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          statuses[status] = (statuses[status] ?? 0) + 1;
          // a throwing `answered` fails the load (and so the bench, which then stops its processes)
          // rather than escaping from this event handler and killing the process mid-run
          try {
            options.answered?.(request, { status, body: Buffer.concat(chunks).toString('utf8') });
            resolve();
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (Date.now() < deadline) {
        const request = options.next(worker);
        if (!request) return;
        await one(request);
      }
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
    seconds,
  };
}
