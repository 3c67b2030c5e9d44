import { CapturedLog, GatewayClient, useSuite, whileHolding, type Credentials } from '@kessai/testing';
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
let convoyMerchant: Credentials;
const log = new CapturedLog();
const suite = useSuite({
  // the convoy's last PATCH waits for the hold and the eleven before it: on a busy machine that
  // passed the default 10 s bound, and it answered 503; the bound itself is not what this checks
  variables: { DB_POOL_SIZE: String(POOL), TENANT_WRITE_WAIT_MS: '60000' },
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { convoy: {}, other: { label: 'bystander' } },
});

beforeAll(async () => {
  convoyMerchant = await suite.env.merchantToken(suite.merchants.convoy);
});

describe("a merchant's convoy of writes waiting on one row", () => {
  it("holds at most its share of the pool: another merchant's read is answered before any of them", async () => {
    const share = tenantWriteConcurrency(suite.env.config);
    expect(share).toBeLessThan(POOL);
    const convoyApi = new GatewayClient(suite.url, convoyMerchant);
    const bystander = new GatewayClient(suite.url, suite.merchants.other.storeToken);
    const answered: string[] = [];

    const patches = await whileHolding(
      suite.env.database.url,
      { sql: 'SELECT id FROM stores WHERE id = $1 FOR UPDATE', params: [suite.merchants.convoy.store.id] },
      () =>
        Promise.all(
          Array.from({ length: 12 }, async (_, i) => {
            const res = await convoyApi.request(`/stores/${suite.merchants.convoy.store.id}`, {
              method: 'PATCH',
              json: { name: `Convoy ${i}` },
            });
            answered.push(`patch ${res.status}`);
            return res;
          }),
        ),
      'PATCH /stores waiting on the store row',
      async (probe) => {
        const read = await bystander.request(`/stores/${suite.merchants.other.store.id}`);
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
