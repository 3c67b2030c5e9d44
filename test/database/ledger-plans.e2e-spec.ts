// A store's balance (the ledger's pending and available per currency; docs/ledger.md, "Checks") is
// one materialized row per account: reading it reaches the store's accounts through their key and
// never the entries, however many the store has. Here a store with ENTRIES entries among STORES
// other stores' accounts; `npm run bench:ledger` reads the same plan at 1,000,000 entries. And a
// payout run's ledger rows are one merchant's, read through its index, never every merchant's sales.
import { randomUUID } from 'node:crypto';
import type { Client } from 'pg';
import { LedgerRepository, type PostingRequest } from '@kessai/db';
import { salePosting } from '@kessai/domain';
import { registeredStatement, statementPlan, suiteClient, tableReads, useSuite } from '@kessai/testing';

const ENTRIES = 20_000;
const STORES = 300;
const BATCH = 1_000;
const FIND_STORE_BALANCES = registeredStatement('ledger_find_store_balances');
const FIND_UNCOVERED_LEDGERS = registeredStatement('payouts_find_uncovered_ledgers');

const suite = useSuite();
let client: Client;
let storeId: string;
let othersMerchantId: string;

const sale = (owner: { merchantId: string; storeId: string }, availableOn: Date): PostingRequest => ({
  posting: salePosting({
    mode: 'test',
    ...owner,
    currency: 'JPY',
    chargeId: randomUUID(),
    grossAmount: 1_000n,
    feeAmount: 36n,
    feeRatePpm: 36_000,
    feeFlatAmount: null,
    availableOn,
  }),
  createdBy: 'test',
  causeEventId: null,
});

beforeAll(async () => {
  const ledger = new LedgerRepository(suite.env.prisma);
  const busy = await suite.env.seedMerchant('ledger-plan-busy');
  storeId = busy.store.id;
  const pending = new Date(Date.now() + 365 * 86_400_000);
  const owner = { merchantId: busy.merchant.id, storeId };
  // a sale puts the gross and takes the fee on the store's pending account: entries per sale
  const perSale = sale(owner, pending).posting.lines.filter((line) => 'storeId' in line.account).length;
  for (let posted = 0; posted < ENTRIES; posted += BATCH * perSale)
    await ledger.post(
      Array.from({ length: Math.min(BATCH, (ENTRIES - posted) / perSale) }, () => sale(owner, pending)),
    );
  // other stores, each with a sale pending and one matured and released: both accounts of each
  const other = await suite.env.seedMerchant('ledger-plan-others');
  othersMerchantId = other.merchant.id;
  const others: PostingRequest[] = [];
  for (let i = 0; i < STORES; i++) {
    const store = await suite.env.admin.createStore({ merchantId: other.merchant.id, name: `Other ${i}` });
    const of = { merchantId: other.merchant.id, storeId: store.id };
    others.push(sale(of, pending), sale(of, new Date(Date.now() - 60_000)));
  }
  await ledger.post(others);
  while ((await ledger.release(BATCH)) > 0);
  client = await suiteClient(suite);
  await client.query('ANALYZE ledger_accounts; ANALYZE ledger_entries');
}, 120_000);

it.each(['custom', 'generic'] as const)(
  "reads the store's balance rows through the store key and no entry (%s plan)",
  async (mode) => {
    const plan = await statementPlan(client, FIND_STORE_BALANCES, { storeId, mode: 'test' }, mode);
    const accounts = tableReads(plan, 'ledger_accounts');
    expect(accounts.indexes).toEqual(['ledger_accounts_store_key']);
    // the one balance row, from the heap (a bitmap scan's index node counts it a second time)
    const heap = plan.filter((node) => node['Relation Name'] === 'ledger_accounts');
    expect(heap.map((node) => node['Actual Rows'])).toEqual([1]);
    expect(accounts.rows).toBeLessThanOrEqual(2);
    expect(tableReads(plan, 'ledger_entries').rows).toBe(0);
    expect(plan.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
  },
);

it('answers the balance the entries sum to, and their count', async () => {
  const balances = await new LedgerRepository(suite.env.prisma).storeBalances(storeId, 'test');
  expect(balances).toHaveLength(1);
  const [pending] = balances;
  expect(pending.kind).toBe('store_pending');
  expect(pending.entryCount).toBe(BigInt(ENTRIES));
  const { rows } = await client.query<{ sum: string; n: string }>(
    `SELECT sum(e.amount)::text AS sum, count(*)::text AS n FROM ledger_entries e
       JOIN ledger_accounts a ON a.id = e.account_id WHERE a.store_id = $1`,
    [storeId],
  );
  expect(BigInt(rows[0].sum)).toBe(pending.balance);
  expect(Number(rows[0].n)).toBe(ENTRIES);
});

it.each(['custom', 'generic'] as const)(
  "finds a payout run's uncovered ledger rows through the merchant's index alone (%s plan)",
  async (mode) => {
    const plan = await statementPlan(
      client,
      FIND_UNCOVERED_LEDGERS,
      { merchantId: othersMerchantId, mode: 'test', currency: 'JPY', cutoff: new Date() },
      mode,
    );
    const read = tableReads(plan, 'ledger_transactions');
    expect(read.indexes).toEqual(['ledger_transactions_merchant_id_created_on_id_idx']);
    // its 2 × STORES sales, each counted by the index and the heap node; none of the busy store's
    expect(read.rows).toBeLessThanOrEqual(4 * STORES);
    // the matured half, with nothing paid yet
    expect(plan[0]['Actual Rows']).toBe(STORES);
  },
);
