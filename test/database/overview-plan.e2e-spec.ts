// A merchant's overview (docs/console.md, "Overview") reads one merchant's rows: the charges' and
// refunds' grouped statements reach them through their (merchant_id, created_on, id) index, bounded
// by the range, and never read another merchant's rows; the balances read the accounts' rows, never
// the ledger's entries. Here a quiet merchant beside a busy one of BULK charges and refunds.
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { LedgerRepository, PaymentOverviewRepository } from '@kessai/db';
import { salePosting } from '@kessai/domain';
import {
  insertCardToken,
  insertPendingCharge,
  registeredStatement,
  rowsRead,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const BULK = 10_000;
const QUIET = 40;
const TIME_ZONE = 'Asia/Tokyo';
const CHARGE_DAYS = registeredStatement('overview_charge_days');
const REFUND_DAYS = registeredStatement('overview_refund_days');
const STORE_BALANCES = registeredStatement('overview_store_balances');

const suite = useSuite();
let client: Client;
let quietId: string;
let busyId: string;

/** `count` rows of `table` for the scope, one an hour back from now (a fixed share of them per day). */
async function bulkRows(
  table: 'charges' | 'refunds',
  scope: { merchantId: string; storeId: string },
  count: number,
  ref: string,
) {
  if (table === 'charges')
    await client.query(
      `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                            requested_amount, requested_currency, charged_amount, charged_currency,
                            status, created_on)
       SELECT $1, $2, $3, 'one_time', 'test', 100, 'JPY', 100, 'JPY',
              CASE WHEN i % 4 = 0 THEN 'failed' ELSE 'successful' END::charge_status,
              now() - i * interval '1 hour'
         FROM generate_series(1, ${count}) i`,
      [scope.merchantId, scope.storeId, ref],
    );
  else
    await client.query(
      `INSERT INTO refunds (merchant_id, store_id, charge_id, mode, amount, currency, status, created_on)
       SELECT $1, $2, $3, 'test', 10, 'JPY', 'successful', now() - i * interval '1 hour'
         FROM generate_series(1, ${count}) i`,
      [scope.merchantId, scope.storeId, ref],
    );
}

const day = (offsetDays: number) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(Date.now() + offsetDays * 86_400_000));

beforeAll(async () => {
  const busy = await suite.env.seedMerchant('overview-busy');
  const quiet = await suite.env.seedMerchant('overview-quiet');
  busyId = busy.merchant.id;
  quietId = quiet.merchant.id;
  client = await suiteClient(suite);
  for (const seeded of [busy, quiet]) {
    const scope = { merchantId: seeded.merchant.id, storeId: seeded.store.id };
    const token = await insertCardToken(suite.env, scope, { cardNumber: '4242424242424242' });
    const size = seeded === busy ? BULK : QUIET;
    await bulkRows('charges', scope, size, token);
    await bulkRows('refunds', scope, size, await insertPendingCharge(suite.env, scope, token));
  }
  // both merchants' balances: a sale pending for each
  const ledger = new LedgerRepository(suite.env.prisma);
  for (const seeded of [busy, quiet])
    await ledger.post([
      {
        posting: salePosting({
          mode: 'test',
          merchantId: seeded.merchant.id,
          storeId: seeded.store.id,
          currency: 'JPY',
          chargeId: randomUUID(),
          grossAmount: 1_000n,
          feeAmount: 36n,
          feeRatePpm: 36_000,
          feeFlatAmount: null,
          availableOn: new Date(Date.now() + 86_400_000),
        }),
        createdBy: 'test',
        causeEventId: null,
      },
    ]);
  await client.query('ANALYZE charges; ANALYZE refunds; ANALYZE ledger_accounts; ANALYZE ledger_entries');
}, 120_000);

const range = (merchantId: string, from: string, to: string) => ({
  merchantId,
  mode: 'test' as const,
  from,
  to,
  timeZone: TIME_ZONE,
});

it.each([
  ['charges', CHARGE_DAYS],
  ['refunds', REFUND_DAYS],
] as const)(
  'reads the %s of the merchant and the range through its merchant index, none of another merchant’s',
  async (table, statement) => {
    // as PrismaService.run sends it: planned with its values (the statement is `replan`)
    expect(statement.replan).toBe(true);
    const quiet = await statementPlan(client, statement, range(quietId, day(-365), day(0)), 'custom');
    expect(tableReads(quiet, table).indexes).toEqual([`${table}_merchant_id_created_on_id_idx`]);
    // the quiet merchant's rows only (and its one pending charge, which the status leaves out),
    // whatever the busy one holds
    expect(rowsRead(quiet, table)).toBeLessThanOrEqual(QUIET + 1);
    expect(quiet.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
    // the busy merchant's last two days: the range bounds the index scan (at most 48 of BULK rows)
    const busy = await statementPlan(client, statement, range(busyId, day(-1), day(0)), 'custom');
    expect(tableReads(busy, table).indexes).toEqual([`${table}_merchant_id_created_on_id_idx`]);
    expect(rowsRead(busy, table)).toBeLessThanOrEqual(48);
  },
);

it('reads the balances from the accounts’ rows, never the entries', async () => {
  const plan = await statementPlan(client, STORE_BALANCES, { merchantId: quietId, mode: 'test' }, 'generic');
  expect(tableReads(plan, 'ledger_entries').rows).toBe(0);
  expect(tableReads(plan, 'ledger_accounts').rows).toBe(1);
});

it('answers each day’s totals of the merchant alone', async () => {
  const overview = new PaymentOverviewRepository(suite.env.prisma);
  const days = await overview.chargeDays(range(quietId, day(-365), day(0)));
  const total = days.reduce(
    (sum, row) => ({
      successful: sum.successful + row.successful,
      unsuccessful: sum.unsuccessful + row.unsuccessful,
    }),
    { successful: 0n, unsuccessful: 0n },
  );
  // i % 4 = 0 failed: 10 of 40
  expect(total).toEqual({ successful: 30n, unsuccessful: 10n });
  expect(days.reduce((sum, row) => sum + row.amount, 0n)).toBe(3_000n);
  const refunds = await overview.refundDays(range(quietId, day(-365), day(0)));
  expect(refunds.reduce((sum, row) => sum + row.count, 0n)).toBe(BigInt(QUIET));
  expect(await overview.storeBalances(quietId, 'test')).toEqual([
    expect.objectContaining({ kind: 'store_pending', currency: 'JPY', balance: -964n }),
  ]);
});
