import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type SDK from 'univapay-node';
import { runCli } from '@kessai/admin';
import { loadConfig, type FullConfig } from '@kessai/config';
import { Cleanups } from './cleanups';
import { GatewayClient } from './client';
import type { TestDatabase } from './database';
import { RELAXED_RATE_LIMITS, TestEnvironment, type SeededMerchant } from './environment';
import { listenLocally } from './http';
import {
  PROCESS_START_TIMEOUT_MS,
  startGatewayProcess,
  startTogether,
  startWorkerProcess,
  type SpawnedApp,
} from './processes';
import { sdkFor } from './sdk';
import { SlowNetwork } from './slow-network';

/**
 * Builds the gateway in this process from a suite's config: apps/gateway's createGatewayApp (with
 * the suite's logger or route registry, when it wants them), handed over by the suite because a lib
 * does not import an app.
 */
export type GatewayFactory = (config: FullConfig) => Promise<NestFastifyApplication>;

/** The processor simulator (apps/processor-simulator), as far as setting a suite up needs it. */
export interface SimulatorHandle {
  url: string;
  close(): Promise<void>;
}

/** A merchant the suite seeds, with one store and a test-mode store token. */
export interface MerchantSeed {
  /** PCI DSS compliant: it may send card data with its secret (TestEnvironment.seedPciMerchant) */
  pci?: boolean;
  /** the store token's allowed domains */
  domains?: string[];
  /** what its merchant and store are named after; the merchant's key in the suite unless told */
  label?: string;
}

export interface SuiteOptions<M extends string, S extends SimulatorHandle> {
  /**
   * Variables of every process of the suite, over testVariables' (and the simulator's); a function
   * when they are known only once the suite's own earlier hooks have run.
   */
  variables?: Record<string, string> | (() => Record<string, string>);
  /** RELAXED_RATE_LIMITS under `variables` (true unless told): false runs the limits as configured */
  relaxedRateLimits?: boolean;
  /** the suite's database (a cluster of its own, say); a copy of the migrated template unless given */
  database?: () => Promise<TestDatabase>;
  /**
   * Starts the processor simulator with the callback secret the suite's processes get. It starts
   * first: its URL is every process's PROCESSOR_TEST_URL.
   */
  simulator?: (callbackSecret: string) => Promise<S>;
  /**
   * The processes reach the simulator through a SlowNetwork (PROCESSOR_TEST_URL is the network's):
   * a process killed mid-call has its call carried out all the same, as with a real processor.
   */
  slowNetwork?: boolean;
  /** the gateway, in this process, listening on a free local port (`url`, `gateway`, `api`, `sdk`) */
  gateway?: GatewayFactory;
  /** merchants seeded once the gateway listens, by the names the suite reads them under */
  merchants?: Record<M, MerchantSeed>;
  /** worker services started as processes (their app folders: 'charge-service', …), side by side */
  workers?: string[];
  /** variables of the worker processes only, over the suite's */
  workerVariables?: Record<string, string>;
  /**
   * the processor and the customer come back to the gateway: PROCESSOR_CALLBACK_BASE_URL and
   * PUBLIC_BASE_URL of the workers are its URL (the simulator's notices, a hosted processor's 3-D
   * Secure return route)
   */
  callbacks?: boolean;
  /** the bound of the set-up hook; generous by default when processes start (PROCESS_START_TIMEOUT_MS) */
  timeoutMs?: number;
}

/** A worker service process of the suite, and the URL of its health and metrics server. */
export interface StartedWorker {
  app: SpawnedApp;
  healthUrl: string;
}

/** What a suite reads once its beforeAll has run. */
export interface Suite<M extends string = never, S extends SimulatorHandle = never> {
  /** the suite's database, Redis prefix, config, Prisma client and admin */
  readonly env: TestEnvironment;
  /** the in-process gateway */
  readonly app: NestFastifyApplication;
  /** the in-process gateway's base URL */
  readonly url: string;
  /** the in-process gateway without credentials (`.as(…)` for any) */
  readonly gateway: GatewayClient;
  readonly merchants: Readonly<Record<M, SeededMerchant>>;
  /** the gateway as each merchant's store token */
  readonly api: Readonly<Record<M, GatewayClient>>;
  /** the official SDK as each merchant's store token (a new client at each read) */
  readonly sdk: Readonly<Record<M, SDK>>;
  readonly simulator: S;
  /** the SlowNetwork between the processes and the simulator (`slowNetwork`) */
  readonly network: SlowNetwork;
  /** the worker processes started by `workers` and `startWorker`, in order, with their health URLs */
  readonly workers: readonly StartedWorker[];
  /** what a worker process of the suite is started with */
  readonly workerVariables: Record<string, string>;
  /** Starts one more worker service process (an app folder), stopped with the suite. */
  startWorker(app: string, variables?: Record<string, string>): Promise<StartedWorker>;
  /**
   * One more in-process gateway (the suite's factory unless told) with variables over the suite's,
   * listening; closed with the suite.
   */
  startGateway(
    variables?: Record<string, string>,
    factory?: GatewayFactory,
  ): Promise<{ app: NestFastifyApplication; url: string; client: GatewayClient }>;
  /** A gateway process of the suite (its variables, with `variables` over them), stopped with the suite. */
  startGatewayProcess(variables?: Record<string, string>): Promise<{ app: SpawnedApp; url: string }>;
  /**
   * The admin CLI as an operator's shell runs it against this suite (its variables, PUBLIC_BASE_URL
   * the gateway's when there is one), printing nothing: what the command answers.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the answers' fields freely
  cli(...argv: string[]): Promise<any>;
  /** where `cli` keeps the credentials demo:bootstrap writes */
  readonly cliCredentialsFile: string;
  /** Something to undo when the suite ends: run before what the suite set up earlier (last in, first out). */
  cleanup(teardown: () => unknown): void;
}

/** The bound of the teardown hook: graceful stops of the suite's processes included. */
const TEARDOWN_TIMEOUT_MS = 60_000;

/**
 * One e2e suite's world, set up in a beforeAll and torn down in an afterAll that this registers:
 * its own database and Redis prefix (TestEnvironment), then as asked the processor simulator, the
 * gateway in this process, seeded merchants and worker processes. Everything started is stopped at
 * the end, the last started first, and the database dropped, whatever failed in between:
 *
 *   const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });
 *   it('…', async () => {
 *     const charge = await suite.api.shop.charge(await suite.api.shop.cardToken());
 *   });
 *
 * A suite's own set-up goes in a beforeAll after this call (jest runs hooks in order), its own
 * teardown in `suite.cleanup`.
 */
export function useSuite<M extends string = never, S extends SimulatorHandle = never>(
  options: SuiteOptions<M, S> = {},
): Suite<M, S> {
  const suite = new SuiteWorld<M, S>(options);
  const startsProcesses = (options.workers?.length ?? 0) > 0;
  beforeAll(
    () => suite.setUp(),
    options.timeoutMs ?? (startsProcesses ? PROCESS_START_TIMEOUT_MS + 30_000 : 60_000),
  );
  afterAll(() => suite.tearDown(), TEARDOWN_TIMEOUT_MS);
  return suite;
}

class SuiteWorld<M extends string, S extends SimulatorHandle> implements Suite<M, S> {
  readonly merchants = {} as Record<M, SeededMerchant>;
  readonly api = {} as Record<M, GatewayClient>;
  readonly sdk = {} as Record<M, SDK>;
  readonly #cleanups = new Cleanups();
  readonly #seeded = new Map<string, SeededMerchant>();
  readonly #workers: StartedWorker[] = [];
  #env?: TestEnvironment;
  #app?: NestFastifyApplication;
  #url?: string;
  #simulator?: S;
  #network?: SlowNetwork;
  #credentialsFile?: string;

  constructor(private readonly options: SuiteOptions<M, S>) {
    for (const name of Object.keys(options.merchants ?? {})) {
      const merchant = () => this.#ready(`merchants.${name}`, this.#seeded.get(name), 'seeded');
      Object.defineProperty(this.merchants, name, { enumerable: true, get: merchant });
      Object.defineProperty(this.api, name, { enumerable: true, get: () => this.gateway.as(merchant()) });
      Object.defineProperty(this.sdk, name, {
        enumerable: true,
        get: () => sdkFor(this.url, merchant().storeToken),
      });
    }
  }

  get env() {
    return this.#ready('env', this.#env, 'created');
  }
  get app() {
    return this.#ready('app', this.#app, 'started: the options name no gateway');
  }
  get url() {
    return this.#ready('url', this.#url, 'started: the options name no gateway');
  }
  get gateway() {
    return new GatewayClient(this.url);
  }
  get simulator() {
    return this.#ready('simulator', this.#simulator, 'started: the options name no simulator');
  }
  get network() {
    return this.#ready('network', this.#network, 'started: the options ask for no slow network');
  }
  get workers(): readonly StartedWorker[] {
    return this.#workers;
  }
  get workerVariables(): Record<string, string> {
    return {
      ...this.env.variables,
      ...(this.options.callbacks ? { PROCESSOR_CALLBACK_BASE_URL: this.url, PUBLIC_BASE_URL: this.url } : {}),
      ...this.options.workerVariables,
    };
  }

  cleanup(teardown: () => unknown): void {
    this.#cleanups.add(teardown);
  }

  get cliCredentialsFile(): string {
    if (!this.#credentialsFile) {
      const dir = mkdtempSync(join(tmpdir(), 'kessai-cli-'));
      this.cleanup(() => rmSync(dir, { recursive: true, force: true }));
      this.#credentialsFile = join(dir, 'demo.json');
    }
    return this.#credentialsFile;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Suite.cli
  cli(...argv: string[]): Promise<any> {
    const env = { ...this.env.variables, ...(this.#url ? { PUBLIC_BASE_URL: this.#url } : {}) };
    return runCli(argv, { env, credentialsFile: this.cliCredentialsFile, print: () => undefined });
  }

  async setUp(): Promise<void> {
    const { options } = this;
    const callbackSecret = randomBytes(32).toString('hex');
    if (options.simulator) {
      const simulator = await options.simulator(callbackSecret);
      this.cleanup(() => simulator.close());
      this.#simulator = simulator;
      if (options.slowNetwork) {
        const network = await SlowNetwork.start(simulator.url);
        this.cleanup(() => network.close());
        this.#network = network;
      }
    }
    const variables = typeof options.variables === 'function' ? options.variables() : options.variables;
    const env = await TestEnvironment.create(
      {
        ...(options.relaxedRateLimits === false ? {} : RELAXED_RATE_LIMITS),
        ...(this.#simulator
          ? {
              PROCESSOR_TEST_URL: (this.#network ?? this.#simulator).url,
              PROCESSOR_CALLBACK_SECRET: callbackSecret,
            }
          : {}),
        ...variables,
      },
      await options.database?.(),
    );
    this.cleanup(() => env.close());
    this.#env = env;
    if (options.gateway) ({ app: this.#app, url: this.#url } = await this.startGateway({}, options.gateway));
    for (const [name, seed] of Object.entries<MerchantSeed>(options.merchants ?? {})) {
      const label = seed.label ?? name;
      const seeded = seed.pci
        ? await env.seedPciMerchant(label, { domains: seed.domains })
        : await env.seedMerchant(label, { domains: seed.domains });
      this.#seeded.set(name, seeded);
    }
    if (options.workers?.length) {
      const variables = this.workerVariables;
      const started = await startTogether(
        options.workers.map((app) => () => startWorkerProcess(`apps/${app}/src/main.ts`, variables)),
      );
      this.#track(...started);
    }
  }

  tearDown(): Promise<void> {
    return this.#cleanups.run();
  }

  async startWorker(app: string, variables: Record<string, string> = {}): Promise<StartedWorker> {
    const started = await startWorkerProcess(`apps/${app}/src/main.ts`, {
      ...this.workerVariables,
      ...variables,
    });
    this.#track(started);
    return started;
  }

  async startGatewayProcess(variables: Record<string, string> = {}) {
    const started = await startGatewayProcess({ ...this.env.variables, ...variables });
    this.cleanup(() => started.app.stop());
    return started;
  }

  async startGateway(variables: Record<string, string> = {}, factory = this.options.gateway) {
    if (!factory) throw new Error('startGateway: the suite names no gateway factory, and none was given');
    const env = this.env;
    const config =
      Object.keys(variables).length === 0 ? env.config : loadConfig({ ...env.variables, ...variables });
    const app = await factory(config);
    this.cleanup(() => app.close());
    const url = await listenLocally(app);
    return { app, url, client: new GatewayClient(url) };
  }

  #track(...workers: StartedWorker[]): void {
    this.#workers.push(...workers);
    this.cleanup(() => Promise.all(workers.map(({ app }) => app.stop())));
  }

  /** `value`, or what went wrong: read before the set-up ran, or never made (`unmade` says why). */
  #ready<T>(what: string, value: T | undefined, unmade: string): T {
    if (value !== undefined) return value;
    throw new Error(
      this.#env
        ? `suite.${what} was not ${unmade}`
        : `suite.${what} is read before the suite's beforeAll ran: read it in a test or a later hook`,
    );
  }
}
