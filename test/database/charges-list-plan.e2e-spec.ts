// A charge list's page (LIST_CHARGES) reads the page's rows of its scope through the scope's
// (store_id|merchant_id, created_on DESC, id DESC) index, stopped at the page, whatever else the
// store or merchant holds: the plain statement on its generic plan (it is prepared once per
// connection), the filtered one on the custom plan it gets at every call. Here a busy store of BULK
// charges beside a quiet store of the same merchant, on statistics taken (ANALYZE) and on none.
import type { Client } from 'pg';
import {
  registeredStatement,
  rowsRead,
  statementPlan,
  suiteClient,
  tableReads,
  useSuite,
} from '@kessai/testing';

const BULK = 5_000;
const QUIET = 30;
const LIMIT = 10;
const NIL = '00000000-0000-0000-0000-000000000000';

const suite = useSuite();
let client: Client;
let merchantId: string;
let busyStoreId: string;
let quietStoreId: string;

const page = (countAll: boolean) => ({
  merchantId,
  lowerOn: '-infinity',
  lowerId: NIL,
  upperOn: 'infinity',
  upperId: NIL,
  take: LIMIT + 1,
  countAll,
});

const noFilter = {
  status: null,
  mode: null,
  transactionTokenId: null,
  subscriptionId: null,
  scheduledPaymentId: null,
  currency: null,
  amountFrom: null,
  amountTo: null,
  metadataKey: null,
  metadataText: null,
  metadataNumber: null,
  paymentType: null,
  email: null,
  cardLastFour: null,
};

beforeAll(async () => {
  const seeded = await suite.env.seedMerchant('list-plan');
  merchantId = seeded.merchant.id;
  busyStoreId = seeded.store.id;
  quietStoreId = (await suite.env.seedStore(seeded, 'list-plan quiet')).store.id;
  client = await suiteClient(suite);
  for (const [storeId, count] of [
    [busyStoreId, BULK],
    [quietStoreId, QUIET],
  ] as const) {
    // a token of its own for each charge, as one_time tokens are (rows only: the plans read no card)
    await client.query(
      `WITH tokens AS (
         INSERT INTO transaction_tokens (merchant_id, store_id, mode, type, payment_type, updated_on)
         SELECT $1, $2, 'test', 'one_time', 'card', now() FROM generate_series(1, ${count})
         RETURNING id)
       INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                            requested_amount, requested_currency, status, created_on)
       SELECT $1, $2, id, 'one_time', 'test', 100, 'JPY',
              CASE WHEN i % 5 = 0 THEN 'failed' ELSE 'pending' END::charge_status,
              now() - i * interval '1 minute'
         FROM (SELECT id, row_number() OVER () AS i FROM tokens) numbered`,
      [merchantId, storeId],
    );
  }
}, 120_000);

describe.each([
  ['without statistics', false],
  ['with statistics', true],
])('%s', (_name, analyze) => {
  beforeAll(async () => {
    if (analyze) await client.query('ANALYZE charges; ANALYZE stores; ANALYZE transaction_tokens');
  });

  it.each([
    ['busy', () => busyStoreId],
    ['quiet', () => quietStoreId],
  ])(
    'a %s store’s first page, plain (generic plan): its page of rows by the store index',
    async (_s, store) => {
      const statement = registeredStatement('charges_list_store_desc');
      expect(statement.replan).toBe(false);
      const plan = await statementPlan(client, statement, { ...page(false), storeId: store() }, 'generic');
      expect(tableReads(plan, 'charges').indexes).toEqual(['charges_store_id_created_on_id_idx']);
      expect(rowsRead(plan, 'charges')).toBeLessThanOrEqual(LIMIT + 1);
      // in index order, joined row by row until the LIMIT: no sort, and only the page's tokens read
      expect(plan.filter((node) => node['Node Type'] === 'Sort')).toEqual([]);
      expect(tableReads(plan, 'transaction_tokens')).toEqual({
        rows: LIMIT + 1,
        indexes: ['transaction_tokens_pkey'],
      });
    },
  );

  it('the merchant’s first page, plain (generic plan), oldest first: its page of rows by the merchant index', async () => {
    const plan = await statementPlan(
      client,
      registeredStatement('charges_list_merchant_asc'),
      page(false),
      'generic',
    );
    expect(tableReads(plan, 'charges').indexes).toEqual(['charges_merchant_id_created_on_id_idx']);
    expect(rowsRead(plan, 'charges')).toBeLessThanOrEqual(LIMIT + 1);
  });

  it('a filtered page (custom plan) reads the store’s rows in order until the page is full', async () => {
    const statement = registeredStatement('charges_list_store_filtered_desc');
    expect(statement.replan).toBe(true);
    const filtered = (storeId: string) => ({ ...page(false), ...noFilter, storeId, status: 'failed' });
    // the quiet store: its own 30 rows at most, whatever the busy one holds (by its index, or, with
    // statistics, its index ANDed with the status index's bitmap)
    const quiet = await statementPlan(client, statement, filtered(quietStoreId), 'custom');
    expect(tableReads(quiet, 'charges').indexes).toContain('charges_store_id_created_on_id_idx');
    expect(rowsRead(quiet, 'charges')).toBeLessThanOrEqual(QUIET);
    // the busy store (nearly all of the merchant's rows: either index serves it): one row in five is
    // failed, so the page's 11 within its newest 55 rows or so (and the quiet store's between them)
    const busy = await statementPlan(client, statement, filtered(busyStoreId), 'custom');
    expect(rowsRead(busy, 'charges')).toBeLessThanOrEqual(5 * (LIMIT + 1) + QUIET + 5);
  });

  it('counts only when asked and the page is full: the quiet store’s rows, never the busy one’s', async () => {
    const statement = registeredStatement('charges_list_store_desc');
    const counted = await statementPlan(
      client,
      statement,
      { ...page(true), storeId: quietStoreId },
      'generic',
    );
    // the page (11) and the count (the quiet store's 30)
    expect(rowsRead(counted, 'charges')).toBeLessThanOrEqual(LIMIT + 1 + QUIET);
    expect(tableReads(counted, 'charges').indexes).toEqual(['charges_store_id_created_on_id_idx']);
  });
});
