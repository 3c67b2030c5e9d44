// GET /transaction_history and /stores/{storeId}/transaction_history over raw HTTP: charges and
// refunds as one ledger, its pages (rows sharing a timestamp in both tables), filters, scopes and
// refusals, and the plan of its statement. The real gateway in-process; rows written directly (the
// refunds API is not there yet).
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { registeredStatements, type Store } from '@kessai/db';
import {
  type GatewayClient,
  insertCardToken,
  insertPendingCharge,
  insertRefund,
  planNodes,
  updateChargeRow,
  useSuite,
  type Credentials,
  type PlanNode,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

interface Entry {
  id: string;
  type: 'charge' | 'refund';
  storeId: string;
  createdOn: Date;
  status: string;
  mode: string;
}

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'history' }, foreign: { pci: true, label: 'history-foreign' } },
});
let otherStore: Store;
let otherStoreToken: Credentials;
let merchantApi: GatewayClient;
/** every charge and refund of the shop, both stores */
const ledger: Entry[] = [];
let foreignChargeId: string;

const BASE = Date.parse('2026-03-01T00:00:00.000Z');
const minute = (n: number) => new Date(BASE + n * 60_000);
/** the minute at which two charges and two refunds share a timestamp */
const TIE = 20;

/** newest first: created_on, then id (uuid text sorts as Postgres sorts uuids) */
function newestFirst(entries: Entry[]): string[] {
  return [...entries]
    .sort((a, b) => b.createdOn.getTime() - a.createdOn.getTime() || (a.id < b.id ? 1 : -1))
    .map((entry) => entry.id);
}

async function chargeAt(
  store: { merchantId: string; storeId: string },
  tokenId: string,
  at: Date,
  set: { status?: string; mode?: 'test' | 'live'; charged?: number } = {},
): Promise<string> {
  const id = await insertPendingCharge(suite.env, store, tokenId, {
    requested: false,
    amount: 1200,
    mode: set.mode,
  });
  const columns = [`created_on = '${at.toISOString()}'`];
  if (set.status) columns.push(`status = '${set.status}'`);
  if (set.charged !== undefined) columns.push(`charged_amount = ${set.charged}, charged_currency = 'JPY'`);
  await updateChargeRow(suite.env, id, columns.join(', '));
  ledger.push({
    id,
    type: 'charge',
    storeId: store.storeId,
    createdOn: at,
    status: set.status ?? 'pending',
    mode: set.mode ?? 'test',
  });
  return id;
}

async function refundAt(chargeId: string, at: Date, status: 'pending' | 'successful' | 'failed' | 'error') {
  const id = await insertRefund(suite.env, chargeId, {
    amount: 300,
    status,
    createdOn: at,
    metadata: { why: status },
  });
  const charge = ledger.find((entry) => entry.id === chargeId)!;
  ledger.push({ id, type: 'refund', storeId: charge.storeId, createdOn: at, status, mode: charge.mode });
  return id;
}

/** Follows the cursor from the first page to the last; every resource id in order, and the pages. */
async function walk(api: GatewayClient, path: string, query: Record<string, string> = {}) {
  const ids: string[] = [];
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const params = new URLSearchParams({ limit: '10', ...query, ...(cursor ? { cursor } : {}) });
    const res = await api.request(`${path}?${params.toString()}`);
    expect([res.status, res.text]).toEqual([200, expect.any(String)]);
    const page = (res.body.items as { resource_id: string }[]).map((item) => item.resource_id);
    pages.push(page);
    ids.push(...page);
    if (!res.body.has_more) return { ids, pages };
    expect(page).toHaveLength(Number(params.get('limit')));
    cursor = page[page.length - 1];
    if (pages.length > 20) throw new Error('the cursor does not advance');
  }
}

beforeAll(async () => {
  merchantApi = suite.gateway.as(await suite.env.merchantToken(suite.merchants.shop));
  ({ store: otherStore, storeToken: otherStoreToken } = await suite.env.seedStore(
    suite.merchants.shop,
    'history Store B',
  ));

  const storeA = { merchantId: suite.merchants.shop.merchant.id, storeId: suite.merchants.shop.store.id };
  const storeB = { merchantId: suite.merchants.shop.merchant.id, storeId: otherStore.id };
  // through the API: the token has the customer's email and cardholder (user_data)
  const cardToken = await suite.gateway.as(suite.merchants.shop).cardToken();
  const tokenB = await insertCardToken(suite.env, storeB, { cardNumber: '4000056655665556' });

  // store A, older: charges at minutes 1–10, refunds of the first at 11 and 12
  const old: string[] = [];
  for (let n = 1; n <= 10; n++) old.push(await chargeAt(storeA, cardToken, minute(n)));
  await updateChargeRow(
    suite.env,
    old[0],
    `status = 'successful', charged_amount = 1200, charged_currency = 'JPY'`,
  );
  ledger[0].status = 'successful';
  await refundAt(old[0], minute(11), 'pending');
  await refundAt(old[0], minute(12), 'error');
  // store B in between
  await chargeAt(storeB, tokenB, minute(15), { status: 'successful', charged: 1200 });
  await chargeAt(storeB, tokenB, minute(16));
  await refundAt(ledger[ledger.length - 2].id, minute(17), 'successful');
  // two charges and two refunds at one instant
  await chargeAt(storeA, cardToken, minute(TIE));
  await chargeAt(storeA, cardToken, minute(TIE), { status: 'successful', charged: 1200 });
  await refundAt(old[0], minute(TIE), 'successful');
  await refundAt(old[0], minute(TIE), 'failed');
  // store A, newest: 8 charges, so that the first page of 10 ends inside the tie
  await chargeAt(storeA, cardToken, minute(30));
  await chargeAt(storeA, cardToken, minute(31));
  await chargeAt(storeA, cardToken, minute(32));
  await chargeAt(storeA, cardToken, minute(33));
  await chargeAt(storeA, cardToken, minute(34), { mode: 'live' });
  await chargeAt(storeA, cardToken, minute(35), { status: 'authorized' });
  await chargeAt(storeA, cardToken, minute(36), { status: 'failed' });
  await chargeAt(storeA, cardToken, minute(37), { status: 'successful', charged: 1000 });

  const foreignToken = await insertCardToken(suite.env, suite.merchants.foreign, {
    cardNumber: '4000056655665556',
  });
  foreignChargeId = await insertPendingCharge(suite.env, suite.merchants.foreign, foreignToken, {
    requested: false,
  });
  await updateChargeRow(suite.env, foreignChargeId, `created_on = '${minute(18).toISOString()}'`);
});

describe('transaction history pages', () => {
  it('lists both stores newest first, across pages that split rows sharing a timestamp, never twice', async () => {
    const expected = newestFirst(ledger);
    const { ids, pages } = await walk(merchantApi, '/transaction_history');
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ledger.length);
    // the first page ends inside the tie (8 newer items, then 2 of the 4 at minute TIE)
    const tie = ledger
      .filter((entry) => entry.createdOn.getTime() === minute(TIE).getTime())
      .map((e) => e.id);
    expect(tie).toHaveLength(4);
    expect(new Set(ledger.filter((e) => tie.includes(e.id)).map((e) => e.type))).toEqual(
      new Set(['charge', 'refund']),
    );
    expect(pages[0].filter((id) => tie.includes(id))).toHaveLength(2);
    expect(pages[1].filter((id) => tie.includes(id))).toHaveLength(2);
  });

  it('walks oldest first with cursor_direction=asc, a cursor inside the tie included', async () => {
    const expected = newestFirst(ledger).reverse();
    const { ids } = await walk(merchantApi, '/transaction_history', { cursor_direction: 'asc' });
    expect(ids).toEqual(expected);
    // from each item of the tie, the rest follows in either direction
    for (const direction of ['asc', 'desc'] as const) {
      const order = direction === 'asc' ? expected : [...expected].reverse();
      for (const entry of ledger.filter((e) => e.createdOn.getTime() === minute(TIE).getTime())) {
        const res = await merchantApi.request(
          `/transaction_history?limit=100&cursor_direction=${direction}&cursor=${entry.id}`,
        );
        const at = order.indexOf(entry.id);
        expect(res.body.items.map((item: { resource_id: string }) => item.resource_id)).toEqual(
          order.slice(at + 1),
        );
        expect(res.body.has_more).toBe(false);
      }
    }
  });

  it('answers the fields of §5.6 for a charge and a refund', async () => {
    const res = await merchantApi.request('/transaction_history?limit=100');
    const newest = ledger.find((e) => e.createdOn.getTime() === minute(37).getTime())!;
    const charge = res.body.items.find((item: { resource_id: string }) => item.resource_id === newest.id);
    expect(charge).toEqual({
      store_id: suite.merchants.shop.store.id,
      resource_id: newest.id,
      charge_id: newest.id,
      amount: 1000,
      currency: 'JPY',
      amount_formatted: 1000,
      type: 'charge',
      status: 'successful',
      metadata: {},
      created_on: minute(37).toISOString(),
      mode: 'test',
      merchant_name: 'history Merchant',
      payment_type: 'card',
      user_data: { email: 'buyer@example.test', cardholder_name: 'Taro Yamada' },
    });
    const refund = ledger.find((e) => e.type === 'refund' && e.storeId === otherStore.id)!;
    const refundItem = res.body.items.find((item: { resource_id: string }) => item.resource_id === refund.id);
    const refunded = await suite.env.prisma.refund.findUniqueOrThrow({ where: { id: refund.id } });
    expect(refundItem).toEqual({
      store_id: otherStore.id,
      resource_id: refund.id,
      charge_id: refunded.chargeId,
      amount: 300,
      currency: 'JPY',
      amount_formatted: 300,
      type: 'refund',
      status: 'successful',
      metadata: { why: 'successful' },
      created_on: minute(17).toISOString(),
      mode: 'test',
      merchant_name: 'history Merchant',
      payment_type: 'card',
      // a token written without an email: the cardholder only
      user_data: { email: null, cardholder_name: 'TARO YAMADA' },
    });
  });

  it('user_data is null when the token knows neither email nor cardholder', async () => {
    const scope = {
      merchantId: suite.merchants.foreign.merchant.id,
      storeId: suite.merchants.foreign.store.id,
    };
    const token = await suite.env.prisma.transactionToken.create({
      data: { ...scope, mode: 'test', type: 'one_time', paymentType: 'qr_scan', data: {} },
    });
    const chargeId = await insertPendingCharge(suite.env, scope, token.id, { requested: false });
    const res = await suite.gateway.as(suite.merchants.foreign).request('/transaction_history');
    const item = res.body.items.find((entry: { resource_id: string }) => entry.resource_id === chargeId);
    expect(item).toMatchObject({ payment_type: 'qr_scan', user_data: null });
  });
});

describe('transaction history filters', () => {
  const cases: [string, Record<string, string>, (entry: Entry) => boolean][] = [
    ['type=charge', { type: 'charge' }, (e) => e.type === 'charge'],
    ['type=refund', { type: 'refund' }, (e) => e.type === 'refund'],
    ['status=successful (both types)', { status: 'successful' }, (e) => e.status === 'successful'],
    ['status=failed', { status: 'failed' }, (e) => e.status === 'failed'],
    ['status=authorized', { status: 'authorized' }, (e) => e.status === 'authorized'],
    [
      'type=refund&status=error',
      { type: 'refund', status: 'error' },
      (e) => e.type === 'refund' && e.status === 'error',
    ],
    ['mode=live', { mode: 'live' }, (e) => e.mode === 'live'],
    ['mode=test', { mode: 'test' }, (e) => e.mode === 'test'],
  ];

  it.each(cases)('%s', async (_name, query, keep) => {
    const expected = newestFirst(ledger.filter(keep));
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ledger.length);
    expect((await walk(merchantApi, '/transaction_history', query)).ids).toEqual(expected);
  });

  it('from (≥) and to (<) bound created_on, in both directions and across pages', async () => {
    // minute 11 (a refund) is in, minute 33 (a charge) is out; the tie is inside
    const from = minute(11).toISOString();
    const to = minute(33).toISOString();
    const inRange = ledger.filter((e) => e.createdOn >= minute(11) && e.createdOn < minute(33));
    expect(inRange.length).toBeGreaterThan(10);
    const expected = newestFirst(inRange);
    expect((await walk(merchantApi, '/transaction_history', { from, to })).ids).toEqual(expected);
    expect(
      (await walk(merchantApi, '/transaction_history', { from, to, cursor_direction: 'asc' })).ids,
    ).toEqual([...expected].reverse());
    // an offset other than Z names the same instant
    const tokyo = '2026-03-01T09:11:00+09:00';
    expect((await walk(merchantApi, '/transaction_history', { from: tokyo, to })).ids).toEqual(expected);
    // to alone, from alone
    expect((await walk(merchantApi, '/transaction_history', { to: minute(11).toISOString() })).ids).toEqual(
      newestFirst(ledger.filter((e) => e.createdOn < minute(11))),
    );
    expect((await walk(merchantApi, '/transaction_history', { from: minute(33).toISOString() })).ids).toEqual(
      newestFirst(ledger.filter((e) => e.createdOn >= minute(33))),
    );
  });
});

describe('transaction history scope', () => {
  it('GET /stores/{id}/transaction_history lists that store only, for a merchant or its store token', async () => {
    for (const [storeId, api] of [
      [suite.merchants.shop.store.id, merchantApi],
      [suite.merchants.shop.store.id, suite.gateway.as(suite.merchants.shop)],
      [otherStore.id, merchantApi],
      [otherStore.id, suite.gateway.as(otherStoreToken)],
    ] as const) {
      const expected = newestFirst(ledger.filter((e) => e.storeId === storeId));
      expect((await walk(api, `/stores/${storeId}/transaction_history`)).ids).toEqual(expected);
    }
  });

  it('a store token sees its store on /transaction_history, and 404 on another store', async () => {
    const mine = newestFirst(ledger.filter((e) => e.storeId === otherStore.id));
    expect((await walk(suite.gateway.as(otherStoreToken), '/transaction_history')).ids).toEqual(mine);
    const res = await suite.gateway
      .as(otherStoreToken)
      .request(`/stores/${suite.merchants.shop.store.id}/transaction_history`);
    expect([res.status, res.body.code]).toEqual([404, 'NOT_FOUND']);
    // a cursor of the other store is unknown in this scope
    const elsewhere = ledger.find((e) => e.storeId === suite.merchants.shop.store.id)!;
    const cursor = await suite.gateway
      .as(otherStoreToken)
      .request(`/transaction_history?cursor=${elsewhere.id}`);
    expect([cursor.status, cursor.body.errors]).toEqual([400, [{ field: 'cursor', reason: 'NOT_FOUND' }]]);
  });

  it("another merchant: 404 on the shop's store, none of its rows, its cursors unknown", async () => {
    const other = suite.gateway.as(suite.merchants.foreign);
    for (const path of [
      `/stores/${suite.merchants.shop.store.id}/transaction_history`,
      `/stores/${otherStore.id}/transaction_history`,
      `/stores/${randomUUID()}/transaction_history`,
      '/stores/not-a-uuid/transaction_history',
    ]) {
      const res = await other.request(path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const { ids } = await walk(other, '/transaction_history');
    expect(ids).toContain(foreignChargeId);
    expect(ids.filter((id) => ledger.some((e) => e.id === id))).toEqual([]);
    const cursor = await other.request(`/transaction_history?cursor=${ledger[0].id}`);
    expect([cursor.status, cursor.body.errors]).toEqual([400, [{ field: 'cursor', reason: 'NOT_FOUND' }]]);
  });

  it('needs a secret-bearing app token', async () => {
    const res = await suite.gateway.request('/transaction_history');
    expect([res.status, res.body.code]).toEqual([401, 'AUTH_HEADER_MISSING']);
  });
});

describe('transaction history refusals', () => {
  it.each([
    ['limit=5', 'limit', 'NOT_WITHIN_BOUNDS'],
    ['limit=101', 'limit', 'NOT_WITHIN_BOUNDS'],
    ['limit=ten', 'limit', 'INVALID_FORMAT'],
    ['cursor=nope', 'cursor', 'INVALID_UUID'],
    [`cursor=${randomUUID()}`, 'cursor', 'NOT_FOUND'],
    ['cursor_direction=up', 'cursor_direction', 'INVALID_FORMAT'],
    ['type=capture', 'type', 'INVALID_FORMAT'],
    ['status=done', 'status', 'INVALID_FORMAT'],
    ['mode=production', 'mode', 'INVALID_FORMAT'],
    ['from=yesterday', 'from', 'INVALID_FORMAT'],
    ['to=2026-03-01', 'to', 'INVALID_FORMAT'],
    ['to=2026-03-01T00:00:00', 'to', 'INVALID_FORMAT'],
  ])('%s → 400 naming %s', async (query, field, reason) => {
    for (const path of [
      '/transaction_history',
      `/stores/${suite.merchants.shop.store.id}/transaction_history`,
    ]) {
      const res = await merchantApi.request(`${path}?${query}`);
      expect([res.status, res.body]).toEqual([
        400,
        { status: 'error', code: 'VALIDATION_ERROR', errors: [{ field, reason }] },
      ]);
    }
  });
});

describe('transaction history cursor of two resources', () => {
  it('a charge and a refund of one id (never made by random ids) both listed; the id as a cursor is 400', async () => {
    const refundId = await insertRefund(suite.env, foreignChargeId, {
      id: foreignChargeId,
      createdOn: minute(19),
    });
    expect(refundId).toBe(foreignChargeId);
    const other = suite.gateway.as(suite.merchants.foreign);
    const items = (await other.request('/transaction_history?limit=100')).body.items as {
      resource_id: string;
      type: string;
    }[];
    expect(items.filter((item) => item.resource_id === foreignChargeId).map((item) => item.type)).toEqual([
      'refund',
      'charge',
    ]);
    const res = await other.request(`/transaction_history?cursor=${foreignChargeId}`);
    expect([res.status, res.body.errors]).toEqual([400, [{ field: 'cursor', reason: 'AMBIGUOUS' }]]);
  });
});

describe('transaction history plan', () => {
  let client: Client;

  beforeAll(async () => {
    // a merchant with thousands of rows in each table, so that the planner's choice is a real one;
    // the store listed holds 1 % of them (with most of them, its index and the merchant's are worth
    // about the same, and the planner may take either)
    const bulk = await suite.env.seedMerchant('history-bulk');
    const scope = { merchantId: bulk.merchant.id, storeId: bulk.store.id };
    const second = await suite.env.admin.createStore({
      merchantId: bulk.merchant.id,
      name: 'history-bulk Store B',
    });
    const token = await insertCardToken(suite.env, scope, { cardNumber: '4000056655665556' });
    const charge = await insertPendingCharge(suite.env, scope, token, { requested: false });
    client = new Client({ connectionString: suite.env.database.url });
    await client.connect();
    const storeOfRow = `CASE WHEN i % 100 = 0 THEN $2::uuid ELSE $3::uuid END`;
    await client.query(
      `INSERT INTO charges (merchant_id, store_id, transaction_token_id, transaction_token_type, mode,
                            requested_amount, requested_currency, created_on)
       SELECT $1, ${storeOfRow}, $4, 'one_time', 'test', 100, 'JPY', now() - i * interval '1 second'
         FROM generate_series(1, 10000) i`,
      [scope.merchantId, scope.storeId, second.id, token],
    );
    await client.query(
      `INSERT INTO refunds (merchant_id, store_id, charge_id, mode, amount, currency, created_on)
       SELECT $1, ${storeOfRow}, $4, 'test', 1, 'JPY', now() - i * interval '1 second'
         FROM generate_series(1, 10000) i`,
      [scope.merchantId, scope.storeId, second.id, charge],
    );
    await client.query('ANALYZE charges; ANALYZE refunds');
  });

  afterAll(async () => {
    await client?.end();
  });

  it.each([
    ['merchant', 'desc'],
    ['merchant', 'asc'],
    ['store', 'desc'],
    ['store', 'asc'],
  ] as const)(
    '%s scope, %s: each branch reads its (scope, created_on, id) index in order, bounded, unsorted',
    async (scope, direction) => {
      const statement = registeredStatements().find(
        (s) => s.name === `transaction_history_${scope}_${direction}`,
      )!;
      const bulk = await suite.env.prisma.merchant.findFirstOrThrow({
        where: { name: 'history-bulk Merchant' },
        include: { stores: { where: { name: 'history-bulk Store' } } },
      });
      const params = {
        merchantId: bulk.id,
        includeCharges: true,
        includeRefunds: true,
        status: null,
        mode: null,
        lowerOn: '-infinity',
        lowerId: '00000000-0000-0000-0000-000000000000',
        upperOn: new Date(Date.now() - 60_000).toISOString(),
        upperId: '00000000-0000-0000-0000-000000000000',
        take: 11,
        ...(scope === 'store' ? { storeId: bulk.stores[0].id } : {}),
      };
      // as PrismaService.run sends it: unnamed, planned with its values (the statement is `replan`)
      expect(statement.replan).toBe(true);
      const values = statement.encode(params);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        text: `EXPLAIN (FORMAT JSON) ${statement.text}`,
        values,
      });
      const all = planNodes(rows[0]['QUERY PLAN'][0].Plan);
      const merge = all.filter((node) => node['Node Type'] === 'Merge Append');
      expect(merge).toHaveLength(1);
      for (const [table, alias] of [
        ['charges', 'c'],
        ['refunds', 'r'],
      ]) {
        // under the merge: Limit → Index Scan of the scope's index, in the listing's order
        const branch = planNodes(merge[0]).filter((node) => node['Alias'] === alias);
        expect([table, branch.map((node) => [node['Node Type'], node['Index Name']])]).toEqual([
          table,
          [['Index Scan', `${table}_${scope}_id_created_on_id_idx`]],
        ]);
        expect(branch[0]['Scan Direction']).toBe(direction === 'desc' ? 'Forward' : 'Backward');
        // the scope and both keyset bounds are index conditions, not filters
        const condition = String(branch[0]['Index Cond']);
        expect(condition).toContain(`${scope}_id =`);
        expect(condition).toMatch(/ROW\(created_on, id\) > ROW/);
        expect(condition).toMatch(/ROW\(created_on, id\) < ROW/);
        const parent = planNodes(merge[0]).find((node) => node.Plans?.includes(branch[0]));
        expect(parent?.['Node Type']).toBe('Limit');
      }
    },
  );
});
