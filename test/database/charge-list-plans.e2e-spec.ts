// A charges list filtered by the card's last four or by a metadata entry (the console's payments
// list, GET /charges) reads an index, never every charge of the merchant: the last four through
// (merchant_id, card_last_four, created_on, id), newest first and bounded by the page; metadata
// through the GIN index that `@>` reads. Each only ever answers the merchant's own charges. Here a
// merchant of BULK charges on two cards beside another merchant with the same card and metadata;
// `npm run bench:console` reads the same plans on 1,000,000 charges.
import type { Client } from 'pg';
import { ChargesRepository } from '@kessai/db';
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

const BULK = 20_000;
const LIST = registeredStatement('charges_list_merchant_filtered_desc');
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const CARD = '4000056655665556';
const OTHER_CARD = '4242424242424242';

const suite = useSuite();
let client: Client;
let busyId: string;
let otherId: string;

/** The list's filters as the filtered statement's parameters: every one absent unless given. */
const filters = (merchantId: string, { from, ...given }: Record<string, unknown>) => ({
  merchantId,
  lowerOn: from instanceof Date ? from.toISOString() : '-infinity',
  lowerId: NIL_UUID,
  upperOn: 'infinity',
  upperId: NIL_UUID,
  take: 11,
  countAll: false,
  status: null,
  mode: null,
  transactionTokenId: null,
  subscriptionId: null,
  scheduledPaymentId: null,
  currency: null,
  amountFrom: null,
  amountTo: null,
  metadata: null,
  metadataNumber: null,
  cardLastFour: null,
  paymentType: null,
  email: null,
  ...given,
});

/** `count` charges of the scope on `token`, one a minute back, one in ten failed, every hundredth with an order. */
async function bulkCharges(scope: { merchantId: string; storeId: string }, token: string, count: number) {
  await client.query(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                          requested_amount, requested_currency, status, metadata, created_on)
     SELECT $1, $2, $3, 'one_time', 'test', 100, 'JPY',
            CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'successful' END::charge_status,
            CASE WHEN i % 100 = 0 THEN jsonb_build_object('order', 'order-' || i) ELSE '{}' END,
            now() - i * interval '1 minute'
       FROM generate_series(1, ${count}) i`,
    [scope.merchantId, scope.storeId, token],
  );
}

beforeAll(async () => {
  client = await suiteClient(suite);
  const busy = await suite.env.seedMerchant('list-plan-busy');
  const other = await suite.env.seedMerchant('list-plan-other');
  busyId = busy.merchant.id;
  otherId = other.merchant.id;
  const scope = { merchantId: busyId, storeId: busy.store.id };
  await bulkCharges(scope, await insertCardToken(suite.env, busy, { cardNumber: CARD }), BULK / 2);
  await bulkCharges(scope, await insertCardToken(suite.env, busy, { cardNumber: OTHER_CARD }), BULK / 2);
  // the other merchant: the same card's last four and the same orders
  await bulkCharges(
    { merchantId: otherId, storeId: other.store.id },
    await insertCardToken(suite.env, other, { cardNumber: CARD }),
    1_000,
  );
  await client.query('ANALYZE charges; ANALYZE transaction_tokens');
}, 120_000);

it('gives every charge its card token’s last four as it is inserted, whatever the statement says', async () => {
  const seeded = await suite.env.seedMerchant('list-plan-insert');
  const token = await insertCardToken(suite.env, seeded, { cardNumber: OTHER_CARD });
  const id = await insertPendingCharge(suite.env, seeded, token, { requested: false });
  const { rows } = await client.query(
    `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                          requested_amount, requested_currency, card_last_four)
     VALUES ($1, $2, $3, 'one_time', 'test', 100, 'JPY', '0000') RETURNING card_last_four`,
    [seeded.merchant.id, seeded.store.id, token],
  );
  expect(rows).toEqual([{ card_last_four: '4242' }]);
  const listed = await new ChargesRepository(suite.env.prisma).list(
    seeded.merchant.id,
    { storeId: null, cardLastFour: '4242' },
    { limit: 10, cursor: null, direction: 'desc' },
  );
  expect(listed.map((charge) => charge.cardLastFour)).toEqual(['4242', '4242']);
  expect(listed.map((charge) => charge.id)).toContain(id);
});

it("reads a card's newest charges through the merchant's card index, bounded by the page", async () => {
  const since = new Date(Date.now() - 365 * 86_400_000);
  const plan = await statementPlan(
    client,
    LIST,
    filters(busyId, { cardLastFour: '5556', status: 'failed', from: since }),
    'custom',
  );
  expect(tableReads(plan, 'charges').indexes).toEqual([
    'charges_merchant_id_card_last_four_created_on_id_idx',
  ]);
  // the page's 11 failed charges among the card's newest, one in ten failed: never the merchant's all
  expect(rowsRead(plan, 'charges')).toBeLessThanOrEqual(200);
  expect(
    plan.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'charges'),
  ).toEqual([]);
  const { rows } = await client.query<{ merchant_id: string; card_last_four: string; status: string }>(
    LIST.text,
    LIST.encode(filters(busyId, { cardLastFour: '5556', status: 'failed', from: since })),
  );
  expect(rows).toHaveLength(11);
  expect(new Set(rows.map((row) => `${row.merchant_id} ${row.card_last_four} ${row.status}`))).toEqual(
    new Set([`${busyId} 5556 failed`]),
  );
});

it('reads a metadata entry through the GIN index, and only the merchant’s own charges', async () => {
  const metadata = { order: 'order-500' };
  const plan = await statementPlan(client, LIST, filters(busyId, { metadata }), 'custom');
  expect(tableReads(plan, 'charges').indexes).toEqual(['charges_metadata_idx']);
  // the order's charges of both merchants (each has an order-500), never every charge
  expect(rowsRead(plan, 'charges')).toBeLessThanOrEqual(10);
  expect(
    plan.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'charges'),
  ).toEqual([]);
  for (const merchantId of [busyId, otherId]) {
    const { rows } = await client.query<{ merchant_id: string; metadata: unknown }>(
      LIST.text,
      LIST.encode(filters(merchantId, { metadata })),
    );
    // each card of the busy merchant has an order-500; the other merchant's one card too
    expect(rows.map((row) => [row.merchant_id, row.metadata])).toEqual(
      Array.from({ length: merchantId === busyId ? 2 : 1 }, () => [merchantId, metadata]),
    );
  }
});
