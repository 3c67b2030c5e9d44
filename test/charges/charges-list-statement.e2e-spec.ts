// The charge list's plain statement (ChargesRepository.list / listCounted, LIST_CHARGES): the
// (created_on, id) order through ties, both directions, page after page; every filter; one store's
// charges never another's, and a cursor of another store or merchant as unknown as a missing one;
// total_hits from the same statement; each row as Prisma read it before. Real Postgres; rows
// inserted directly, instants and token fields set by SQL.
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { ChargesRepository, type ChargeFilters, type ChargeListItem } from '@kessai/db';
import { ValidationError, type CursorDirection } from '@kessai/domain';
import {
  insertCardToken,
  insertPendingCharge,
  updateChargeRow,
  useSuite,
  type SeededMerchant,
} from '@kessai/testing';

const suite = useSuite();
let client: Client;
let charges: ChargesRepository;
let shop: SeededMerchant;
let otherStoreId: string;
let foreign: SeededMerchant;
/** every charge of the shop's merchant, as Prisma reads them (with the list's relations) */
let all: ChargeListItem[];
let tokenA: string;
let tokenB: string;
const TIE = '2026-06-01T00:00:00.000Z';

const STORE_A = () => ({ storeId: shop.store.id }) satisfies ChargeFilters;

/** The list's order: (created_on, id), newest first unless told. */
function ordered(rows: ChargeListItem[], direction: CursorDirection = 'desc') {
  const sorted = [...rows].sort((a, b) =>
    a.createdOn.getTime() !== b.createdOn.getTime()
      ? a.createdOn.getTime() - b.createdOn.getTime()
      : a.id < b.id
        ? -1
        : 1,
  );
  return direction === 'desc' ? sorted.reverse() : sorted;
}

/** Every page of `filters`, `limit` at a time, through the cursor: the ids in the order read. */
async function walk(merchantId: string, filters: ChargeFilters, direction: CursorDirection, limit: number) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const rows = await charges.list(merchantId, filters, { limit, cursor, direction });
    seen.push(...rows.slice(0, limit).map((row) => row.id));
    if (rows.length <= limit) return seen;
    cursor = rows[limit - 1].id;
  }
  throw new Error('no last page');
}

beforeAll(async () => {
  client = new Client({ connectionString: suite.env.database.url });
  await client.connect();
  suite.cleanup(() => client.end());
  charges = new ChargesRepository(suite.env.prisma);
  shop = await suite.env.seedMerchant('lists');
  foreign = await suite.env.seedMerchant('lists-foreign');
  otherStoreId = (await suite.env.seedStore(shop, 'lists Other Store')).store.id;
  const a = { merchantId: shop.merchant.id, storeId: shop.store.id };
  const b = { merchantId: shop.merchant.id, storeId: otherStoreId };
  tokenA = await insertCardToken(suite.env, a, { cardNumber: '4242424242424242', type: 'recurring' });
  tokenB = await insertCardToken(suite.env, b, { cardNumber: '4000056655665556', type: 'recurring' });
  await client.query(`UPDATE transaction_tokens SET email = 'Buyer_One@Example.test' WHERE id = $1`, [
    tokenA,
  ]);
  await client.query(`UPDATE transaction_tokens SET email = 'buyerxone@example.test' WHERE id = $1`, [
    tokenB,
  ]);
  // store A: 8 charges, 5 of them at one instant (ties broken by id); store B: 3
  for (let i = 0; i < 8; i++) {
    const id = await insertPendingCharge(suite.env, a, tokenA, { amount: 100 * (i + 1) });
    const at = i < 5 ? `'${TIE}'` : `'${TIE}'::timestamptz + interval '${i} minutes'`;
    await updateChargeRow(suite.env, id, `created_on = ${at}`);
  }
  for (let i = 0; i < 3; i++) await insertPendingCharge(suite.env, b, tokenB, { amount: 50 });
  const foreignToken = await insertCardToken(
    suite.env,
    { merchantId: foreign.merchant.id, storeId: foreign.store.id },
    { cardNumber: '4242424242424242' },
  );
  await insertPendingCharge(
    suite.env,
    { merchantId: foreign.merchant.id, storeId: foreign.store.id },
    foreignToken,
  );
  // variety for the filters: a failed one, a USD one, a live one, metadata as text and as number
  const [first, second, third, fourth] = ordered(await readAll(), 'asc').map((row) => row.id);
  await updateChargeRow(suite.env, first, `status = 'failed', metadata = '{"order_id":"A-1","n":7}'`);
  await updateChargeRow(suite.env, second, `requested_currency = 'USD', metadata = '{"n":"7"}'`);
  await updateChargeRow(suite.env, third, `mode = 'live', metadata = '{"n":7.0,"order_id":"a-1"}'`);
  await updateChargeRow(suite.env, fourth, `metadata = '{"order_id":"A%"}'`);
  all = await readAll();
}, 60_000);

function readAll(): Promise<ChargeListItem[]> {
  return suite.env.prisma.charge.findMany({
    // the failover's bookkeeping is not a Charge's (decision 0056): charge-service and the operator read it
    omit: {
      fallbackProcessorAccountId: true,
      processorCallsStarted: true,
      processorCallsUnexecuted: true,
      processorFailedOverOn: true,
    },
    where: { merchantId: shop.merchant.id },
    include: {
      store: { select: { name: true, merchant: { select: { name: true } } } },
      transactionToken: { select: { email: true, paymentType: true } },
    },
  });
}

const inA = () => all.filter((row) => row.storeId === shop.store.id);

describe('order and cursor', () => {
  it.each(['desc', 'asc'] as const)(
    'pages through ties in (created_on, id) order, %s, a page of 2 or 3 at a time',
    async (direction) => {
      for (const limit of [2, 3]) {
        expect(await walk(shop.merchant.id, STORE_A(), direction, limit)).toEqual(
          ordered(inA(), direction).map((row) => row.id),
        );
        expect(await walk(shop.merchant.id, { storeId: null }, direction, limit)).toEqual(
          ordered(all, direction).map((row) => row.id),
        );
      }
    },
  );

  it('reads each row as Prisma did: every column, the store’s and merchant’s names, the token’s fields', async () => {
    const rows = await charges.list(
      shop.merchant.id,
      { storeId: null },
      {
        limit: 100,
        cursor: null,
        direction: 'desc',
      },
    );
    expect(rows).toEqual(ordered(all));
  });

  it('a cursor from the middle of a tie resumes right after it, in both directions', async () => {
    const tied = ordered(inA()).filter((row) => row.createdOn.toISOString() === TIE);
    expect(tied).toHaveLength(5);
    const middle = tied[2].id;
    const desc = await charges.list(shop.merchant.id, STORE_A(), {
      limit: 10,
      cursor: middle,
      direction: 'desc',
    });
    expect(desc.map((row) => row.id)).toEqual(tied.slice(3).map((row) => row.id));
    const asc = await charges.list(shop.merchant.id, STORE_A(), {
      limit: 10,
      cursor: middle,
      direction: 'asc',
    });
    expect(asc.map((row) => row.id)).toEqual(
      ordered(inA(), 'asc')
        .slice(ordered(inA(), 'asc').findIndex((row) => row.id === middle) + 1)
        .map((row) => row.id),
    );
  });
});

describe('isolation', () => {
  it('a store lists its own charges only; the merchant every store’s; another merchant none', async () => {
    const page = { limit: 100, cursor: null, direction: 'desc' } as const;
    const a = await charges.list(shop.merchant.id, STORE_A(), page);
    expect(a.map((row) => row.id).sort()).toEqual(
      inA()
        .map((row) => row.id)
        .sort(),
    );
    const b = await charges.list(shop.merchant.id, { storeId: otherStoreId }, page);
    expect(b).toHaveLength(3);
    expect(new Set(b.map((row) => row.storeId))).toEqual(new Set([otherStoreId]));
    expect(await charges.list(shop.merchant.id, { storeId: null }, page)).toHaveLength(all.length);
    // the shop's store under the foreign merchant: nothing, though the store id is right
    expect(await charges.list(foreign.merchant.id, STORE_A(), page)).toEqual([]);
    const foreignAll = await charges.list(foreign.merchant.id, { storeId: null }, page);
    expect(foreignAll).toHaveLength(1);
  });

  it('a cursor of another store, another merchant or no charge is refused as unknown', async () => {
    const otherStoreCharge = all.find((row) => row.storeId === otherStoreId)!.id;
    const [foreignCharge] = await charges.list(
      foreign.merchant.id,
      { storeId: null },
      {
        limit: 1,
        cursor: null,
        direction: 'desc',
      },
    );
    for (const [merchantId, cursor] of [
      [shop.merchant.id, otherStoreCharge],
      [shop.merchant.id, foreignCharge.id],
      [shop.merchant.id, randomUUID()],
      [foreign.merchant.id, inA()[0].id],
    ]) {
      const filters = merchantId === shop.merchant.id ? STORE_A() : { storeId: null };
      await expect(
        charges.list(merchantId, filters, { limit: 10, cursor, direction: 'desc' }),
      ).rejects.toBeInstanceOf(ValidationError);
    }
    // the merchant's own scope does see the other store's charge as a cursor
    const resumed = await charges.list(
      shop.merchant.id,
      { storeId: null },
      {
        limit: 100,
        cursor: otherStoreCharge,
        direction: 'desc',
      },
    );
    const order = ordered(all).map((row) => row.id);
    expect(resumed.map((row) => row.id)).toEqual(order.slice(order.indexOf(otherStoreCharge) + 1));
  });
});

describe('total_hits', () => {
  it('counts every matching row on a full first page, and is the page itself when it is not full', async () => {
    const full = await charges.listCounted(shop.merchant.id, STORE_A(), {
      limit: 3,
      cursor: null,
      direction: 'desc',
    });
    expect(full.rows).toHaveLength(4);
    expect(full.totalHits).toBe(8);
    const exact = await charges.listCounted(shop.merchant.id, STORE_A(), {
      limit: 8,
      cursor: null,
      direction: 'asc',
    });
    expect([exact.rows.length, exact.totalHits]).toEqual([8, 8]);
    const none = await charges.listCounted(
      shop.merchant.id,
      { storeId: shop.store.id, status: 'successful' },
      {
        limit: 3,
        cursor: null,
        direction: 'desc',
      },
    );
    expect(none).toEqual({ rows: [], totalHits: 0 });
    const filtered = await charges.listCounted(
      shop.merchant.id,
      { storeId: null, currency: 'JPY' },
      {
        limit: 3,
        cursor: null,
        direction: 'desc',
      },
    );
    expect(filtered.totalHits).toBe(all.length - 1);
    const later = await charges.listCounted(shop.merchant.id, STORE_A(), {
      limit: 3,
      cursor: full.rows[2].id,
      direction: 'desc',
    });
    expect(later.totalHits).toBeNull();
  });
});

describe('filters', () => {
  const ids = async (filters: Omit<ChargeFilters, 'storeId'>, storeId: string | null = null) =>
    (
      await charges.list(
        shop.merchant.id,
        { storeId, ...filters },
        {
          limit: 100,
          cursor: null,
          direction: 'desc',
        },
      )
    ).map((row) => row.id);
  const expected = (keep: (row: ChargeListItem) => boolean) => ordered(all.filter(keep)).map((row) => row.id);
  const metadataOf = (row: ChargeListItem) => row.metadata as Record<string, unknown>;

  it.each<[string, Omit<ChargeFilters, 'storeId'>, (row: ChargeListItem) => boolean]>([
    ['status', { status: 'failed' }, (row) => row.status === 'failed'],
    ['mode', { mode: 'live' }, (row) => row.mode === 'live'],
    ['currency', { currency: 'USD' }, (row) => row.requestedCurrency === 'USD'],
    [
      'amount range',
      { amountFrom: 200n, amountTo: 500n },
      (r) => r.requestedAmount >= 200n && r.requestedAmount < 500n,
    ],
    ['token', { transactionTokenId: '' }, () => true],
    // a value as text, and (numeric) as a JSON number too: 7 and 7.0 and "7"
    [
      'metadata as number',
      { metadata: { key: 'n', value: '7' } },
      (r) => [7, '7'].includes(metadataOf(r).n as never),
    ],
    [
      'metadata as text',
      { metadata: { key: 'order_id', value: 'A-1' } },
      (r) => metadataOf(r).order_id === 'A-1',
    ],
    [
      'metadata, no pattern',
      { metadata: { key: 'order_id', value: 'A%' } },
      (r) => metadataOf(r).order_id === 'A%',
    ],
    ['payment type', { paymentType: 'card' }, () => true],
    ['payment type, none', { paymentType: 'konbini' }, () => false],
    // exactly, whatever the case; `_` is a character, not a pattern (buyerxone is not Buyer_One)
    ['email', { email: 'buyer_one@example.TEST' }, (row) => row.transactionTokenId === tokenA],
    ['card last four', { cardLastFour: '5556' }, (row) => row.transactionTokenId === tokenB],
    ['subscription, none', { subscriptionId: randomUUID() }, () => false],
    ['scheduled payment, none', { scheduledPaymentId: randomUUID() }, () => false],
  ])('%s', async (_name, filters, keep) => {
    expect(await ids(filters)).toEqual(expected(keep));
  });

  it('by token, within a store, and by the created_on range with a cursor inside it', async () => {
    expect(await ids({ transactionTokenId: tokenB })).toEqual(
      expected((r) => r.transactionTokenId === tokenB),
    );
    expect(await ids({ transactionTokenId: tokenB }, shop.store.id)).toEqual([]);
    // from inclusive, to exclusive: the tie's instant is in [TIE, TIE + 6 min)
    const range = { from: new Date(TIE), to: new Date(Date.parse(TIE) + 6 * 60_000) };
    const inRange = ordered(inA()).filter((row) => row.createdOn >= range.from && row.createdOn < range.to);
    expect(inRange).toHaveLength(6);
    expect(await ids(range, shop.store.id)).toEqual(inRange.map((row) => row.id));
    for (const direction of ['desc', 'asc'] as const) {
      const walked = await walk(shop.merchant.id, { storeId: shop.store.id, ...range }, direction, 2);
      expect(walked).toEqual(ordered(inRange, direction).map((row) => row.id));
    }
    // a cursor outside the range narrows nothing past the range
    const newest = ordered(inA())[0];
    expect(newest.createdOn >= range.to).toBe(true);
    const fromOutside = await charges.list(
      shop.merchant.id,
      { storeId: shop.store.id, ...range },
      {
        limit: 10,
        cursor: newest.id,
        direction: 'desc',
      },
    );
    expect(fromOutside.map((row) => row.id)).toEqual(inRange.map((row) => row.id));
  });
});
