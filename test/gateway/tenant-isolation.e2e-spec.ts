import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  CapturedLog,
  GatewayClient,
  listenLocally,
  RELAXED_RATE_LIMITS,
  TestEnvironment,
  whileHolding,
  type Credentials,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { tenantWriteConcurrency } from '../../apps/gateway/src/limits/tenant-writes';

/**
 * One merchant cannot take another's share of the gateway's Postgres pool (issue 27): concurrent
 * PATCHes of one store, all waiting on the store's row lock, used to hold every pooled connection,
 * and another merchant's reads waited behind them until the PATCHes' transactions timed out (500).
 * Now a merchant's writes hold at most its share of the pool; the others wait for a slot of their
 * own merchant, without a connection.
 */
const POOL = 5;
let env: TestEnvironment;
let app: NestFastifyApplication;
let baseUrl: string;
let convoy: SeededMerchant;
let convoyMerchant: Credentials;
let other: SeededMerchant;
const log = new CapturedLog();

beforeAll(async () => {
  env = await TestEnvironment.create({ ...RELAXED_RATE_LIMITS, DB_POOL_SIZE: String(POOL) });
  app = await createGatewayApp(env.config, { logger: log.logger('gateway') });
  baseUrl = await listenLocally(app);
  convoy = await env.seedMerchant('convoy');
  convoyMerchant = await env.merchantToken(convoy);
  other = await env.seedMerchant('bystander');
});

afterAll(async () => {
  await env?.close(app);
});

describe("a merchant's convoy of writes waiting on one row", () => {
  it("holds at most its share of the pool: another merchant's read is answered before any of them", async () => {
    const share = tenantWriteConcurrency(env.config);
    expect(share).toBeLessThan(POOL);
    const convoyApi = new GatewayClient(baseUrl, convoyMerchant);
    const bystander = new GatewayClient(baseUrl, other.storeToken);
    const answered: string[] = [];

    const patches = await whileHolding(
      env.database.url,
      { sql: 'SELECT id FROM stores WHERE id = $1 FOR UPDATE', params: [convoy.store.id] },
      () =>
        Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const res = await convoyApi.request(`/stores/${convoy.store.id}`, {
              method: 'PATCH',
              json: { name: `Convoy ${i}` },
            });
            answered.push(`patch ${res.status}`);
            return res;
          }),
        ),
      'PATCH /stores waiting on the store row',
      async (probe) => {
        const read = await bystander.request(`/stores/${other.store.id}`);
        answered.push(`read ${read.status}`);
        // the gateway's connections waiting on the lock: never more than the merchant's share
        const { rows } = await probe.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        );
        expect(rows[0].n).toBeLessThanOrEqual(share);
      },
    );

    expect(answered[0]).toBe('read 200');
    // once the row is free every PATCH goes through; none is a 500
    expect(patches.map((res) => res.status)).toEqual(Array.from({ length: 12 }, () => 200));
  }, 120_000);
});
