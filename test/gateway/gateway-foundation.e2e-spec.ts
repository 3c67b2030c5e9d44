import { createHmac, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import SDK from 'univapay-node';
import { signAppToken } from '@kessai/auth';
import {
  bearer,
  CapturedLog,
  expectErrorEnvelope,
  requestJson,
  sdkError,
  sdkFor,
  useSuite,
  type JsonRequest,
  type TestEnvironment,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const log = new CapturedLog();
const suite = useSuite({
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { alpha: { domains: ['shop.alpha.test'] }, beta: {} },
});
let alphaMerchantToken: Awaited<ReturnType<TestEnvironment['merchantToken']>>;

const http = (path: string, init?: JsonRequest) => requestJson(suite.url, path, init);
const sdkAs = (token: { secret: string; jwt: string }) => sdkFor(suite.url, token);

beforeAll(async () => {
  alphaMerchantToken = await suite.env.merchantToken(suite.merchants.alpha);
});

describe('heartbeat', () => {
  it('answers the SDK ping without credentials', async () => {
    await expect(new SDK({ endpoint: suite.url }).api.ping()).resolves.toBeUndefined();
    const res = await http('/heartbeat');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('GET /me', () => {
  it('returns the merchant of a store token through the SDK', async () => {
    const me = await sdkAs(suite.merchants.alpha.storeToken).merchants.me();
    expect(me).toMatchObject({
      id: suite.merchants.alpha.merchant.id,
      name: 'alpha Merchant',
      email: suite.merchants.alpha.merchant.email,
      verified: false,
    });
    expect(new Date(me.createdOn).toISOString()).toBe(suite.merchants.alpha.merchant.createdOn.toISOString());
  });

  it('speaks snake_case on the wire and never echoes Authorization', async () => {
    const res = await http('/me', { auth: bearer(alphaMerchantToken) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(
      expect.arrayContaining([
        'id',
        'name',
        'email',
        'verified',
        'created_on',
        'updated_on',
        'configuration',
      ]),
    );
    expect(res.headers.get('authorization')).toBeNull();
    expect(res.text).not.toContain(alphaMerchantToken.secret);
  });
});

describe('stores', () => {
  it('a store token sees exactly its own store', async () => {
    const sdk = sdkAs(suite.merchants.alpha.storeToken);
    const list = await sdk.stores.list();
    expect(list.items.map((s) => s.id)).toEqual([suite.merchants.alpha.store.id]);
    expect(list.hasMore).toBe(false);
    const store = await sdk.stores.get(suite.merchants.alpha.store.id);
    expect(store).toMatchObject({
      id: suite.merchants.alpha.store.id,
      merchantId: suite.merchants.alpha.merchant.id,
      name: 'alpha Store',
    });
  });

  it('a merchant token lists the merchant stores with merchant_name', async () => {
    const second = await suite.env.admin.createStore({
      merchantId: suite.merchants.alpha.merchant.id,
      name: 'alpha Second',
    });
    const res = await http('/stores', { auth: bearer(alphaMerchantToken) });
    expect(res.status).toBe(200);
    expect(res.body.items.map((s: { id: string }) => s.id)).toEqual([
      second.id,
      suite.merchants.alpha.store.id,
    ]);
    expect(res.body.items[0]).toMatchObject({
      merchant_id: suite.merchants.alpha.merchant.id,
      merchant_name: 'alpha Merchant',
    });
    expect(res.body.has_more).toBe(false);
  });

  it('a store token cannot reach a sibling store of its own merchant', async () => {
    const sibling = await suite.env.admin.createStore({
      merchantId: suite.merchants.alpha.merchant.id,
      name: 'alpha Sibling',
    });
    const err = await sdkError(sdkAs(suite.merchants.alpha.storeToken).stores.get(sibling.id));
    expect(err).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
  });

  it('another merchant never sees the first merchant store: 404 exactly like a missing id', async () => {
    const foreign = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      auth: bearer(suite.merchants.beta.storeToken),
    });
    const missing = await http(`/stores/${randomUUID()}`, { auth: bearer(suite.merchants.beta.storeToken) });
    expectErrorEnvelope(foreign, 404, 'NOT_FOUND');
    expect(foreign.body).toEqual(missing.body);
    const betaList = await sdkAs(suite.merchants.beta.storeToken).stores.list();
    expect(betaList.items.map((s) => s.id)).toEqual([suite.merchants.beta.store.id]);
    const patch = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PATCH',
      auth: bearer(suite.merchants.beta.storeToken),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hijacked' }),
    });
    expectErrorEnvelope(patch, 404, 'NOT_FOUND');
    expect((await suite.env.admin.stores.findById(suite.merchants.alpha.store.id))?.name).toBe('alpha Store');
  });

  it('updates a store name and refuses a duplicate with 409', async () => {
    const res = await http(`/stores/${suite.merchants.beta.store.id}`, {
      method: 'PATCH',
      auth: bearer(suite.merchants.beta.storeToken),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'beta Renamed' }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: suite.merchants.beta.store.id, name: 'beta Renamed' });

    const other = await suite.env.admin.createStore({
      merchantId: suite.merchants.beta.merchant.id,
      name: 'beta Other',
    });
    const merchantToken = await suite.env.merchantToken(suite.merchants.beta);
    const dup = await http(`/stores/${other.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'beta Renamed' }),
    });
    expectErrorEnvelope(dup, 409, 'STORE_EXISTS');
  });
});

describe('pagination', () => {
  let merchantToken: { secret: string; jwt: string };
  let ids: string[];

  beforeAll(async () => {
    const seeded = await suite.env.seedMerchant('paged');
    merchantToken = await suite.env.merchantToken(seeded);
    // 24 more stores sharing one timestamp: the order must still be total and stable
    const sameInstant = new Date('2026-01-01T00:00:00.000Z');
    await suite.env.prisma.store.createMany({
      data: Array.from({ length: 24 }, (_, i) => ({
        merchantId: seeded.merchant.id,
        name: `tied ${i}`,
        createdOn: sameInstant,
      })),
    });
    const all = await suite.env.prisma.store.findMany({ where: { merchantId: seeded.merchant.id } });
    expect(all).toHaveLength(25);
    ids = all.map((s) => s.id);
  });

  async function walk(direction: 'asc' | 'desc', limit: number) {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const query = new URLSearchParams({ limit: String(limit), cursor_direction: direction });
      if (cursor) query.set('cursor', cursor);
      const res = await http(`/stores?${query.toString()}`, { auth: bearer(merchantToken) });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      if (!res.body.has_more) return seen;
      cursor = res.body.items[res.body.items.length - 1].id;
    }
    throw new Error('pagination did not end');
  }

  it('defaults to 10 items, newest first', async () => {
    const res = await http('/stores', { auth: bearer(merchantToken) });
    expect(res.body.items).toHaveLength(10);
    expect(res.body.has_more).toBe(true);
    const created = res.body.items.map((s: { created_on: string }) => s.created_on);
    expect([...created].sort().reverse()).toEqual(created);
    expect(created[0]).not.toBe('2026-01-01T00:00:00.000Z');
  });

  it('walks every item exactly once in both directions, through tied timestamps', async () => {
    const desc = await walk('desc', 10);
    const asc = await walk('asc', 10);
    expect(desc).toHaveLength(25);
    expect(new Set(desc)).toEqual(new Set(ids));
    expect(asc).toEqual([...desc].reverse());
    expect(await walk('desc', 100)).toEqual(desc);
  });

  it('excludes the cursor item itself', async () => {
    const first = await http('/stores?limit=10', { auth: bearer(merchantToken) });
    const cursor = first.body.items[4].id;
    const next = await http(`/stores?limit=10&cursor=${cursor}`, { auth: bearer(merchantToken) });
    expect(next.body.items.map((s: { id: string }) => s.id)).not.toContain(cursor);
    expect(next.body.items[0].id).toBe(first.body.items[5].id);
  });

  it.each(['9', '101', 'ten'])('rejects limit=%s with a validation error naming limit', async (limit) => {
    const res = await http(`/stores?limit=${limit}`, { auth: bearer(merchantToken) });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: 'limit', reason: expect.any(String) }]);
  });

  it('rejects an unknown direction', async () => {
    const res = await http('/stores?cursor_direction=sideways', { auth: bearer(merchantToken) });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: 'cursor_direction', reason: 'INVALID_FORMAT' }]);
  });

  it('rejects an unknown cursor, and another merchant store id as cursor, alike', async () => {
    const unknown = await http(`/stores?cursor=${randomUUID()}`, { auth: bearer(merchantToken) });
    const foreign = await http(`/stores?cursor=${suite.merchants.alpha.store.id}`, {
      auth: bearer(merchantToken),
    });
    expectErrorEnvelope(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.body.errors).toEqual([{ field: 'cursor', reason: 'NOT_FOUND' }]);
    expect(foreign.body).toEqual(unknown.body);
  });

  it("rejects a sibling store's id as a store credential's cursor like an unknown one", async () => {
    // alpha's store token sees its own store only; the merchant's other store is no cursor of its
    const sibling = await suite.env.admin.createStore({
      merchantId: suite.merchants.alpha.merchant.id,
      name: 'Alpha sibling',
    });
    const unknown = await http(`/stores?cursor=${randomUUID()}`, {
      auth: bearer(suite.merchants.alpha.storeToken),
    });
    const siblingCursor = await http(`/stores?cursor=${sibling.id}`, {
      auth: bearer(suite.merchants.alpha.storeToken),
    });
    expectErrorEnvelope(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.body.errors).toEqual([{ field: 'cursor', reason: 'NOT_FOUND' }]);
    expect(siblingCursor.body).toEqual(unknown.body);
  });

  it('serves the SDK list with limit and cursor', async () => {
    const sdk = sdkAs(merchantToken);
    const page = await sdk.stores.list({ limit: 20 });
    expect(page.items).toHaveLength(20);
    expect(page.hasMore).toBe(true);
    const rest = await sdk.stores.list({ limit: 20, cursor: page.items[19].id });
    expect(rest.items).toHaveLength(5);
    expect(rest.hasMore).toBe(false);
  });
});

describe('authentication', () => {
  const claimsOf = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as object;
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');

  it('refuses a request without credentials', async () => {
    const res = await http('/me');
    expectErrorEnvelope(res, 401, 'AUTH_HEADER_MISSING');
    expect(await sdkError(new SDK({ endpoint: suite.url }).merchants.me())).toMatchObject({
      code: 'AUTH_HEADER_MISSING',
      httpCode: 401,
    });
  });

  it.each([
    ['a malformed bearer credential', 'Bearer not-a-jwt'],
    ['five segments', 'Bearer a.b.c.d.e'],
  ])('refuses %s', async (_label, auth) => {
    const res = await http('/me', { auth });
    expectErrorEnvelope(res, 401, 'INVALID_APP_TOKEN');
    expect(res.body.errors).toEqual([]);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="kessai"');
  });

  describe("the SDK's legacy Authorization forms (api-reference §1.1, decision 0007)", () => {
    const bearerRequired = [{ field: 'authorization', reason: 'IMPROPER_AUTH' }];

    it.each([
      ['a login token', `Token ${'a'.repeat(32)}`],
      ['a bare Token scheme', 'Token'],
      ['an application token with its secret', 'ApplicationToken abc|def'],
      ['an application token without a secret', 'ApplicationToken abc|'],
      ['another scheme', 'Basic dXNlcjpwYXNz'],
    ])('answer 401 naming the Bearer form: %s', async (_label, auth) => {
      const res = await http('/me', { auth });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ status: 'error', code: 'INVALID_APP_TOKEN', errors: bearerRequired });
      const challenge = res.headers.get('www-authenticate') ?? '';
      expect(challenge).toMatch(/^Bearer realm="kessai", error="invalid_request"/);
      expect(challenge).toContain('Bearer <secret>.<jwt>');
      expect(challenge).toContain('Bearer <jwt>');
    });

    it('reach an SDK user as INVALID_APP_TOKEN naming the authorization field', async () => {
      const legacy = [
        new SDK({ endpoint: suite.url, authToken: 'legacy-login-token' }),
        new SDK({
          endpoint: suite.url,
          appId: suite.merchants.alpha.storeToken.jwt,
          secret: suite.merchants.alpha.storeToken.secret,
        }),
        new SDK({ endpoint: suite.url, appId: 'some-app-id' }),
      ];
      for (const sdk of legacy) {
        expect(await sdkError(sdk.merchants.me())).toEqual({
          status: 'error',
          code: 'INVALID_APP_TOKEN',
          httpCode: 401,
          errors: bearerRequired,
        });
      }
    });

    it('do not stand in the way of open routes', async () => {
      const res = await http('/heartbeat', { auth: 'ApplicationToken abc|def' });
      expect(res.status).toBe(200);
    });
  });

  it('refuses alg=none', async () => {
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claimsOf(suite.merchants.alpha.storeToken.jwt))}.`;
    expectErrorEnvelope(
      await http('/me', { auth: `Bearer ${suite.merchants.alpha.storeToken.secret}.${none}` }),
      401,
      'INVALID_APP_TOKEN',
    );
  });

  it('refuses another algorithm signed with the same key (pinned HS256)', async () => {
    const hs512 = jwt.sign(claimsOf(suite.merchants.alpha.storeToken.jwt), suite.env.config.JWT_SIGNING_KEY, {
      algorithm: 'HS512',
    });
    expectErrorEnvelope(
      await http('/me', { auth: `Bearer ${suite.merchants.alpha.storeToken.secret}.${hs512}` }),
      401,
      'INVALID_APP_TOKEN',
    );
  });

  it('refuses a tampered payload that points at another merchant', async () => {
    const [header, , signature] = suite.merchants.alpha.storeToken.jwt.split('.');
    const forged = b64({
      ...claimsOf(suite.merchants.alpha.storeToken.jwt),
      merchant_id: suite.merchants.beta.merchant.id,
      store_id: suite.merchants.beta.store.id,
    });
    expectErrorEnvelope(
      await http('/me', {
        auth: `Bearer ${suite.merchants.alpha.storeToken.secret}.${header}.${forged}.${signature}`,
      }),
      401,
      'INVALID_APP_TOKEN',
    );
  });

  it('refuses a token signed with another key', async () => {
    const other = signAppToken(
      {
        id: suite.merchants.alpha.storeToken.id,
        merchantId: suite.merchants.alpha.merchant.id,
        storeId: suite.merchants.alpha.store.id,
        mode: 'test',
        domains: [],
        version: 1,
      },
      'another-signing-key-of-at-least-32-chars',
    );
    expectErrorEnvelope(
      await http('/me', { auth: `Bearer ${suite.merchants.alpha.storeToken.secret}.${other}` }),
      401,
      'INVALID_APP_TOKEN',
    );
  });

  it('refuses a correctly signed token whose jti is unknown', async () => {
    const unknown = signAppToken(
      {
        id: randomUUID(),
        merchantId: suite.merchants.alpha.merchant.id,
        storeId: suite.merchants.alpha.store.id,
        mode: 'test',
        domains: [],
        version: 1,
      },
      suite.env.config.JWT_SIGNING_KEY,
    );
    expectErrorEnvelope(
      await http('/me', { auth: `Bearer ${suite.merchants.alpha.storeToken.secret}.${unknown}` }),
      401,
      'INVALID_APP_TOKEN',
    );
  });

  it('refuses a valid jwt with the wrong secret', async () => {
    const res = await http('/me', {
      auth: `Bearer ${suite.merchants.beta.storeToken.secret}.${suite.merchants.alpha.storeToken.jwt}`,
    });
    expectErrorEnvelope(res, 401, 'INVALID_CREDENTIALS');
    const err = await sdkError(
      new SDK({
        endpoint: suite.url,
        jwt: suite.merchants.alpha.storeToken.jwt,
        secret: 'wrong',
      }).merchants.me(),
    );
    expect(err).toMatchObject({ code: 'INVALID_CREDENTIALS', httpCode: 401 });
  });

  it('refuses a revoked token from the moment it is revoked', async () => {
    const token = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.beta.merchant.id,
      storeId: suite.merchants.beta.store.id,
      mode: 'test',
    });
    expect((await http('/me', { auth: bearer(token) })).status).toBe(200);
    await suite.env.admin.revokeAppToken(token.id);
    expectErrorEnvelope(await http('/me', { auth: bearer(token) }), 401, 'INVALID_APP_TOKEN');
  });

  it('refuses a token whose version is outdated', async () => {
    const token = await suite.env.merchantToken(suite.merchants.beta);
    await suite.env.prisma.appToken.update({ where: { id: token.id }, data: { version: 2 } });
    expectErrorEnvelope(await http('/me', { auth: bearer(token) }), 403, 'OUTDATED_APP_TOKEN');
  });

  it('accepts a secret-less token only from a listed Origin, and only on browser routes', async () => {
    const publicAuth = `Bearer ${suite.merchants.alpha.storeToken.jwt}`;
    expectErrorEnvelope(await http('/me', { auth: publicAuth }), 401, 'INVALID_DOMAIN');
    expectErrorEnvelope(
      await http('/me', { auth: publicAuth, headers: { origin: 'https://evil.test' } }),
      401,
      'INVALID_DOMAIN',
    );
    // a listed origin passes the domain check but /me is not a browser route
    expectErrorEnvelope(
      await http('/me', { auth: publicAuth, headers: { origin: 'https://shop.alpha.test' } }),
      403,
      'INVALID_PERMISSIONS',
    );
    const err = await sdkError(
      new SDK({
        endpoint: suite.url,
        jwt: suite.merchants.alpha.storeToken.jwt,
        origin: 'https://shop.alpha.test',
      }).merchants.me(),
    );
    expect(err).toMatchObject({ code: 'INVALID_PERMISSIONS', httpCode: 403 });
  });

  it('compares an HMAC-like secret of the right length as wrong, not as an error', async () => {
    const fake = createHmac('sha256', 'x').update('y').digest('base64url');
    expectErrorEnvelope(
      await http('/me', { auth: `Bearer ${fake}.${suite.merchants.alpha.storeToken.jwt}` }),
      401,
      'INVALID_CREDENTIALS',
    );
  });
});

describe('an empty JSON body', () => {
  // other SDKs and curl users send Content-Type: application/json with no body on a DELETE or a
  // bodiless POST: that is no body, not malformed JSON
  const json = { 'content-type': 'application/json' };
  const issue = async (body: string) => {
    const res = await http('/app_jwts', {
      method: 'POST',
      auth: bearer(alphaMerchantToken),
      headers: json,
      body,
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; mode: string; domains: string[] };
  };

  it('is no body on a bodiless POST: the defaults apply', async () => {
    for (const body of ['', ' \r\n\t ']) {
      expect(await issue(body)).toMatchObject({ mode: 'test', domains: [] });
    }
  });

  it('is no body on a DELETE', async () => {
    for (const body of ['', '\n']) {
      const { id } = await issue('');
      const res = await http(`/app_jwts/${id}`, {
        method: 'DELETE',
        auth: bearer(alphaMerchantToken),
        headers: json,
        body,
      });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
  });

  it('lets an unknown path answer 404, not a body error', async () => {
    for (const method of ['POST', 'DELETE', 'PATCH']) {
      const res = await http('/no/such/route', {
        method,
        auth: bearer(suite.merchants.alpha.storeToken),
        headers: json,
        body: '',
      });
      expectErrorEnvelope(res, 404, 'NOT_FOUND');
    }
  });

  it('leaves a route that needs a body to answer its own validation error', async () => {
    const res = await http('/charges', {
      method: 'POST',
      auth: bearer(suite.merchants.alpha.storeToken),
      headers: json,
      body: '',
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'transaction_token_id', reason: 'REQUIRED_VALUE' },
        { field: 'amount', reason: 'REQUIRED_VALUE' },
        { field: 'currency', reason: 'REQUIRED_VALUE' },
      ]),
    );
  });

  it('keeps the JSON and form parsers only: text and urlencoded bodies answer 415', () => {
    const fastify = suite.app.getHttpAdapter().getInstance();
    expect(fastify.hasContentTypeParser('application/json')).toBe(true);
    expect(fastify.hasContentTypeParser('application/x-www-form-urlencoded')).toBe(false);
    expect(fastify.hasContentTypeParser('text/plain')).toBe(false);
  });

  it('is still refused when it is malformed rather than empty', async () => {
    for (const body of ['{', ' x ', 'null x']) {
      const res = await http('/app_jwts', {
        method: 'POST',
        auth: bearer(alphaMerchantToken),
        headers: json,
        body,
      });
      expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ field: null, reason: 'INVALID_FORMAT_OBJECT' }]);
    }
  });
});

describe('error envelope', () => {
  const auth = () => bearer(suite.merchants.alpha.storeToken);

  it('unknown routes answer 404 in the envelope', async () => {
    expectErrorEnvelope(await http('/no/such/route', { auth: auth() }), 404, 'NOT_FOUND');
    expectErrorEnvelope(await http('/no/such/route'), 404, 'NOT_FOUND');
  });

  it('a known path with the wrong method answers 405 with Allow', async () => {
    const res = await http('/me', { method: 'DELETE', auth: auth() });
    expectErrorEnvelope(res, 405, 'NOT_ALLOWED');
    expect(res.headers.get('allow')).toContain('GET');
    const storePath = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PUT',
      auth: auth(),
    });
    expectErrorEnvelope(storePath, 405, 'NOT_ALLOWED');
    expect(storePath.headers.get('allow')).toMatch(/GET.*PATCH|PATCH.*GET/);
  });

  it('malformed JSON is a validation error, not a 500', async () => {
    const res = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PATCH',
      auth: auth(),
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
  });

  it('validation errors name the snake_case field', async () => {
    const res = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PATCH',
      auth: auth(),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '', logo_url: 'x' }),
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'name', reason: 'INVALID_FORMAT_LENGTH' },
        { field: 'logo_url', reason: 'FORBIDDEN_PARAMETER' },
      ]),
    );
  });

  it('an oversized body answers 413 in the envelope', async () => {
    const res = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PATCH',
      auth: auth(),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(suite.env.config.BODY_LIMIT_BYTES + 1) }),
    });
    expectErrorEnvelope(res, 413, 'REQUEST_TOO_LARGE');
  });

  it('an unsupported media type answers 415 in the envelope', async () => {
    const res = await http(`/stores/${suite.merchants.alpha.store.id}`, {
      method: 'PATCH',
      auth: auth(),
      headers: { 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expectErrorEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('the SDK surfaces validation errors with their fields', async () => {
    const err = await sdkError(sdkAs(suite.merchants.alpha.storeToken).stores.list({ limit: 5 }));
    expect(err).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
      errors: [{ field: 'limit', reason: 'NOT_WITHIN_BOUNDS' }],
    });
  });

  // last: breaks this suite's database on purpose
  it('an internal failure answers 500 with an error id and leaks nothing', async () => {
    await suite.env.prisma.$executeRawUnsafe('ALTER TABLE stores RENAME TO stores_gone');
    try {
      const res = await http('/stores', { auth: auth() });
      expectErrorEnvelope(res, 500, 'INTERNAL_SERVER_ERROR');
      expect(res.body.errors).toEqual([]);
      expect(res.body.error_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-error-id')).toBe(res.body.error_id);
      expect(res.text).not.toMatch(/stores|prisma|relation|select/i);
      expect(log.text).toContain(res.body.error_id);
    } finally {
      await suite.env.prisma.$executeRawUnsafe('ALTER TABLE stores_gone RENAME TO stores');
    }
  });
});

describe('logs', () => {
  it('never contain a secret or a JWT', () => {
    for (const token of [
      suite.merchants.alpha.storeToken,
      suite.merchants.beta.storeToken,
      alphaMerchantToken,
    ]) {
      expect(log.text).not.toContain(token.secret);
      expect(log.text).not.toContain(token.jwt.split('.')[2]);
    }
  });
});
