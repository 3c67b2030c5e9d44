// The system under test for the chaos suite: its own Postgres cluster and Redis (so that restarting
// them disturbs nothing else), the processor simulator (a process of the build, read through its
// inspection API) and a webhook receiver (in this process): the outside world; and the six services
// as real processes of the build, each restartable.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  createMigratedDatabase,
  freePort,
  eventually,
  RELAXED_RATE_LIMITS,
  SpawnedApp,
  startGatewayProcess,
  startOwnPostgres,
  startOwnRedis,
  startTogether,
  startWorkerProcess,
  TestEnvironment,
  WebhookReceiver,
  type OwnPostgres,
  type OwnRedis,
} from '@kessai/testing';
import type { SimulatorStats } from './reconcile';

export const SERVICES = [
  'gateway',
  'charge-service',
  'refund-cancel-service',
  'subscription-service',
  'webhook-service',
  'ledger-service',
] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * The suite's settings beside testVariables': limits that never bind, and the safety nets (stale
 * sweeps, job locks, webhook retries) shortened so that work a fault orphaned is taken up within
 * the run rather than in half an hour. docs/operations.md names them with the figures.
 */
export const CHAOS_SETTINGS: Record<string, string> = {
  ...RELAXED_RATE_LIMITS,
  DB_POOL_SIZE: '8',
  CHARGE_JOB_LOCK_MS: '5000',
  REFUND_CANCEL_JOB_LOCK_MS: '5000',
  SUBSCRIPTION_JOB_LOCK_MS: '5000',
  WEBHOOK_JOB_LOCK_MS: '5000',
  CHARGE_WORKER_CONCURRENCY: '16',
  CHARGE_STALE_PENDING_SECONDS: '15',
  REFUND_CANCEL_STALE_SECONDS: '15',
  REFUND_CANCEL_SWEEP_INTERVAL_MS: '2000',
  SUBSCRIPTION_STALE_SECONDS: '10',
  SUBSCRIPTION_SWEEP_INTERVAL_MS: '2000',
  SUBSCRIPTION_SCHEDULER_IDLE_MS: '100',
  WEBHOOK_STALE_SECONDS: '10',
  WEBHOOK_SWEEP_INTERVAL_MS: '2000',
  WEBHOOK_RETRY_BASE_MS: '500',
  WEBHOOK_RETRY_FACTOR: '2',
  WEBHOOK_RETRY_MAX_DELAY_MS: '4000',
  WEBHOOK_MAX_ATTEMPTS: '40',
  SHUTDOWN_TIMEOUT_MS: '10000',
  LEDGER_POST_INTERVAL_MS: '200',
};

/** The build's entry points: a restart from them takes seconds where ts-node takes tens on a busy machine. */
const entry = (service: ServiceName) => `dist/apps/${service}/src/main.js`;
/** How long a start may take on a loaded machine before it counts as failed. */
const START_TIMEOUT_MS = 120_000;

/** How a process of the system ended, when nobody asked it to. */
export interface UnexpectedExit {
  service: ServiceName;
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
  lastLines: string[];
}

const run = promisify(execFile);

/**
 * What `npm run build` emits, without its type check (typecheck and CI do that): tsc --noCheck,
 * the path aliases rewritten, the assets copied. Its own build-info file, so that `npm run build`'s
 * incremental state is left as it was (the JavaScript is the same). The time it took.
 */
async function build(): Promise<number> {
  const started = Date.now();
  const info = path.join(mkdtempSync(path.join(tmpdir(), 'kessai-chaos-build-')), 'tsbuildinfo');
  try {
    const tsc = 'node_modules/typescript/bin/tsc';
    await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--tsBuildInfoFile', info]);
    await run(process.execPath, ['node_modules/tsc-alias/dist/bin/index.js', '-p', 'tsconfig.build.json']);
    await run(process.execPath, ['scripts/copy-assets.js']);
  } finally {
    rmSync(path.dirname(info), { recursive: true, force: true });
  }
  return Date.now() - started;
}

export class ChaosSystem {
  readonly apps = new Map<ServiceName, SpawnedApp>();
  readonly unexpectedExits: UnexpectedExit[] = [];
  /** processes stopped on purpose: their exit is no finding */
  readonly #stopping = new Set<SpawnedApp>();
  /** every process ever started, to stop on the way out whatever happened */
  readonly #started: Array<{ service: ServiceName; app: SpawnedApp }> = [];
  #closing = false;
  readonly #starting = new Set<Promise<unknown>>();
  postgres: OwnPostgres | undefined;
  redis: OwnRedis | undefined;
  simulator: SpawnedApp | undefined;
  simulatorUrl = '';
  receiver = new WebhookReceiver();
  env: TestEnvironment | undefined;
  variables: Record<string, string> = {};
  gatewayUrl = '';

  /**
   * The build (dist/, as `npm run build` emits it) beside Postgres (migrated), Redis, the simulator
   * and the receiver; then the five services side by side.
   */
  async start(log: (line: string) => void): Promise<void> {
    const [, databaseUrl] = await Promise.all([
      build().then((ms) => log(`built in ${(ms / 1000).toFixed(1)} s`)),
      this.startOutside(log),
    ]);
    const redis = this.redis!;
    const [port, simulatorPort] = await Promise.all([freePort(), freePort()]);
    this.simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
    this.gatewayUrl = `http://127.0.0.1:${port}`;
    this.env = await TestEnvironment.create(
      {
        ...CHAOS_SETTINGS,
        REDIS_URL: redis.url,
        REDIS_CLUSTER: 'false',
        PORT: String(port),
        PUBLIC_BASE_URL: this.gatewayUrl,
        PROCESSOR_TEST_URL: this.simulatorUrl,
        PROCESSOR_CALLBACK_BASE_URL: this.gatewayUrl,
      },
      // the cluster is removed as a whole at the end
      { name: 'kessai_chaos', url: databaseUrl, drop: () => Promise.resolve() },
    );
    this.variables = this.env.variables;
    await startTogether([
      () => this.startSimulator(simulatorPort),
      ...SERVICES.map((service) => () => this.startService(service)),
    ]);
  }

  /** The processor simulator of the build, no latency, up once its health answers. */
  private async startSimulator(port: number): Promise<{ app: SpawnedApp }> {
    const app = SpawnedApp.start('dist/apps/processor-simulator/src/main.js', {
      ...this.variables,
      SIMULATOR_PORT: String(port),
      SIMULATOR_HOST: '127.0.0.1',
      SIMULATOR_LATENCY_MS: '0',
    });
    this.simulator = app;
    try {
      await eventually(
        async () => {
          if (app.child.exitCode !== null) throw new Error(`the simulator exited:\n${app.lines.join('\n')}`);
          return (await fetch(`${this.simulatorUrl}/_sim/health`)).ok;
        },
        { timeoutMs: START_TIMEOUT_MS, intervalMs: 100, what: 'the processor simulator' },
      );
    } catch (error) {
      await app.stop('SIGKILL');
      throw error;
    }
    return { app };
  }

  /** The simulator's records: per operation and idempotency key, requests and executions. */
  async simulatorStats(): Promise<SimulatorStats> {
    return (await (await fetch(`${this.simulatorUrl}/_sim/stats`)).json()) as SimulatorStats;
  }

  /** Postgres with the database migrated, Redis, the receiver; the database's URL. */
  private async startOutside(log: (line: string) => void): Promise<string> {
    // Redis as docker-compose.yml deploys it, with its append-only file: a restart keeps the queues.
    // A Redis that loses its data loses the webhook dispatches of events published just before
    // (docs/operations.md, "Faults": a known defect, not what this restart injects)
    const [postgres, redis] = await Promise.all([
      startOwnPostgres(),
      startOwnRedis({ persistence: true }),
      this.receiver.start(),
    ]);
    this.postgres = postgres;
    this.redis = redis;
    log(`postgres ${postgres.url}, redis ${redis.url}`);
    const { url: databaseUrl } = await createMigratedDatabase(postgres.url);
    log('migrations applied');
    return databaseUrl;
  }

  /** Starts one service (again), on the gateway's fixed port for the gateway; resolves once it is up. */
  async startService(service: ServiceName): Promise<{ app: SpawnedApp }> {
    const starting =
      service === 'gateway'
        ? startGatewayProcess(this.variables, { entry: entry(service), timeoutMs: START_TIMEOUT_MS })
        : startWorkerProcess(entry(service), this.variables, { timeoutMs: START_TIMEOUT_MS });
    // a start under way when the system closes is awaited there: its process is then stopped
    this.#starting.add(starting);
    const { app } = await starting.finally(() => this.#starting.delete(starting));
    this.#started.push({ service, app });
    if (this.#closing) {
      await app.stop('SIGKILL');
      throw new Error(`${service} started while the system closes`);
    }
    this.apps.set(service, app);
    app.child.once('exit', (code, signal) => {
      if (this.#stopping.has(app) || this.#closing) return;
      this.unexpectedExits.push({ service, code, signal, at: Date.now(), lastLines: app.lines.slice(-15) });
      // as a supervisor would, so that the run goes on and shows what else happens
      this.startService(service).catch(() => undefined);
    });
    return { app };
  }

  /** Stops a service on purpose with `signal`; its exit code. */
  async stopService(service: ServiceName, signal: NodeJS.Signals): Promise<number | null> {
    const app = this.apps.get(service);
    if (!app) throw new Error(`${service} is not running`);
    this.#stopping.add(app);
    return app.stop(signal);
  }

  /** Whether the service's current process still runs. */
  running(service: ServiceName): boolean {
    const child = this.apps.get(service)?.child;
    return !!child && child.exitCode === null && child.signalCode === null;
  }

  /** Writes what every process printed, one file per process in start order, into `dir`. */
  writeLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    this.#started.forEach(({ service, app }, i) =>
      writeFileSync(
        path.join(dir, `${String(i).padStart(2, '0')}-${service}.log`),
        `${app.lines.join('\n')}\n`,
      ),
    );
  }

  /** Stops everything this system started, whatever state it is in; never throws. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.allSettled([...this.#starting]);
    for (const { app } of this.#started) this.#stopping.add(app);
    await Promise.all(this.#started.map(({ app }) => app.stop('SIGKILL').catch(() => undefined)));
    await this.env?.prisma.onModuleDestroy().catch(() => undefined);
    await this.receiver.close().catch(() => undefined);
    await this.simulator?.stop('SIGKILL').catch(() => undefined);
    await this.redis?.destroy().catch(() => undefined);
    await this.postgres?.destroy().catch(() => undefined);
  }
}
