// The gateway side of charges (docs/charges.md) against the real gateway in-process, Postgres and
// Redis. No charge-service runs here: charges stay pending unless a test moves them in the database.
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client as PgClient } from 'pg';
import SDK from 'univapay-node';
import { luhnCheckDigit } from '@kessai/cards';
import {
  CAPTURE_REQUESTED,
  CHARGE_FINISHED,
  CHARGE_REQUESTED,
  PROCESSOR_NOTICE_RECEIVED,
} from '@kessai/contracts';
import {
  ChargesRepository,
  PrismaService,
  limitScopeKey,
  type ChargeCreation,
  type CreateChargeOptions,
  type DailyQuota,
} from '@kessai/db';
import { DAILY_QUOTAS, utcDay } from '@kessai/domain';
import { PROCESSOR_SIGNATURE_HEADER, signProcessorCallback } from '@kessai/processor';
import { bearer, RELAXED_RATE_LIMITS, requestJson, TestEnvironment, type JsonRequest } from '@kessai/testing';
import { createGatewayApp } from '../apps/gateway/src/app.factory';

type Seeded = Awaited<ReturnType<TestEnvironment['seedMerchant']>>;
type Token = { secret: string; jwt: string };

const MAX_WAIT_MS = 1_500;
const NEXT_YEAR = new Date().getUTCFullYear() + 1;
const PAN = '4000056655665556';
/** Luhn-valid and not a catalogue test card: what live mode takes */
const REAL_PAN = `453201511283036${luhnCheckDigit('453201511283036')}`;

let env: TestEnvironment;
let app: NestFastifyApplication;
let baseUrl: string;
let shop: Seeded;
let foreign: Seeded;
let shopMerchantToken: Token;

const CHARGE_FIELDS = [
  'id',
  'merchant_id',
  'store_id',
  'ledger_id',
  'subscription_id',
  'transaction_token_id',
  'transaction_token_type',
  'mcp_token_id',
  'requested_amount',
  'requested_currency',
  'requested_amount_formatted',
  'charged_amount',
  'charged_currency',
  'charged_amount_formatted',
  'fee_amount',
  'fee_currency',
  'fee_amount_formatted',
  'only_direct_currency',
  'capture_at',
  'capture_status',
  'descriptor',
  'status',
  'error',
  'three_ds',
  'redirect',
  'metadata',
  'mode',
  'created_on',
].sort();

const call = (path: string, init: JsonRequest = {}) => requestJson(baseUrl, path, init);
const as = (token: Token) => bearer(token);

async function createToken(seeded: Seeded | Token, body: Record<string, unknown>) {
  const token = 'storeToken' in seeded ? seeded.storeToken : seeded;
  const res = await call('/tokens', { method: 'POST', auth: as(token), json: body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const card = (cardNumber = PAN) => ({
  cardholder: 'Taro Yamada',
  card_number: cardNumber,
  exp_month: 12,
  exp_year: NEXT_YEAR,
  cvv: '123',
});

const cardToken = (seeded: Seeded | Token = shop, type = 'one_time', cardNumber = PAN) =>
  createToken(seeded, { payment_type: 'card', type, email: 'buyer@example.test', data: card(cardNumber) });

const onlineToken = (seeded: Seeded = shop) =>
  createToken(seeded, {
    payment_type: 'online',
    type: 'one_time',
    email: 'buyer@example.test',
    data: { brand: 'pay_pay_online' },
  });

function postCharge(json: unknown, token: Token = shop.storeToken, key?: string) {
  return call('/charges', { method: 'POST', auth: as(token), json, key });
}

async function charge(tokenId: string, extra: Record<string, unknown> = {}, token: Token = shop.storeToken) {
  const res = await postCharge(
    { transaction_token_id: tokenId, amount: 1200, currency: 'JPY', ...extra },
    token,
  );
  expect(res.status).toBe(201);
  return res.body;
}

const eventsOf = (chargeId: string) =>
  env.prisma.outboxEvent.findMany({ where: { aggregateId: chargeId }, orderBy: { sequence: 'asc' } });

/** The transaction that last wrote a row: equal for rows written in one transaction. */
async function writerOf(table: 'charges' | 'outbox_events' | 'transaction_tokens', id: string) {
  const rows = await env.prisma.$queryRawUnsafe<{ xmin: string }[]>(
    `SELECT xmin::text AS xmin FROM ${table} WHERE id = $1::uuid`,
    id,
  );
  return rows[0]?.xmin;
}

const setCharge = (id: string, columns: string) =>
  env.prisma.$executeRawUnsafe(`UPDATE charges SET ${columns} WHERE id = $1::uuid`, id);

beforeAll(async () => {
  env = await TestEnvironment.create({
    ...RELAXED_RATE_LIMITS,
    CHARGE_POLLING_MAX_WAIT_MS: String(MAX_WAIT_MS),
  });
  app = await createGatewayApp(env.config);
  await app.listen(0, '127.0.0.1');
  baseUrl = await app.getUrl();
  shop = await env.seedMerchant('shop');
  await env.admin.setPciDssCompliant(shop.merchant.id, true);
  foreign = await env.seedMerchant('foreign');
  await env.admin.setPciDssCompliant(foreign.merchant.id, true);
  shopMerchantToken = await env.admin.issueAppToken({ merchantId: shop.merchant.id, mode: 'test' });
});

afterAll(async () => {
  await env?.close(app);
});

describe('POST /charges', () => {
  it('answers 201 pending with the §5.2 fields, and writes the row, the token use and one charge_requested together', async () => {
    const tokenId = await cardToken();
    const body = await charge(tokenId, {
      amount: 1250,
      currency: 'usd',
      descriptor: 'SHOP 1',
      metadata: { order_id: 'A-1', n: 7 },
      three_ds: { mode: 'force', redirect_endpoint: 'https://shop.example.test/back' },
      redirect: { endpoint: 'https://shop.example.test/done' },
    });
    expect(Object.keys(body).sort()).toEqual(CHARGE_FIELDS);
    expect(body).toMatchObject({
      merchant_id: shop.merchant.id,
      store_id: shop.store.id,
      transaction_token_id: tokenId,
      transaction_token_type: 'one_time',
      subscription_id: null,
      requested_amount: 1250,
      requested_currency: 'USD',
      requested_amount_formatted: 12.5,
      charged_amount: null,
      charged_currency: null,
      charged_amount_formatted: null,
      fee_amount: null,
      capture_status: null,
      capture_at: null,
      descriptor: 'SHOP 1',
      only_direct_currency: false,
      status: 'pending',
      error: null,
      mode: 'test',
      metadata: { order_id: 'A-1', n: 7 },
      three_ds: { mode: 'force', redirect_endpoint: 'https://shop.example.test/back', redirect_id: null },
      redirect: { endpoint: 'https://shop.example.test/done', redirect_id: null },
    });

    const row = await env.prisma.charge.findUniqueOrThrow({ where: { id: body.id } });
    expect(row).toMatchObject({ status: 'pending', requestedAmount: 1250n, capture: true });
    expect(row.createdOn.toISOString()).toBe(body.created_on);
    const events = await eventsOf(body.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: CHARGE_REQUESTED,
      aggregateType: 'charge',
      storeId: shop.store.id,
      payload: { charge_id: body.id, store_id: shop.store.id },
    });
    const token = await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(token).toMatchObject({ usedCount: 1, active: false });
    const writer = await writerOf('charges', body.id);
    expect(await writerOf('outbox_events', events[0].id)).toBe(writer);
    expect(await writerOf('transaction_tokens', tokenId)).toBe(writer);

    const jpy = await charge(await cardToken(), { amount: 1200 });
    expect(jpy.requested_amount_formatted).toBe(1200);
  });

  it('writes nothing when the transaction fails half-way: no charge, the token unused, no quota taken', async () => {
    const tokenId = await cardToken();
    const quotaBefore = await testQuotaUsed(shop);
    await env.prisma.$executeRawUnsafe(`
      CREATE FUNCTION fail_charge_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.event_type = 'charge_requested' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await env.prisma.$executeRawUnsafe(
      `CREATE TRIGGER fail_charge_event BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION fail_charge_event()`,
    );
    try {
      const res = await postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' });
      expect(res.status).toBe(500);
    } finally {
      await env.prisma.$executeRawUnsafe(`DROP TRIGGER fail_charge_event ON outbox_events`);
      await env.prisma.$executeRawUnsafe(`DROP FUNCTION fail_charge_event()`);
    }
    expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(0);
    expect(await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).toMatchObject({
      usedCount: 0,
      active: true,
    });
    expect(await testQuotaUsed(shop)).toBe(quotaBefore);
    await charge(tokenId);
  });

  it('replays an Idempotency-Key request without a second charge', async () => {
    const tokenId = await cardToken();
    const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
    const first = await postCharge(json, shop.storeToken, 'charge-key-1');
    const again = await postCharge(json, shop.storeToken, 'charge-key-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
  });

  describe('when the create statement fails outside Postgres', () => {
    /**
     * Runs `work` with the charge's creation failing outside Postgres: `before`, no connection can be
     * opened for it; `after`, the one-charge statement commits and its answer is lost; `commit`, the
     * same for the COMMIT of a duplicate-rule charge's transaction.
     */
    async function failingCreate<T>(fail: 'before' | 'after' | 'commit', work: () => Promise<T>): Promise<T> {
      let spy: jest.SpyInstance;
      if (fail === 'before') {
        // no connection can be opened for the statement (pool.connect() without a callback is what
        // the create statement's write asks; pool.query, which the request's reads use, passes one)
        const pool = app.get(PrismaService).pool;
        const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
        spy = jest
          .spyOn(pool, 'connect')
          .mockImplementation(((...args: unknown[]) =>
            args.length === 0
              ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
              : connect(...args)) as never);
      } else {
        // the statement runs and commits; its answer is lost on the way back
        const query = PgClient.prototype.query as (this: PgClient, ...args: unknown[]) => Promise<unknown>;
        // pg's query overloads include the callback form, whose result is void
        // eslint-disable-next-line @typescript-eslint/no-misused-promises
        spy = jest.spyOn(PgClient.prototype, 'query').mockImplementation(async function (
          this: PgClient,
          ...args: unknown[]
        ) {
          const result = await query.apply(this, args);
          const lost =
            fail === 'after'
              ? (args[0] as { name?: string }).name === 'charges_create'
              : args[0] === 'COMMIT';
          if (lost) throw new Error('Connection terminated unexpectedly');
          return result;
        });
      }
      try {
        return await work();
      } finally {
        spy.mockRestore();
      }
    }

    // a recurring online token: neither the one_time claim nor the 311 rule would stop a second charge
    const recurringOnlineToken = () =>
      createToken(shop, {
        payment_type: 'online',
        type: 'recurring',
        email: 'buyer@example.test',
        data: { brand: 'pay_pay_online' },
      });

    it('a connection lost after it ran: 500, and its Idempotency-Key stays held, so a retry charges nothing', async () => {
      const tokenId = await recurringOnlineToken();
      const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
      const lost = await failingCreate('after', () => postCharge(json, shop.storeToken, 'lost-answer-1'));
      expect(lost.status).toBe(500);
      expect(lost.body).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', error_id: expect.any(String) });
      expect(lost.headers.get('idempotency-status')).toBe('not_stored');
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);

      const retry = await postCharge(json, shop.storeToken, 'lost-answer-1');
      expect(retry.status).toBe(409);
      expect(retry.body.errors).toEqual([{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }]);
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });

    it('a COMMIT whose answer is lost (a duplicate-rule charge runs in a transaction): the key stays held too', async () => {
      const tokenId = await cardToken(shop, 'recurring');
      const json = { transaction_token_id: tokenId, amount: 1300, currency: 'JPY' };
      const lost = await failingCreate('commit', () => postCharge(json, shop.storeToken, 'lost-commit-1'));
      expect(lost.status).toBe(500);
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
      const retry = await postCharge(json, shop.storeToken, 'lost-commit-1');
      expect(retry.status).toBe(409);
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });

    it('a connection that could not be opened: 500, the key released, and a retry under it charges once', async () => {
      const tokenId = await recurringOnlineToken();
      const json = { transaction_token_id: tokenId, amount: 1200, currency: 'JPY' };
      const refused = await failingCreate('before', () => postCharge(json, shop.storeToken, 'refused-1'));
      expect(refused.status).toBe(500);
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(0);

      const retry = await postCharge(json, shop.storeToken, 'refused-1');
      expect(retry.status).toBe(201);
      expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    });
  });

  it.each<[Record<string, unknown>, ...[string, string][]]>([
    [
      {},
      ['transaction_token_id', 'REQUIRED_VALUE'],
      ['amount', 'REQUIRED_VALUE'],
      ['currency', 'REQUIRED_VALUE'],
    ],
    [{ transaction_token_id: 'nope' }, ['transaction_token_id', 'INVALID_UUID']],
    [{ amount: 0 }, ['amount', 'CHARGE_AMOUNT_TOO_LOW']],
    [{ amount: -5 }, ['amount', 'CHARGE_AMOUNT_TOO_LOW']],
    [{ amount: 10.5 }, ['amount', 'INVALID_FORMAT']],
    [{ amount: '1200' }, ['amount', 'INVALID_FORMAT']],
    [{ amount: 1e11 }, ['amount', 'CHARGE_AMOUNT_TOO_HIGH']],
    [{ currency: 'JP' }, ['currency', 'INVALID_FORMAT']],
    [{ currency: 'XXX' }, ['currency', 'UNSUPPORTED_CURRENCY']],
    [{ currency: 3 }, ['currency', 'INVALID_FORMAT']],
    [{ capture: 'yes' }, ['capture', 'INVALID_FORMAT']],
    [{ capture: false, capture_at: 'tomorrow' }, ['capture_at', 'INVALID_FORMAT_DATE']],
    [
      { capture: false, capture_at: '2001-01-01T00:00:00Z' },
      ['capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE'],
    ],
    [
      { capture: false, capture_at: Date.now() + 30 * 86_400_000 },
      ['capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE'],
    ],
    [{ capture_at: Date.now() + 3_600_000 }, ['capture_at', 'INVALID_SCHEDULED_CAPTURE_DATE']],
    [{ descriptor: 'x'.repeat(201) }, ['descriptor', 'INVALID_FORMAT_LENGTH']],
    [{ redirect: { endpoint: 'not a url' } }, ['redirect.endpoint', 'INVALID_FORMAT_URL']],
    [{ three_ds: { mode: 'always' } }, ['three_ds.mode', 'INVALID_FORMAT']],
    [{ metadata: { nested: { a: 1 } } }, ['metadata.nested', 'NESTED_JSON_NOT_ALLOWED']],
    [{ metadata: 'not json' }, ['metadata', 'INVALID_FORMAT_OBJECT']],
    [{ fee_amount: 100 }, ['fee_amount', 'INVALID_FORMAT']],
    [{ card_number: PAN }, ['card_number', 'FORBIDDEN_PARAMETER']],
  ])('refuses %j with 400 naming each field', async (overrides, ...expected) => {
    const base =
      Object.keys(overrides).length === 0
        ? {}
        : { transaction_token_id: randomUUID(), amount: 1200, currency: 'JPY' };
    const res = await postCharge({ ...base, ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    for (const [field, reason] of expected) expect(res.body.errors).toContainEqual({ field, reason });
  });

  it('refuses bodies that are not a JSON object', async () => {
    for (const body of ['[1,2]', '"x"', 'null', '{']) {
      const res = await call('/charges', {
        method: 'POST',
        auth: as(shop.storeToken),
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    }
  });

  it('accepts capture_at as an ISO time or a Unix time for an authorization, and metadata as a JSON string', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const iso = await charge(await cardToken(), {
      capture: false,
      capture_at: at.toISOString(),
      metadata: '{"a":"b"}',
    });
    expect(iso).toMatchObject({ capture_at: at.toISOString(), metadata: { a: 'b' } });
    const seconds = await charge(await cardToken(), {
      capture: false,
      capture_at: Math.floor(at.getTime() / 1000),
    });
    expect(seconds.capture_at).toBe(new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString());
    const ms = await charge(await cardToken(), { capture: false, capture_at: at.getTime() });
    expect(ms.capture_at).toBe(at.toISOString());
  });

  it('checks the token: another store or merchant 404, mode, payment type, type, inactive', async () => {
    const unknown = await postCharge({ transaction_token_id: randomUUID(), amount: 1200, currency: 'JPY' });
    expect(unknown.status).toBe(404);
    const foreignToken = await cardToken(foreign);
    const foreignUse = await postCharge({
      transaction_token_id: foreignToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(foreignUse.status).toBe(404);
    expect(foreignUse.body.code).toBe('NOT_FOUND');

    const live = await env.admin.issueAppToken({
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      mode: 'live',
    });
    const liveToken = await cardToken(live, 'one_time', REAL_PAN);
    const mismatch = await postCharge({ transaction_token_id: liveToken, amount: 1200, currency: 'JPY' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('PROCESSING_MODE_MISMATCH');

    const subscription = await cardToken(shop, 'subscription');
    const wrongType = await postCharge({ transaction_token_id: subscription, amount: 1200, currency: 'JPY' });
    expect(wrongType.body.code).toBe('INVALID_TOKEN_TYPE');

    const deleted = await cardToken(shop, 'recurring');
    await call(`/stores/${shop.store.id}/tokens/${deleted}`, { method: 'DELETE', auth: as(shop.storeToken) });
    const inactive = await postCharge({ transaction_token_id: deleted, amount: 1200, currency: 'JPY' });
    expect(inactive.status).toBe(400);
    expect(inactive.body.code).toBe('INVALID_TOKEN');

    const merchantWide = await postCharge(
      { transaction_token_id: randomUUID(), amount: 1, currency: 'JPY' },
      shopMerchantToken,
    );
    expect(merchantWide.status).toBe(403);
    expect(merchantWide.body.code).toBe('STORE_TOKEN_REQUIRED');

    const online = await onlineToken();
    const threeDs = await postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      three_ds: { mode: 'force' },
    });
    expect(threeDs.body.errors).toEqual([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
    const authOnly = await postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      capture: false,
    });
    expect(authOnly.body.code).toBe('CAPTURE_ONLY_FOR_CARD_PAYMENT');
    expect((await charge(online)).transaction_token_type).toBe('one_time');
  });

  it('a descriptor: kept for a card, refused for an online payment unless ignore_descriptor_on_error drops it', async () => {
    const withCard = await charge(await cardToken(), { descriptor: 'KESSAI SHOP' });
    expect(withCard.descriptor).toBe('KESSAI SHOP');

    const online = await onlineToken();
    const refused = await postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      descriptor: 'KESSAI SHOP',
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
    });
    expect(refused.body.errors).toHaveLength(1);
    expect(await env.prisma.charge.count({ where: { transactionTokenId: online } })).toBe(0);

    const explicitFalse = await postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      descriptor: 'KESSAI SHOP',
      ignore_descriptor_on_error: false,
    });
    expect(explicitFalse.body.errors).toEqual([
      { field: 'descriptor', reason: 'NOT_SUPPORTED_BY_PROCESSOR' },
    ]);

    const dropped = await charge(online, { descriptor: 'KESSAI SHOP', ignore_descriptor_on_error: true });
    expect(dropped.status).toBe('pending');
    expect(dropped.descriptor).toBeNull();
    const row = await env.prisma.charge.findUniqueOrThrow({ where: { id: dropped.id } });
    expect(row.descriptor).toBeNull();
  });

  it('U+0000 in any field, key, JSON-encoded metadata or query is 400 naming the field; nothing is written', async () => {
    const tokenId = await cardToken();
    const chargesBefore = await env.prisma.charge.count();
    const tokensBefore = await env.prisma.transactionToken.count();
    const cases: [string, string, unknown, string][] = [
      [
        'POST',
        '/charges',
        { transaction_token_id: tokenId, amount: 1200, currency: 'JPY', descriptor: 'A\u0000B' },
        'descriptor',
      ],
      [
        'POST',
        '/charges',
        { transaction_token_id: tokenId, amount: 1200, currency: 'JPY', metadata: { order: 'x\u0000' } },
        'metadata.order',
      ],
      [
        'POST',
        '/charges',
        { transaction_token_id: tokenId, amount: 1200, currency: 'JPY', metadata: { ['k\u0000']: 1 } },
        'metadata.k\u0000',
      ],
      [
        'POST',
        '/charges',
        {
          transaction_token_id: tokenId,
          amount: 1200,
          currency: 'JPY',
          metadata: JSON.stringify({ order: 'x\u0000' }),
        },
        'metadata.order',
      ],
      [
        'POST',
        '/tokens',
        { payment_type: 'card', type: 'one_time', email: 'a\u0000@example.test', data: card() },
        'email',
      ],
      [
        'POST',
        '/tokens',
        { payment_type: 'card', type: 'one_time', data: { ...card(), cardholder: 'TARO\u0000' } },
        'data.cardholder',
      ],
      [
        'POST',
        '/tokens',
        {
          payment_type: 'online',
          type: 'one_time',
          data: { brand: 'pay_pay_online' },
          metadata: { tags: ['a', 'b\u0000'] },
        },
        'metadata.tags.1',
      ],
      [
        'PATCH',
        `/stores/${shop.store.id}/tokens/${tokenId}`,
        { metadata: JSON.stringify({ note: 'x\u0000' }) },
        'metadata.note',
      ],
      [
        'PATCH',
        `/stores/${shop.store.id}/charges/${randomUUID()}`,
        { metadata: { note: 'x\u0000' } },
        'metadata.note',
      ],
      ['GET', `/stores/${shop.store.id}/tokens?search=a%00b`, undefined, 'search'],
      ['GET', `/charges?metadata=${encodeURIComponent('order: x\u0000')}`, undefined, 'metadata'],
    ];
    for (const [method, path, json, field] of cases) {
      const res = await call(path, { method, auth: as(shop.storeToken), json });
      expect({ path, field, status: res.status, body: res.body }).toEqual({
        path,
        field,
        status: 400,
        body: { status: 'error', code: 'VALIDATION_ERROR', errors: [{ field, reason: 'INVALID_FORMAT' }] },
      });
    }
    // any depth: 5,000 nested arrays, with and without the character at the bottom
    const deep = (inner: string) => `{"metadata":${'['.repeat(5000)}${inner}${']'.repeat(5000)}}`;
    const post = (body: string) =>
      call('/charges', {
        method: 'POST',
        auth: as(shop.storeToken),
        headers: { 'content-type': 'application/json' },
        body,
      });
    const withNul = await post(deep('"x\\u0000"'));
    expect(withNul.status).toBe(400);
    expect(withNul.body.errors).toEqual([
      { field: `metadata${'.0'.repeat(5000)}`, reason: 'INVALID_FORMAT' },
    ]);
    const clean = await post(deep('"x"')); // not a metadata object: the schema's answer
    expect(clean.status).toBe(400);
    expect(clean.body.code).toBe('VALIDATION_ERROR');
    expect(await env.prisma.charge.count()).toBe(chargesBefore);
    expect(await env.prisma.transactionToken.count()).toBe(tokensBefore);
    // the token is still unused: the refused charges claimed nothing
    expect((await charge(tokenId)).status).toBe('pending');
  });

  it('parallel charges of two merchants (tokens read together): each finds its own token only', async () => {
    const [mine, theirs] = await Promise.all([cardToken(shop), cardToken(foreign)]);
    const answers = await Promise.all([
      postCharge({ transaction_token_id: mine, amount: 1200, currency: 'JPY' }),
      postCharge({ transaction_token_id: theirs, amount: 1300, currency: 'JPY' }, foreign.storeToken),
      postCharge({ transaction_token_id: theirs, amount: 1400, currency: 'JPY' }),
      postCharge(
        { transaction_token_id: mine.toUpperCase(), amount: 1500, currency: 'JPY' },
        foreign.storeToken,
      ),
      postCharge({ transaction_token_id: randomUUID(), amount: 1600, currency: 'JPY' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 404, 404, 404]);
    expect(answers[0]?.body).toMatchObject({ transaction_token_id: mine, store_id: shop.store.id });
    expect(answers[1]?.body).toMatchObject({ transaction_token_id: theirs, store_id: foreign.store.id });
    expect(await env.prisma.charge.count({ where: { transactionTokenId: { in: [mine, theirs] } } })).toBe(2);
  });

  it('charges a one_time token once: a reuse is 400 TRANSACTION_ALREADY_PROCESSED', async () => {
    const tokenId = await cardToken();
    await charge(tokenId);
    const again = await postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'TRANSACTION_ALREADY_PROCESSED',
      errors: [{ field: 'transaction_token_id', reason: 'TRANSACTION_ALREADY_PROCESSED' }],
    });
  });

  it('20 parallel charges on one one_time token: exactly one charge', async () => {
    const tokenId = await cardToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, ...Array<number>(19).fill(400)]);
    for (const a of answers.filter((x) => x.status === 400))
      expect(a.body.code).toBe('TRANSACTION_ALREADY_PROCESSED');
    expect(await env.prisma.charge.count({ where: { transactionTokenId: tokenId } })).toBe(1);
    const used = await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    expect(used).toMatchObject({ active: false, usedCount: 1 });
    expect(used.lastUsedOn).not.toBeNull();
  });

  it('a recurring token stays active and counts its uses', async () => {
    const tokenId = await cardToken(shop, 'recurring');
    await charge(tokenId, { amount: 1000 });
    await charge(tokenId, { amount: 2000 });
    expect(await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).toMatchObject({
      active: true,
      usedCount: 2,
    });
  });
});

describe('duplicate rule (311)', () => {
  it('fails a second same-amount charge on a recurring card token within 30 s, without touching the token', async () => {
    const tokenId = await cardToken(shop, 'recurring');
    const first = await charge(tokenId);
    const second = await charge(tokenId);
    expect(second).toMatchObject({
      status: 'failed',
      error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS' },
      requested_amount: 1200,
    });
    const events = await eventsOf(second.id);
    expect(events.map((e) => e.eventType)).toEqual([CHARGE_FINISHED]);
    expect(events[0].payload).toEqual({ charge_id: second.id, store_id: shop.store.id, status: 'failed' });
    expect((await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).usedCount).toBe(
      1,
    );

    expect((await charge(tokenId, { amount: 1300 })).status).toBe('pending');
    expect((await charge(tokenId, { currency: 'USD' })).status).toBe('pending');
    expect((await charge(tokenId)).status).toBe('failed');

    // 31 s later, moved back in the database rather than waited for; the refused charges are recent
    // still, and do not extend the window
    await setCharge(first.id, `created_on = created_on - interval '31 seconds'`);
    const later = await charge(tokenId);
    expect(later.status).toBe('pending');
    expect(later.error).toBeNull();
  });

  it('does not apply to one_time card tokens or to other payment types', async () => {
    // a recurring online token is charged as often as the merchant likes
    const online = await createToken(shop, {
      payment_type: 'online',
      type: 'recurring',
      email: 'buyer@example.test',
      data: { brand: 'pay_pay_online' },
    });
    expect((await charge(online)).status).toBe('pending');
    expect((await charge(online)).status).toBe('pending');
  });

  it('is atomic: 10 parallel same-amount charges on one recurring token → one pending, nine 311', async () => {
    const tokenId = await cardToken(shop, 'recurring');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        postCharge({ transaction_token_id: tokenId, amount: 5000, currency: 'JPY' }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array<number>(10).fill(201));
    const statuses = answers.map((a) => a.body.status).sort();
    expect(statuses).toEqual([...Array<string>(9).fill('failed'), 'pending']);
    expect(answers.filter((a) => a.body.status === 'failed').every((a) => a.body.error.code === 311)).toBe(
      true,
    );
    const requested = await env.prisma.outboxEvent.count({
      where: { eventType: CHARGE_REQUESTED, aggregateId: { in: answers.map((a) => a.body.id as string) } },
    });
    expect(requested).toBe(1);
  });
});

async function testQuotaUsed(seeded: Seeded): Promise<number> {
  const row = await env.prisma.dailyQuotaUsage.findFirst({
    where: {
      resource: 'test_charge',
      scopeKey: limitScopeKey({ merchantId: seeded.merchant.id, storeId: seeded.store.id }),
      day: new Date(`${utcDay(new Date())}T00:00:00.000Z`),
    },
  });
  return row?.count ?? 0;
}

describe('test charge quota', () => {
  it('refuses the 1,441st test charge of the day with RESOURCE_LIMIT_REACHED; live charges do not count', async () => {
    const busy = await env.seedMerchant('busy');
    await env.admin.setPciDssCompliant(busy.merchant.id, true);
    const first = await cardToken(busy);
    await charge(first, {}, busy.storeToken);
    expect(await testQuotaUsed(busy)).toBe(1);

    await env.prisma.dailyQuotaUsage.updateMany({
      where: {
        resource: 'test_charge',
        scopeKey: limitScopeKey({ merchantId: busy.merchant.id, storeId: busy.store.id }),
      },
      data: { count: DAILY_QUOTAS.test_charge - 1 },
    });
    await charge(await cardToken(busy), {}, busy.storeToken);
    expect(await testQuotaUsed(busy)).toBe(1_440);

    const refusedToken = await cardToken(busy);
    const refused = await postCharge(
      { transaction_token_id: refusedToken, amount: 1200, currency: 'JPY' },
      busy.storeToken,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('RESOURCE_LIMIT_REACHED');
    expect(await env.prisma.charge.count({ where: { transactionTokenId: refusedToken } })).toBe(0);
    expect(
      (await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: refusedToken } })).usedCount,
    ).toBe(0);
    expect(await testQuotaUsed(busy)).toBe(1_440);

    const live = await env.admin.issueAppToken({
      merchantId: busy.merchant.id,
      storeId: busy.store.id,
      mode: 'live',
    });
    const liveCharge = await charge(await cardToken(live, 'one_time', REAL_PAN), {}, live);
    expect(liveCharge).toMatchObject({ mode: 'live', status: 'pending' });
    expect(await testQuotaUsed(busy)).toBe(1_440);
  });
});

describe('reading charges', () => {
  let mine: any;

  beforeAll(async () => {
    mine = await charge(await cardToken(), { capture: false, metadata: { order_id: 'R-1' } });
  });

  it('GET /charges/{id} and /stores/{storeId}/charges/{id} with a store or a merchant token', async () => {
    for (const [path, token] of [
      [`/charges/${mine.id}`, shop.storeToken],
      [`/charges/${mine.id}`, shopMerchantToken],
      [`/stores/${shop.store.id}/charges/${mine.id}`, shop.storeToken],
      [`/stores/${shop.store.id}/charges/${mine.id}`, shopMerchantToken],
    ] as const) {
      const res = await call(path, { auth: as(token) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(mine);
    }
  });

  it('another merchant gets 404 on get, list, patch, capture and issuer tokens; malformed ids too', async () => {
    const other = as(foreign.storeToken);
    const paths = [
      `/charges/${mine.id}`,
      `/stores/${shop.store.id}/charges/${mine.id}`,
      `/stores/${foreign.store.id}/charges/${mine.id}`,
      `/stores/${shop.store.id}/charges`,
      `/stores/${shop.store.id}/charges/${mine.id}/issuer_token`,
      `/stores/${shop.store.id}/charges/${mine.id}/three_ds/issuer_token`,
      `/charges/not-a-uuid`,
      `/stores/not-a-uuid/charges/${mine.id}`,
    ];
    for (const path of paths) {
      const res = await call(path, { auth: other });
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const patch = await call(`/stores/${shop.store.id}/charges/${mine.id}`, {
      method: 'PATCH',
      auth: other,
      json: { metadata: { x: 1 } },
    });
    expect(patch.status).toBe(404);
    await setCharge(mine.id, `status = 'authorized', capture_status = 'authorized'`);
    const capture = await call(`/stores/${shop.store.id}/charges/${mine.id}/capture`, {
      method: 'POST',
      auth: other,
      json: { amount: 100, currency: 'JPY' },
    });
    expect(capture.status).toBe(404);
    expect(await env.prisma.capture.count({ where: { chargeId: mine.id } })).toBe(0);
    const list = await call('/charges', { auth: other });
    expect(list.body.items.map((c: any) => c.id)).not.toContain(mine.id);
    await setCharge(mine.id, `status = 'pending', capture_status = NULL`);
  });

  it('PATCH replaces the metadata, records no event, and validates', async () => {
    const before = (await eventsOf(mine.id)).length;
    const path = `/stores/${shop.store.id}/charges/${mine.id}`;
    const res = await call(path, {
      method: 'PATCH',
      auth: as(shop.storeToken),
      json: { metadata: { order_id: 'R-2', paid: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, metadata: { order_id: 'R-2', paid: true } });
    expect((await call(path, { auth: as(shop.storeToken) })).body.metadata).toEqual({
      order_id: 'R-2',
      paid: true,
    });
    expect((await eventsOf(mine.id)).length).toBe(before);

    const bad = await call(path, {
      method: 'PATCH',
      auth: as(shop.storeToken),
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

  it('polling=true holds a pending charge until CHARGE_POLLING_MAX_WAIT_MS, then answers it pending', async () => {
    const started = Date.now();
    const res = await call(`/stores/${shop.store.id}/charges/${mine.id}?polling=true`, {
      auth: as(shop.storeToken),
    });
    const elapsed = Date.now() - started;
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(elapsed).toBeGreaterThanOrEqual(MAX_WAIT_MS - 50);

    const quick = Date.now();
    await call(`/stores/${shop.store.id}/charges/${mine.id}`, { auth: as(shop.storeToken) });
    expect(Date.now() - quick).toBeLessThan(MAX_WAIT_MS);
  });

  it('polling=true answers as soon as the status leaves pending', async () => {
    const pending = await charge(await cardToken());
    const started = Date.now();
    const answer = call(`/charges/${pending.id}?polling=true`, { auth: as(shop.storeToken) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await setCharge(
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
    expect(Date.now() - started).toBeLessThan(MAX_WAIT_MS);
  });

  it('refuses a malformed polling value', async () => {
    const res = await call(`/charges/${mine.id}?polling=maybe`, { auth: as(shop.storeToken) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'polling', reason: 'INVALID_FORMAT' }]);
  });
});

describe('listing charges', () => {
  let lister: Seeded;
  let recurring: string;
  const ids: string[] = [];

  beforeAll(async () => {
    lister = await env.seedMerchant('lister');
    await env.admin.setPciDssCompliant(lister.merchant.id, true);
    recurring = await cardToken(lister, 'recurring');
    for (let i = 1; i <= 11; i++) {
      const c = await charge(
        recurring,
        { amount: 100 * i, metadata: { order_id: `L-${i}`, n: i } },
        lister.storeToken,
      );
      ids.push(c.id);
    }
    const usd = await charge(await cardToken(lister), { amount: 999, currency: 'USD' }, lister.storeToken);
    ids.push(usd.id);
    await setCharge(ids[0], `status = 'failed', error_code = 306, error_message = 'CARD_REJECTED'`);
  });

  const list = (query = '', path = '/charges') => call(`${path}${query}`, { auth: as(lister.storeToken) });
  /** the store's charge ids in listing order (created_on, id), newest first */
  const newestFirst = async () =>
    (
      await env.prisma.charge.findMany({
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
    await setCharge(ids[0], `created_on = now() - interval '2 days'`);
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

describe('capture', () => {
  const capturePath = (id: string) => `/stores/${shop.store.id}/charges/${id}/capture`;
  const capture = (id: string, json: unknown) =>
    call(capturePath(id), { method: 'POST', auth: as(shop.storeToken), json });

  async function authorized(amount = 5000) {
    const c = await charge(await cardToken(), { capture: false, amount });
    await setCharge(c.id, `status = 'authorized', capture_status = 'authorized'`);
    return c;
  }

  it('accepts a partial capture of an authorized charge: a pending capture row and one capture_requested', async () => {
    const c = await authorized();
    for (const [json, code] of [
      [{ amount: 5001, currency: 'JPY' }, 'CAPTURE_AMOUNT_TOO_LARGE'],
      [{ amount: 3000, currency: 'USD' }, 'CURRENCY_MUST_MATCH_CHARGE'],
      [{ amount: 0, currency: 'JPY' }, 'VALIDATION_ERROR'],
      [{ amount: 3000 }, 'VALIDATION_ERROR'],
    ] as const) {
      const res = await capture(c.id, json);
      expect([json, res.status, res.body.code]).toEqual([json, 400, code]);
    }
    const ok = await capture(c.id, { amount: 3000, currency: 'JPY' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({});
    expect(ok.headers.get('content-type')).toMatch(/application\/json/);

    const row = await env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    expect(row).toMatchObject({ amount: 3000n, currency: 'JPY', status: 'pending' });
    const events = (await eventsOf(c.id)).filter((e) => e.eventType === CAPTURE_REQUESTED);
    expect(events).toHaveLength(1);
    expect(events[0].payload).toEqual({ charge_id: c.id, capture_id: row.id });
    expect(await writerOf('outbox_events', events[0].id)).toBe(
      (
        await env.prisma.$queryRaw<
          { xmin: string }[]
        >`SELECT xmin::text AS xmin FROM captures WHERE id = ${row.id}::uuid`
      )[0].xmin,
    );

    const again = await capture(c.id, { amount: 1000, currency: 'JPY' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('ALREADY_CAPTURED');
  });

  it('a capture the processor refused may be requested again, as a new capture (new processor key)', async () => {
    const c = await authorized();
    expect((await capture(c.id, { amount: 5000, currency: 'JPY' })).status).toBe(200);
    const first = await env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    await env.prisma.capture.update({
      where: { id: first.id },
      data: { status: 'failed', errorCode: 309, errorMessage: 'PROCESSING_ERROR' },
    });

    expect((await capture(c.id, { amount: 4000, currency: 'JPY' })).status).toBe(200);
    const second = await env.prisma.capture.findUniqueOrThrow({ where: { chargeId: c.id } });
    expect(second).toMatchObject({ amount: 4000n, status: 'pending', errorCode: null });
    expect(second.id).not.toBe(first.id);
    const commands = (await eventsOf(c.id)).filter((e) => e.eventType === CAPTURE_REQUESTED);
    expect(commands.map((e) => e.payload)).toEqual([
      { charge_id: c.id, capture_id: first.id },
      { charge_id: c.id, capture_id: second.id },
    ]);
    // a pending (or successful) capture still blocks another
    expect((await capture(c.id, { amount: 1000, currency: 'JPY' })).body.code).toBe('ALREADY_CAPTURED');
  });

  it('parallel captures: exactly one is accepted', async () => {
    const c = await authorized();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => capture(c.id, { amount: 5000, currency: 'JPY' })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.body?.code === 'ALREADY_CAPTURED')).toHaveLength(7);
    expect(await env.prisma.capture.count({ where: { chargeId: c.id } })).toBe(1);
  });

  it('refuses a charge that is not authorized: pending INVALID_CHARGE_STATUS, captured ALREADY_CAPTURED', async () => {
    const pending = await charge(await cardToken(), { capture: false });
    expect((await capture(pending.id, { amount: 100, currency: 'JPY' })).body.code).toBe(
      'INVALID_CHARGE_STATUS',
    );
    await setCharge(
      pending.id,
      `status = 'successful', capture_status = 'captured', charged_amount = 1200, charged_currency = 'JPY'`,
    );
    expect((await capture(pending.id, { amount: 100, currency: 'JPY' })).body.code).toBe('ALREADY_CAPTURED');
    expect(await env.prisma.capture.count({ where: { chargeId: pending.id } })).toBe(0);
  });

  it('works through the SDK (captures.create resolves to {})', async () => {
    const c = await authorized(2000);
    const sdk = new SDK({ endpoint: baseUrl, jwt: shop.storeToken.jwt, secret: shop.storeToken.secret });
    await expect(
      sdk.captures.create(shop.store.id, c.id, { amount: 2000, currency: 'JPY' }),
    ).resolves.toEqual({});
    const got: any = await sdk.charges.get(shop.store.id, c.id);
    expect(got).toMatchObject({ id: c.id, status: 'authorized', requestedAmountFormatted: 2000 });
  });
});

describe('issuer tokens', () => {
  const path = (id: string, three = false) =>
    `/stores/${shop.store.id}/charges/${id}/${three ? 'three_ds/' : ''}issuer_token`;
  const get = (id: string, three = false) => call(path(id, three), { auth: as(shop.storeToken) });

  it('GET .../issuer_token answers the operator payment URL of an awaiting online charge', async () => {
    const c = await charge(await onlineToken());
    expect((await get(c.id)).body.code).toBe('INVALID_CHARGE_STATUS');
    const stored = {
      issuer_token: 'https://operator.example.test/pay/1',
      call_method: 'http_get',
      secret: 'x',
    };
    await env.prisma.charge.update({
      where: { id: c.id },
      data: { status: 'awaiting', issuerToken: stored },
    });
    const res = await get(c.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      issuer_token: 'https://operator.example.test/pay/1',
      call_method: 'http_get',
      payload: null,
      payment_type: 'online',
    });
    const sdk = new SDK({ endpoint: baseUrl, jwt: shop.storeToken.jwt, secret: shop.storeToken.secret });
    await expect(sdk.charges.getIssuerToken(shop.store.id, c.id)).resolves.toMatchObject({
      callMethod: 'http_get',
    });
    expect((await get(c.id, true)).body.code).toBe('INVALID_THREE_DS_STATUS');
  });

  it('GET .../three_ds/issuer_token answers the issuer page of an awaiting 3-D Secure charge', async () => {
    const c = await charge(await cardToken());
    expect((await get(c.id)).body.code).toBe('NOT_ONLINE_CHARGE');
    expect((await get(c.id, true)).body.code).toBe('INVALID_CHARGE_STATUS');
    await env.prisma.charge.update({
      where: { id: c.id },
      data: {
        status: 'awaiting',
        threeDsIssuerToken: {
          issuer_token: 'https://acs.example.test/3ds/1',
          call_method: 'http_post',
          payload: { PaReq: 'abc', TermUrl: 'https://x.test' },
          content_type: 'application/x-www-form-urlencoded',
        },
      },
    });
    const res = await get(c.id, true);
    expect(res.body).toEqual({
      issuer_token: 'https://acs.example.test/3ds/1',
      call_method: 'http_post',
      payload: { PaReq: 'abc', TermUrl: 'https://x.test' },
      payment_type: 'card',
      content_type: 'application/x-www-form-urlencoded',
    });
    const sdk = new SDK({ endpoint: baseUrl, jwt: shop.storeToken.jwt, secret: shop.storeToken.secret });
    const viaSdk: any = await sdk.charges.threeDsIssuerToken(shop.store.id, c.id);
    expect(viaSdk.payload).toEqual({ PaReq: 'abc', TermUrl: 'https://x.test' });
  });
});

describe('POST /processor/callbacks', () => {
  const notice = (reference: string) =>
    JSON.stringify({
      id: randomUUID(),
      event: 'operator_payment',
      operator_payment_id: 'sim_op_1',
      payment_id: 'sim_pay_1',
      reference,
      status: 'paid',
      amount: 1200,
      currency: 'JPY',
      occurred_on: new Date().toISOString(),
    });
  const post = (body: string, signature?: string) =>
    call('/processor/callbacks', {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...(signature === undefined ? {} : { [PROCESSOR_SIGNATURE_HEADER]: signature }),
      },
    });
  const secret = () => env.config.PROCESSOR_CALLBACK_SECRET;

  it('refuses a missing, wrong or stale signature with 401 in the error envelope', async () => {
    const c = await charge(await onlineToken());
    const body = notice(c.id);
    for (const signature of [
      undefined,
      'garbage',
      signProcessorCallback(body, 'another secret of at least thirty-two chars'),
      signProcessorCallback(body, secret(), new Date(Date.now() - 10 * 60_000)),
      signProcessorCallback(body.replace('paid', 'expired'), secret()),
    ]) {
      const res = await post(body, signature);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 'error', code: 'INVALID_CREDENTIALS', errors: [] });
    }
    expect((await eventsOf(c.id)).map((e) => e.eventType)).toEqual([CHARGE_REQUESTED]);
  });

  it('records a valid notice as processor_notice_received (204); repeats are harmless', async () => {
    const c = await charge(await onlineToken());
    const body = notice(c.id);
    const signature = signProcessorCallback(body, secret());
    const res = await post(body, signature);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    // outside the merchant API's rate limits: the processor's retries are never refused for volume
    expect(res.headers.get('x-remaining-requests-route')).toBeNull();
    expect((await post(body, signature)).status).toBe(204);
    const events = (await eventsOf(c.id)).filter((e) => e.eventType === PROCESSOR_NOTICE_RECEIVED);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      aggregateType: 'charge',
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      payload: { charge_id: c.id, notice_id: JSON.parse(body).id, event: 'operator_payment', status: 'paid' },
    });
  });

  it('answers 404 for a reference that is not one of our charges', async () => {
    for (const reference of [randomUUID(), 'not-a-charge']) {
      const body = notice(reference);
      const res = await post(body, signProcessorCallback(body, secret()));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('charges created together (ChargesRepository.createMany, what concurrent POST /charges share)', () => {
  let repository: ChargesRepository;
  let busy: Seeded;
  beforeAll(async () => {
    repository = new ChargesRepository(env.prisma);
    busy = await env.seedMerchant('together');
    await env.admin.setPciDssCompliant(busy.merchant.id, true);
  });

  /** createMany's results, each required to have succeeded (a failed one fails the test with its reason) */
  const createAll = async (creations: ChargeCreation[]) =>
    (await repository.createMany(creations)).map((settled) => {
      if (settled.status === 'rejected') throw settled.reason;
      return settled.value;
    });

  const quotaOf = (seeded: Seeded): DailyQuota => ({
    resource: 'test_charge',
    scope: { merchantId: seeded.merchant.id, storeId: seeded.store.id },
    max: DAILY_QUOTAS.test_charge,
  });

  async function creation(
    seeded: Seeded,
    tokenId: string,
    overrides: { duplicateRule?: CreateChargeOptions['duplicateRule']; amount?: bigint } = {},
  ): Promise<ChargeCreation> {
    const token = await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } });
    return {
      charge: {
        id: randomUUID(),
        merchantId: seeded.merchant.id,
        storeId: seeded.store.id,
        transactionTokenId: tokenId,
        transactionTokenType: token.type,
        mode: token.mode,
        requestedAmount: overrides.amount ?? 1200n,
        requestedCurrency: 'JPY',
        capture: true,
        captureAt: null,
        descriptor: null,
        onlyDirectCurrency: false,
        threeDs: null,
        redirect: { endpoint: 'https://shop.example.test/done' },
        metadata: { order: tokenId },
      },
      options: {
        duplicateRule: overrides.duplicateRule ?? null,
        quota: token.mode === 'test' ? quotaOf(seeded) : null,
        correlationId: `req-${tokenId}`,
        now: new Date(),
      },
    };
  }

  const setQuotaUsed = (seeded: Seeded, count: number) =>
    env.prisma.dailyQuotaUsage.upsert({
      where: {
        resource_scopeKey_day: {
          resource: 'test_charge',
          scopeKey: limitScopeKey({ merchantId: seeded.merchant.id, storeId: seeded.store.id }),
          day: new Date(`${utcDay(new Date())}T00:00:00.000Z`),
        },
      },
      create: {
        resource: 'test_charge',
        scopeKey: limitScopeKey({ merchantId: seeded.merchant.id, storeId: seeded.store.id }),
        day: new Date(`${utcDay(new Date())}T00:00:00.000Z`),
        count,
      },
      update: { count },
    });

  it('creates them in one statement: each charge pending with its event, token use and quota unit', async () => {
    const live = await env.admin.issueAppToken({
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      mode: 'live',
    });
    const tokens = await Promise.all([cardToken(shop), cardToken(shop), cardToken(foreign)]);
    const liveToken = await cardToken(live, 'one_time', REAL_PAN);
    const creations = [
      await creation(shop, tokens[0]),
      await creation(shop, tokens[1]),
      await creation(foreign, tokens[2]),
      await creation(shop, liveToken),
    ];
    const [shopBefore, foreignBefore] = [await testQuotaUsed(shop), await testQuotaUsed(foreign)];

    const results = await createAll(creations);

    expect(results.map((result) => result.outcome)).toEqual(['created', 'created', 'created', 'created']);
    const writers = new Set<string | undefined>();
    for (const [i, { charge: wanted, options }] of creations.entries()) {
      const result = results[i];
      if (result.outcome !== 'created') throw new Error('not created');
      const row = await env.prisma.charge.findUniqueOrThrow({ where: { id: wanted.id } });
      expect(row).toMatchObject({
        status: 'pending',
        storeId: wanted.storeId,
        transactionTokenId: wanted.transactionTokenId,
        mode: wanted.mode,
        requestedAmount: 1200n,
        redirect: { endpoint: 'https://shop.example.test/done' },
        metadata: { order: wanted.transactionTokenId },
      });
      expect(result.charge).toMatchObject({ id: wanted.id, status: 'pending', createdOn: row.createdOn });
      const events = await eventsOf(wanted.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        eventType: CHARGE_REQUESTED,
        storeId: wanted.storeId,
        payload: { charge_id: wanted.id, store_id: wanted.storeId },
        correlationId: options.correlationId,
      });
      const token = await env.prisma.transactionToken.findUniqueOrThrow({
        where: { id: wanted.transactionTokenId },
      });
      expect(token).toMatchObject({ usedCount: 1, active: false });
      expect(token.lastUsedOn).toEqual(options.now);
      writers.add(await writerOf('charges', wanted.id));
      writers.add(await writerOf('outbox_events', events[0].id));
      writers.add(await writerOf('transaction_tokens', wanted.transactionTokenId));
    }
    expect(writers.size).toBe(1); // one transaction wrote all of it
    expect(await testQuotaUsed(shop)).toBe(shopBefore + 2); // the live charge takes no test quota
    expect(await testQuotaUsed(foreign)).toBe(foreignBefore + 1);
  });

  it('a refused claim writes nothing together: each charge is then created alone, the refused one told why', async () => {
    const used = await cardToken(busy);
    await charge(used, {}, busy.storeToken);
    const fresh = await Promise.all([cardToken(busy), cardToken(busy)]);
    const creations = [
      await creation(busy, fresh[0]),
      await creation(busy, used),
      await creation(busy, fresh[1]),
    ];
    const before = await testQuotaUsed(busy);

    const results = await createAll(creations);

    expect(results.map((result) => result.outcome)).toEqual(['created', 'token_not_claimable', 'created']);
    expect(await env.prisma.charge.count({ where: { id: { in: creations.map((c) => c.charge.id) } } })).toBe(
      2,
    );
    expect(await eventsOf(creations[1].charge.id)).toEqual([]);
    expect(await testQuotaUsed(busy)).toBe(before + 2);
    // written by two transactions of their own, not the refused shared one
    expect(await writerOf('charges', creations[0].charge.id)).not.toBe(
      await writerOf('charges', creations[2].charge.id),
    );
  });

  it('a quota short of the batch: exactly what is left is taken, the rest refused as quota_exhausted', async () => {
    const mine = await Promise.all(Array.from({ length: 4 }, () => cardToken(busy)));
    const theirs = await cardToken(foreign);
    await setQuotaUsed(busy, DAILY_QUOTAS.test_charge - 2);
    const creations = [
      ...(await Promise.all(mine.map((id) => creation(busy, id)))),
      await creation(foreign, theirs),
    ];

    const results = await createAll(creations);

    const outcomes = results.map((result) => result.outcome);
    expect(outcomes.slice(0, 4).sort()).toEqual(['created', 'created', 'quota_exhausted', 'quota_exhausted']);
    expect(outcomes[4]).toBe('created');
    expect(await testQuotaUsed(busy)).toBe(DAILY_QUOTAS.test_charge);
    const refused = creations.filter((_, i) => outcomes[i] === 'quota_exhausted');
    for (const { charge: wanted } of refused) {
      expect(await env.prisma.charge.count({ where: { id: wanted.id } })).toBe(0);
      expect(
        await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: wanted.transactionTokenId } }),
      ).toMatchObject({ usedCount: 0, active: true });
    }
    await setQuotaUsed(busy, 0);
  });

  it('a token twice in one call, and a duplicate-checked token, are created alone with their own rules', async () => {
    const once = await cardToken(busy);
    const recurring = await cardToken(busy, 'recurring');
    const other = await cardToken(busy);
    const rule: CreateChargeOptions['duplicateRule'] = {
      windowSeconds: 30,
      error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS', detail: null },
    };
    const creations = [
      await creation(busy, once),
      await creation(busy, once),
      await creation(busy, recurring, { duplicateRule: rule }),
      await creation(busy, recurring, { duplicateRule: rule }),
      await creation(busy, other),
    ];

    const results = await createAll(creations);

    // the second use runs beside the shared statement: whichever claims the token first wins
    expect([results[0].outcome, results[1].outcome].sort()).toEqual(['created', 'token_not_claimable']);
    expect([results[2].outcome, results[3].outcome].sort()).toEqual(['created', 'duplicate']);
    expect(results[4].outcome).toBe('created');
    expect(
      (await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: recurring } })).usedCount,
    ).toBe(1);
  });

  it('an error in the shared statement fails only the charge that caused it; the others are created', async () => {
    const tokens = await Promise.all([cardToken(busy), cardToken(busy), cardToken(busy)]);
    const recurring = await cardToken(busy, 'recurring');
    const creations = [
      ...(await Promise.all(tokens.map((id) => creation(busy, id)))),
      await creation(busy, recurring, {
        duplicateRule: {
          windowSeconds: 30,
          error: { code: 311, message: 'TOO_MANY_CHARGE_REQUESTS', detail: null },
        },
      }),
    ];
    creations[1].options.correlationId = 'poison';
    const before = await testQuotaUsed(busy);
    await env.prisma.$executeRawUnsafe(`
      CREATE FUNCTION poison_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.correlation_id = 'poison' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await env.prisma.$executeRawUnsafe(
      `CREATE TRIGGER poison_event BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION poison_event()`,
    );
    let results;
    try {
      results = await repository.createMany(creations);
    } finally {
      await env.prisma.$executeRawUnsafe(`DROP TRIGGER poison_event ON outbox_events`);
      await env.prisma.$executeRawUnsafe(`DROP FUNCTION poison_event()`);
    }

    expect(results.map((settled) => settled.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('injected failure');
    for (const i of [0, 2, 3]) {
      expect(results[i]).toMatchObject({ status: 'fulfilled', value: { outcome: 'created' } });
      expect(await env.prisma.charge.count({ where: { id: creations[i].charge.id } })).toBe(1);
      expect(await eventsOf(creations[i].charge.id)).toHaveLength(1);
    }
    expect(await env.prisma.charge.count({ where: { id: creations[1].charge.id } })).toBe(0);
    expect(await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokens[1] } })).toMatchObject({
      usedCount: 0,
      active: true,
    });
    expect(await testQuotaUsed(busy)).toBe(before + 3);
  });

  it('concurrent calls sharing recurring tokens in opposite orders: no deadlock, every use counted', async () => {
    const recurring = await Promise.all(Array.from({ length: 6 }, () => cardToken(busy, 'recurring')));
    const calls = await Promise.all(
      Array.from({ length: 6 }, async (_, n) => {
        const order = n % 2 === 0 ? recurring : [...recurring].reverse();
        return Promise.all(order.map((id) => creation(busy, id, { amount: BigInt(1000 + n) })));
      }),
    );

    const results = await Promise.all(calls.map((creations) => createAll(creations)));

    expect(results.flat().every((result) => result.outcome === 'created')).toBe(true);
    const tokens = await env.prisma.transactionToken.findMany({ where: { id: { in: recurring } } });
    expect(tokens.map((token) => token.usedCount)).toEqual(Array<number>(6).fill(6));
    expect(await env.prisma.charge.count({ where: { transactionTokenId: { in: recurring } } })).toBe(36);
  });
});
