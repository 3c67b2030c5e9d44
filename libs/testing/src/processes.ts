import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** A real app process started from its TypeScript entry point (no build needed), with its log lines. */
export class SpawnedApp {
  readonly lines: string[] = [];
  private readonly exited: Promise<number | null>;
  private waiters: Array<() => void> = [];

  private constructor(readonly child: ChildProcess) {
    let buffered = '';
    const collect = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      this.lines.push(...parts.filter(Boolean));
      for (const wake of this.waiters) wake();
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /**
   * Starts `entry` with the suite's variables: a TypeScript entry point (e.g.
   * apps/gateway/src/main.ts) under ts-node, or one of the build's (dist/…/main.js) as it is, which
   * starts several times faster on a loaded machine.
   */
  static start(entry: string, variables: Record<string, string>): SpawnedApp {
    const built = entry.endsWith('.js');
    const child = spawn(
      process.execPath,
      [
        // a CPU profile of each app when asked (bench/README): NODE_OPTIONS may not carry --cpu-prof
        ...(process.env.KESSAI_CPU_PROF_DIR
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.KESSAI_CPU_PROF_DIR}`]
          : []),
        ...(built ? [] : ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register']),
        path.join(ROOT, entry),
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ...variables, TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return new SpawnedApp(child);
  }

  /** The first JSON log line matching `predicate`; fails when the process exits or time runs out. */
  async waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      for (; seen < this.lines.length; seen++) {
        const parsed = parseJson(this.lines[seen]);
        if (parsed && predicate(parsed)) return parsed;
      }
      if (this.child.exitCode !== null) {
        throw new Error(`process exited (${this.child.exitCode}):\n${this.lines.join('\n')}`);
      }
      if (Date.now() > deadline)
        throw new Error(`no matching log line in ${timeoutMs} ms:\n${this.lines.join('\n')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      this.waiters = [];
    }
  }

  /** Stops the process (SIGTERM by default, SIGKILL for a crash) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

function parseJson(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * How long a process may take to announce itself: a bound for a hung start, not an expectation. A
 * start fails at once when the process exits; on a loaded 2-core machine (load 15-23 in CI) a
 * ts-node start took longer than 30 s (gateways) and 60 s (workers), so the bound is generous.
 */
export const PROCESS_START_TIMEOUT_MS = 180_000;

/**
 * Starts a gateway process and resolves its base URL once it listens; from its TypeScript entry
 * point unless `entry` names the build's (dist/apps/gateway/src/main.js).
 */
export async function startGatewayProcess(
  variables: Record<string, string>,
  {
    entry = 'apps/gateway/src/main.ts',
    timeoutMs = PROCESS_START_TIMEOUT_MS,
  }: { entry?: string; timeoutMs?: number } = {},
) {
  // info level: the line announcing the URL is an info line
  const app = SpawnedApp.start(entry, { ...variables, LOG_LEVEL: 'info' });
  try {
    const listening = await app.waitForLog((line) => line.msg === 'gateway listening', timeoutMs);
    return { app, url: String(listening.url) };
  } catch (error) {
    await app.stop('SIGKILL');
    throw error;
  }
}

/** The log levels that still print the info line a process announces itself with. */
const AT_LEAST_INFO = new Set(['trace', 'debug', 'info']);

/**
 * Starts a worker service process (e.g. apps/charge-service/src/main.ts, or the build's
 * dist/apps/charge-service/src/main.js) and resolves once it announces `<name> started`, the name
 * being the app's folder; with its health URL. Its log level
 * is the suite's, raised to info at least so that the announcement is printed.
 */
export async function startWorkerProcess(
  entry: string,
  variables: Record<string, string>,
  { timeoutMs = PROCESS_START_TIMEOUT_MS }: { timeoutMs?: number } = {},
) {
  const name = entry.split('/').at(-3);
  if (!name || !/^(dist\/)?apps\//.test(entry)) throw new Error(`not an app entry point: ${entry}`);
  const level = variables.LOG_LEVEL && AT_LEAST_INFO.has(variables.LOG_LEVEL) ? variables.LOG_LEVEL : 'info';
  const app = SpawnedApp.start(entry, { HEALTH_PORT: '0', ...variables, LOG_LEVEL: level });
  try {
    const started = await app.waitForLog((line) => line.msg === `${name} started`, timeoutMs);
    return { app, healthUrl: String(started.url) };
  } catch (error) {
    await app.stop('SIGKILL');
    throw error;
  }
}

/** What a start of processes resolves to: something that holds a process to stop. */
export interface Started {
  app: Pick<SpawnedApp, 'stop'>;
}

/**
 * Starts processes side by side (`Promise.all` would leave the ones already started running when
 * another fails: they would go on loading the suites after it). When any start fails, every start
 * that succeeded is stopped (SIGKILL) before the first failure is thrown; otherwise resolves to
 * what each start resolved to, in order.
 */
export async function startTogether<T extends readonly (() => Promise<Started>)[] | []>(
  starts: T,
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  const settled = await Promise.allSettled(starts.map((start) => start()));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) {
    const started = settled.filter((result) => result.status === 'fulfilled');
    await Promise.all(started.map((result) => result.value.app.stop('SIGKILL')));
    throw failure.reason;
  }
  return settled.map((result) => (result as PromiseFulfilledResult<Started>).value) as {
    -readonly [K in keyof T]: Awaited<ReturnType<T[K]>>;
  };
}
