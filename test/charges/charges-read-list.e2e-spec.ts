// Reading charges once created: GET by id (held with polling=true while pending), PATCH of the
// metadata, the list with its pages and filters, and another merchant seeing none of it. The real
// gateway in-process, Postgres and Redis; no charge-service, so a test moves a charge in the database.
import { randomUUID } from 'node:crypto';
import { ChargesRepository } from '@kessai/db';
import {
  eventually,
  type GatewayClient,
  outboxEventsOf,
  updateChargeRow,
  useSuite,
  type Credentials,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

/** The failover's bookkeeping is not a Charge's (decision 0056): charge-service and the operator read it. */
const FAILOVER_BOOKKEEPING = {
  fallbackProcessorAccountId: true,
  processorCallsStarted: true,
  processorCallsUnexecuted: true,
  processorFailedOverOn: true,
} as const;

const MAX_WAIT_MS = 1_500;

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: String(MAX_WAIT_MS) },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});
let shopMerchantToken: Credentials;

beforeAll(async () => {
  shopMerchantToken = await suite.env.merchantToken(suite.merchants.shop);
});

describe('reading charges', () => {
  let mine: any;

  beforeAll(async () => {
    mine = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      capture: false,
      metadata: { order_id: 'R-1' },
    });
  });

  it('GET /charges/{id} and /stores/{storeId}/charges/{id} with a store or a merchant token', async () => {
    for (const [path, token] of [
      [`/charges/${mine.id}`, suite.merchants.shop.storeToken],
      [`/charges/${mine.id}`, shopMerchantToken],
      [`/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`, suite.merchants.shop.storeToken],
      [`/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`, shopMerchantToken],
    ] as const) {
      const res = await suite.gateway.as(token).request(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(mine);
    }
  });

  it('another merchant gets 404 on get, list, patch, capture and issuer tokens; malformed ids too', async () => {
    const other = suite.gateway.as(suite.merchants.foreign);
    const paths = [
      `/charges/${mine.id}`,
      `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`,
      `/stores/${suite.merchants.foreign.store.id}/charges/${mine.id}`,
      `/stores/${suite.merchants.shop.store.id}/charges`,
      `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}/issuer_token`,
      `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}/three_ds/issuer_token`,
      `/charges/not-a-uuid`,
      `/stores/not-a-uuid/charges/${mine.id}`,
    ];
    for (const path of paths) {
      const res = await other.request(path);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const patch = await other.request(`/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`, {
      method: 'PATCH',
      json: { metadata: { x: 1 } },
    });
    expect(patch.status).toBe(404);
    await updateChargeRow(suite.env, mine.id, `status = 'authorized', capture_status = 'authorized'`);
    const capture = await other.request(
      `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}/capture`,
      {
        method: 'POST',
        json: { amount: 100, currency: 'JPY' },
      },
    );
    expect(capture.status).toBe(404);
    expect(await suite.env.prisma.capture.count({ where: { chargeId: mine.id } })).toBe(0);
    const list = await other.request('/charges');
    expect(list.body.items.map((c: any) => c.id)).not.toContain(mine.id);
    await updateChargeRow(suite.env, mine.id, `status = 'pending', capture_status = NULL`);
  });

  it('PATCH replaces the metadata, records no event, and validates', async () => {
    const before = (await outboxEventsOf(suite.env, mine.id)).length;
    const path = `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`;
    const res = await suite.api.shop.request(path, {
      method: 'PATCH',
      json: { metadata: { order_id: 'R-2', paid: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, metadata: { order_id: 'R-2', paid: true } });
    expect((await suite.api.shop.request(path)).body.metadata).toEqual({
      order_id: 'R-2',
      paid: true,
    });
    expect((await outboxEventsOf(suite.env, mine.id)).length).toBe(before);

    const bad = await suite.api.shop.request(path, {
      method: 'PATCH',
      json: { metadata: { a: { b: 1 } }, amount: 5 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'metadata.a', reason: 'NESTED_JSON_NOT_ALLOWED' },
        { field: 'amount', reason: 'FORBIDDEN_PARAMETER' },
      ]),
    );
  });

  describe('with polling=true', () => {
    // The gateway re-reads a held charge's status (ChargesRepository.findStatus) until it leaves pending
    // or CHARGE_POLLING_MAX_WAIT_MS has passed on Date.now. The tests watch those reads, and stop the
    // clock the deadline reads, so that only they decide when it passes: no sleep, no timing.
    let statusReads: jest.SpyInstance;
    let clock: jest.SpyInstance | undefined;
    beforeEach(() => {
      statusReads = jest.spyOn(suite.app.get(ChargesRepository), 'findStatus');
    });
    afterEach(() => {
      statusReads.mockRestore();
      clock?.mockRestore();
      clock = undefined;
    });

    const readsOf = (chargeId: string) => statusReads.mock.calls.filter(([id]) => id === chargeId).length;
    /** Stops Date.now (timers still run); `pass(ms)` moves it on. */
    function stopClock() {
      const now = Date.now();
      const stopped = jest.spyOn(Date, 'now').mockReturnValue(now);
      clock = stopped;
      return { pass: (ms: number) => stopped.mockReturnValue(now + ms) };
    }

    it('polling=true holds a pending charge until CHARGE_POLLING_MAX_WAIT_MS, then answers it pending', async () => {
      const path = `/stores/${suite.merchants.shop.store.id}/charges/${mine.id}`;
      const time = stopClock();
      let answered = false;
      const held = suite.api.shop.request(`${path}?polling=true`).finally(() => (answered = true));
      await eventually(() => readsOf(mine.id) >= 2, { what: 'the held GET to re-read the status twice' });

      // the same GET without polling=true answers at once: were it held too, it could not answer while
      // the clock stands still
      const plain = await suite.api.shop.request(path);
      expect(plain.body.status).toBe('pending');
      expect(answered).toBe(false);

      time.pass(MAX_WAIT_MS);
      const res = await held;
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('pending');
    });

    it('polling=true answers as soon as the status leaves pending', async () => {
      const pending = await suite.api.shop.charge(await suite.api.shop.cardToken());
      stopClock(); // the deadline never comes: only the status change can end the wait
      const answer = suite.api.shop.request(`/charges/${pending.id}?polling=true`);
      await eventually(() => readsOf(pending.id) >= 1, { what: 'the GET to be held' });
      await updateChargeRow(
        suite.env,
        pending.id,
        `status = 'successful', charged_amount = 1200, charged_currency = 'JPY', capture_status = 'captured'`,
      );
      const res = await answer;
      expect(res.body).toMatchObject({
        status: 'successful',
        charged_amount: 1200,
        charged_currency: 'JPY',
        charged_amount_formatted: 1200,
        capture_status: 'captured',
      });
    });
  });

  it('refuses a malformed polling value', async () => {
    const res = await suite.api.shop.request(`/charges/${mine.id}?polling=maybe`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'polling', reason: 'INVALID_FORMAT' }]);
  });
});

describe('listing charges', () => {
  let lister: SeededMerchant;
  let listerApi: GatewayClient;
  let recurring: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await suite.env.seedPciMerchant('lister');
    listerApi = suite.gateway.as(lister);
    recurring = await listerApi.cardToken({ type: 'recurring' });
    for (let i = 1; i <= 11; i++) {
      const c = await listerApi.charge(recurring, {
        amount: 100 * i,
        metadata: { order_id: `L-${i}`, n: i },
      });
      ids.push(c.id);
    }
    const usd = await listerApi.charge(await listerApi.cardToken(), { amount: 999, currency: 'USD' });
    ids.push(usd.id);
    await updateChargeRow(
      suite.env,
      ids[0],
      `status = 'failed', error_code = 306, error_message = 'CARD_REJECTED'`,
    );
  });

  const list = (query = '', path = '/charges') => listerApi.request(`${path}${query}`);
  /** the store's charge ids in listing order (created_on, id), newest first */
  const newestFirst = async () =>
    (
      await suite.env.prisma.charge.findMany({
        where: { storeId: lister.store.id },
        orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
        select: { id: true },
      })
    ).map((c) => c.id);

  it('pages with limit and cursor, newest first, total_hits on the first page only', async () => {
    const first = await list('?limit=10');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ has_more: true, total_hits: 12 });
    expect(first.body.items).toHaveLength(10);
    const order = await newestFirst();
    expect(order.sort()).toEqual([...ids].sort());
    const expected = await newestFirst();
    expect(first.body.items.map((c: any) => c.id)).toEqual(expected.slice(0, 10));
    expect(first.body.items[0]).toMatchObject({
      merchant_name: 'lister Merchant',
      store_name: 'lister Store',
    });
    const last = first.body.items[9].id;
    const second = await list(`?limit=10&cursor=${last}`);
    expect(second.body).toEqual({ items: expect.any(Array), has_more: false });
    expect(second.body.items.map((c: any) => c.id)).toEqual(expected.slice(10));
    const asc = await list('?limit=10&cursor_direction=asc');
    expect(asc.body.items[0].id).toBe(expected[11]);
    const store = await list('', `/stores/${lister.store.id}/charges`);
    expect(store.body.total_hits).toBe(12);
  });

  it.each([
    ['?status=failed', 1],
    ['?status=pending', 11],
    ['?currency=usd', 1],
    ['?amount_from=500&amount_to=800', 3],
    ['?mode=test', 12],
    ['?mode=live', 0],
    ['?metadata=order_id:%20L-3', 1],
    ['?metadata=n:7', 1],
  ])('filters %s', async (query, hits) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    expect(res.body.total_hits).toBe(hits);
  });

  it('filters by token and by creation time', async () => {
    expect((await list(`?transaction_token_id=${recurring}`)).body.total_hits).toBe(11);
    await updateChargeRow(suite.env, ids[0], `created_on = now() - interval '2 days'`);
    const since = new Date(Date.now() - 86_400_000).toISOString();
    expect((await list(`?from=${encodeURIComponent(since)}`)).body.total_hits).toBe(11);
    expect((await list(`?to=${encodeURIComponent(since)}`)).body.total_hits).toBe(1);
  });

  it('refuses malformed filters and pages', async () => {
    for (const [query, field] of [
      ['?limit=5', 'limit'],
      ['?status=done', 'status'],
      ['?from=yesterday', 'from'],
      // valid to zod, but no Date holds it
      [`?to=${encodeURIComponent('2026-01-01T00:00:00+25:00')}`, 'to'],
      ['?amount_from=-1', 'amount_from'],
      ['?transaction_token_id=x', 'transaction_token_id'],
      ['?metadata=novalue', 'metadata'],
      [`?cursor=${randomUUID()}`, 'cursor'],
    ]) {
      const res = await list(query);
      expect([query, res.status, res.body.errors[0].field]).toEqual([query, 400, field]);
    }
  });
});

describe('ChargesRepository.findMany (plain SQL, for webhook data)', () => {
  it('reads each charge exactly as Prisma does, every column, and skips unknown ids', async () => {
    const plain = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      metadata: { order: 'A-1', n: 2 },
    });
    const rich = await suite.api.shop.charge(await suite.api.shop.cardToken(), {
      capture: false,
      descriptor: 'SHOP',
      metadata: { big: 12345678901234, text: 'été', flag: true, none: null },
    });
    await updateChargeRow(
      suite.env,
      rich.id,
      `status = 'failed', charged_amount = 1000, charged_currency = 'JPY', fee_amount = 36,
       error_code = 302, error_message = 'card declined', error_detail = 'detail',
       processor_reference = 'ref-1', three_ds = '{"mode":"normal"}'::jsonb,
       issuer_token = '{"issuer_token":"x"}'::jsonb, expires_on = now(), capture_at = now()`,
    );
    const repository = suite.app.get(ChargesRepository);
    const found = await repository.findMany([plain.id, rich.id, randomUUID()]);
    expect(found.map((charge) => charge.id).sort()).toEqual([plain.id, rich.id].sort());
    for (const charge of found) {
      expect(charge).toEqual(
        await suite.env.prisma.charge.findUnique({ where: { id: charge.id }, omit: FAILOVER_BOOKKEEPING }),
      );
    }
  });
});
