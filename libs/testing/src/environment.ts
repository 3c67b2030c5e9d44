import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Writable } from 'node:stream';
import { loadConfig, type FullConfig } from '@kessai/config';
import {
  AppTokensRepository,
  ConsoleAuditRepository,
  MerchantsRepository,
  MerchantUsersRepository,
  PrismaService,
  StoresRepository,
} from '@kessai/db';
import { AdminService } from '@kessai/admin';
import { createLogger, type Logger } from '@kessai/observability';
import { createRedisClient, masterNodes, type RedisLocation } from '@kessai/redis';
import { closeBullConnections } from '@kessai/runtime';
import { createTestDatabase, type TestDatabase } from './database';

function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** TEST_REDIS_CLUSTER=1: TEST_REDIS_URL is a node of a Redis Cluster (scripts/redis-cluster.sh). */
export function testRedisCluster(): boolean {
  return process.env.TEST_REDIS_CLUSTER === '1';
}

/**
 * Limits high enough never to bind, for suites that test something else and fire many requests at
 * one path (often unauthenticated, so all from one client IP). The limiter still runs on every request.
 */
export const RELAXED_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_CHARGE_BURST: '100000',
  RATE_LIMIT_CHARGE_PER_MINUTE: '1000000',
  RATE_LIMIT_ROUTE_BURST: '100000',
  RATE_LIMIT_ROUTE_PER_MINUTE: '1000000',
  RATE_LIMIT_EXACT_BURST: '100000',
  RATE_LIMIT_EXACT_PER_MINUTE: '1000000',
  RATE_LIMIT_EXACT_REFILL_PER_MS: '100',
  RATE_LIMIT_CALLBACK_FAILURE_BURST: '100000',
  RATE_LIMIT_CALLBACK_FAILURES_PER_MINUTE: '1000000',
};

/** The environment variables of a suite's processes (in-process apps parse them, spawned ones inherit them). */
export function testVariables(
  databaseUrl: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DB_POOL_SIZE: '5',
    REDIS_URL: testRedisUrl(),
    ...(testRedisCluster() ? { REDIS_CLUSTER: 'true' } : {}),
    REDIS_PREFIX: `t_${randomBytes(5).toString('hex')}`,
    HOST: '127.0.0.1',
    PORT: '0',
    JWT_SIGNING_KEY: randomBytes(32).toString('hex'),
    IDEMPOTENCY_KEY_SECRET: randomBytes(32).toString('hex'),
    VAULT_KEYS: `test1:${randomBytes(32).toString('base64')}`,
    VAULT_FINGERPRINT_SECRET: randomBytes(32).toString('hex'),
    PROCESSOR_CALLBACK_SECRET: randomBytes(32).toString('hex'),
    CONSOLE_SESSION_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    // a CI machine running suites in parallel can be slower than production's 250 ms; a refused
    // request there would be a flaky test, not a finding
    RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
    // the suites' webhook receivers are on loopback, as a developer's are (`npm start` turns it on
    // too); the SSRF suite turns it off (test/webhooks/webhooks-ssrf.e2e-spec.ts). Production refuses it: the
    // benchmarks that run as production (NODE_ENV) register no webhook
    ...(overrides.NODE_ENV === 'production' ? {} : { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
    // production requires it; the benchmarks that run as production hand out no URL a test follows
    ...(overrides.NODE_ENV === 'production' ? { PUBLIC_BASE_URL: 'http://127.0.0.1' } : {}),
    ...overrides,
  };
}

/** Collects a process's log lines in memory, so tests can assert on what was (not) logged. */
export class CapturedLog {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  logger(service: string, level = 'info'): Logger {
    return createLogger({ service, level, destination: this.stream });
  }
  get text(): string {
    return this.lines.join('\n');
  }
  /** Every line parsed (pino writes JSON lines). */
  get records(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }
}

/** One suite's world: its own database and Redis prefix, an admin for seeding, cleanup at the end. */
export class TestEnvironment {
  private constructor(
    readonly database: TestDatabase,
    /** the variables `config` was parsed from, for spawning real processes of this suite */
    readonly variables: Record<string, string>,
    readonly config: FullConfig,
    readonly prisma: PrismaService,
    readonly admin: AdminService,
  ) {}

  /**
   * `database`: one the caller made (e.g. on a Postgres cluster of its own, startOwnPostgres);
   * a copy of the suites' template on TEST_DATABASE_URL's server unless given.
   */
  static async create(
    overrides: Record<string, string> = {},
    database?: TestDatabase,
  ): Promise<TestEnvironment> {
    database ??= await createTestDatabase();
    const variables = testVariables(database.url, overrides);
    const config = loadConfig(variables);
    const prisma = new PrismaService(config);
    const audit = new ConsoleAuditRepository(prisma);
    const admin = new AdminService(
      {
        merchants: new MerchantsRepository(prisma),
        stores: new StoresRepository(prisma, audit),
        appTokens: new AppTokensRepository(prisma, audit),
        merchantUsers: new MerchantUsersRepository(prisma, audit),
      },
      config,
    );
    return new TestEnvironment(database, variables, config, prisma, admin);
  }

  /** A merchant with one store and a secret-bearing store token (test mode). */
  async seedMerchant(label: string, options: { domains?: string[]; pciDssCompliant?: boolean } = {}) {
    const suffix = randomBytes(4).toString('hex');
    let merchant = await this.admin.createMerchant({
      name: `${label} Merchant`,
      email: `${label}-${suffix}@example.test`,
    });
    if (options.pciDssCompliant) merchant = await this.admin.setPciDssCompliant(merchant.id, true);
    const store = await this.admin.createStore({ merchantId: merchant.id, name: `${label} Store` });
    const storeToken = await this.admin.issueAppToken({
      merchantId: merchant.id,
      storeId: store.id,
      mode: 'test',
      domains: options.domains ?? [],
    });
    return { merchant, store, storeToken };
  }

  /** A PCI DSS compliant merchant (it may send card data with its secret), its store and store token. */
  seedPciMerchant(label: string, options: { domains?: string[] } = {}): Promise<SeededMerchant> {
    return this.seedMerchant(label, { ...options, pciDssCompliant: true });
  }

  /** Another store of a seeded merchant, and a test-mode store token of it. */
  async seedStore(seeded: SeededMerchant, name: string) {
    const store = await this.admin.createStore({ merchantId: seeded.merchant.id, name });
    const storeToken = await this.admin.issueAppToken({
      merchantId: seeded.merchant.id,
      storeId: store.id,
      mode: 'test',
    });
    return { store, storeToken };
  }

  /**
   * A merchant-wide token (no store) of a seeded merchant. A live one makes the merchant verified
   * first, as the operator does before live mode opens to it (decision 0049).
   */
  async merchantToken(seeded: SeededMerchant, mode: 'test' | 'live' = 'test') {
    if (mode === 'live') await this.admin.setVerified(seeded.merchant.id, true);
    return this.admin.issueAppToken({ merchantId: seeded.merchant.id, mode });
  }

  /**
   * A live-mode store token of a seeded merchant's store: its tokens take real card numbers only.
   * The merchant is made verified first (decision 0049).
   */
  async liveStoreToken(seeded: SeededMerchant) {
    await this.admin.setVerified(seeded.merchant.id, true);
    return this.admin.issueAppToken({
      merchantId: seeded.merchant.id,
      storeId: seeded.store.id,
      mode: 'live',
    });
  }

  async close(...apps: Array<NestFastifyApplication | undefined>): Promise<void> {
    for (const app of apps) await app?.close();
    await this.prisma.onModuleDestroy();
    await this.database.drop();
    await closeBullConnections();
    await dropRedisPrefix(this.config, this.config.REDIS_PREFIX);
  }
}

/** What `seedMerchant` answers: the merchant, its store and a test-mode store token. */
export type SeededMerchant = Awaited<ReturnType<TestEnvironment['seedMerchant']>>;

/**
 * Removes every key under `<prefix>:` (buckets, queues, jobs, CVVs): a suite or benchmark leaves
 * nothing behind in the shared Redis, which otherwise grows by every run's unconsumed jobs.
 */
async function dropRedisPrefix(location: RedisLocation, prefix: string): Promise<void> {
  const redis = createRedisClient(location, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    // on a Cluster, every master's keys; BullMQ's are under `{prefix}` there
    const nodes = masterNodes(redis);
    for (const node of nodes) {
      for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) await unlinkMatching(node, pattern);
    }
  } finally {
    redis.disconnect();
  }
}

async function unlinkMatching(node: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    // one key per command: keys of one node may lie in different slots of a Cluster
    if (keys.length > 0) await Promise.all(keys.map((key) => node.unlink(key)));
    cursor = next;
  } while (cursor !== '0');
}
