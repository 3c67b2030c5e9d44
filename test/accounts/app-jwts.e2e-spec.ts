import { randomUUID } from 'node:crypto';
import SDK from 'univapay-node';
import { AdminError } from '@kessai/admin';
import { hashSecret, verifyAppToken } from '@kessai/auth';
import { loadConfig } from '@kessai/config';
import {
  bearer,
  CapturedLog,
  eventually,
  expectErrorEnvelope,
  requestJson,
  listenLocally,
  useSuite,
  type Credentials,
} from '@kessai/testing';
import { AppTokensRepository } from '@kessai/db';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { AppTokenCache } from '../../apps/gateway/src/auth/app-token-cache';

const log = new CapturedLog();
const suite = useSuite({
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { alpha: { domains: ['shop.alpha.test'] }, beta: {} },
});
let alphaMerchant: Credentials & { id: string };
const issuedSecrets: string[] = [];

/** A request to the gateway; every secret it answers is kept for the leak check. */
async function http(
  path: string,
  init: { method?: string; auth?: string; body?: unknown; origin?: string } = {},
) {
  const { method, auth, origin, body } = init;
  const res = await requestJson(suite.url, path, { method, auth, origin, json: body });
  if (res.body && typeof res.body.secret === 'string') issuedSecrets.push(res.body.secret);
  return res;
}

function activeTokens(where: { merchantId: string; storeId: string | null }) {
  return suite.env.prisma.appToken.count({ where: { ...where, revokedOn: null } });
}

beforeAll(async () => {
  alphaMerchant = await suite.env.merchantToken(suite.merchants.alpha);
});

describe('creating app tokens', () => {
  it('a merchant credential creates a merchant token; the answer is the only place its secret appears', async () => {
    const res = await http('/app_jwts', {
      method: 'POST',
      auth: bearer(alphaMerchant),
      body: { domains: ['shop.alpha.test', '*.alpha.test'] },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      id: expect.any(String),
      merchant_id: suite.merchants.alpha.merchant.id,
      store_id: null,
      mode: 'test',
      domains: ['shop.alpha.test', '*.alpha.test'],
      created_on: expect.any(String),
      updated_on: expect.any(String),
      jwt: expect.any(String),
      secret: expect.any(String),
    });
    const created = res.body as Credentials & { id: string };
    expect(verifyAppToken(created.jwt, suite.env.config.JWT_SIGNING_KEY)).toMatchObject({
      jti: created.id,
      merchant_id: suite.merchants.alpha.merchant.id,
      mode: 'test',
    });

    // the new credentials work with the official SDK
    const me = await new SDK({
      endpoint: suite.url,
      jwt: created.jwt,
      secret: created.secret,
    }).merchants.me();
    expect(me.id).toBe(suite.merchants.alpha.merchant.id);

    // stored only as a hash; get and list never show it again (nor the jwt)
    const row = await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secretHash).toBe(hashSecret(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);
    const got = await http(`/app_jwts/${created.id}`, { auth: bearer(alphaMerchant) });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      id: created.id,
      merchant_id: suite.merchants.alpha.merchant.id,
      store_id: null,
      mode: 'test',
      domains: ['shop.alpha.test', '*.alpha.test'],
      created_on: res.body.created_on,
      updated_on: res.body.updated_on,
    });
    const listed = await http('/app_jwts', { auth: bearer(alphaMerchant) });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(listed.text).not.toContain(created.secret);
    expect(listed.text).not.toContain('"secret"');
    expect(got.text).not.toContain(created.secret);
  });

  it('a store credential creates tokens for its own store, and the merchant for any of its stores', async () => {
    const own = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts`, {
      method: 'POST',
      auth: bearer(suite.merchants.alpha.storeToken),
      body: { mode: 'test' },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({
      store_id: suite.merchants.alpha.store.id,
      merchant_id: suite.merchants.alpha.merchant.id,
      domains: [],
    });
    const byMerchant = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts`, {
      method: 'POST',
      auth: bearer(alphaMerchant),
      body: {},
    });
    expect(byMerchant.status).toBe(201);
    expect(verifyAppToken(byMerchant.body.jwt, suite.env.config.JWT_SIGNING_KEY).store_id).toBe(
      suite.merchants.alpha.store.id,
    );
  });

  it('a test credential cannot issue a live token; a live credential can, for a verified merchant only', async () => {
    const refused = await http('/app_jwts', {
      method: 'POST',
      auth: bearer(alphaMerchant),
      body: { mode: 'live' },
    });
    expectErrorEnvelope(refused, 403, 'INVALID_PERMISSIONS');
    // the operator issued this one before verifying the merchant (docs/decisions/0028): until it
    // does, live mode answers it with LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED (decision 0049)
    const live = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.beta.merchant.id,
      mode: 'live',
    });
    const unverified = await http('/app_jwts', {
      method: 'POST',
      auth: bearer(live),
      body: { mode: 'live' },
    });
    expectErrorEnvelope(unverified, 400, 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED');
    await suite.env.admin.setVerified(suite.merchants.beta.merchant.id, true);
    const issued = await http('/app_jwts', { method: 'POST', auth: bearer(live), body: { mode: 'live' } });
    expect(issued.status).toBe(201);
    expect(issued.body.mode).toBe('live');
  });

  it.each([
    [{ mode: 'prod' }, [{ field: 'mode', reason: 'INVALID_FORMAT' }]],
    [{ domains: 'shop.test' }, [{ field: 'domains', reason: 'INVALID_FORMAT' }]],
    [{ domains: ['ok.test', 'not a domain'] }, [{ field: 'domains.1', reason: 'INVALID_FORMAT' }]],
    [{ domains: [''] }, [{ field: 'domains.0', reason: 'INVALID_FORMAT' }]],
    // a wildcard over a public suffix would let every site under it use the token (frame-ancestors *.com)
    [{ domains: ['*.com'] }, [{ field: 'domains.0', reason: 'INVALID_FORMAT' }]],
    [{ domains: ['ok.test', 'https://*.co.jp'] }, [{ field: 'domains.1', reason: 'INVALID_FORMAT' }]],
    [{ domains: ['*.github.io:443'] }, [{ field: 'domains.0', reason: 'INVALID_FORMAT' }]],
    [{ scope: 'store' }, [{ field: 'scope', reason: 'FORBIDDEN_PARAMETER' }]],
  ])('refuses %j with a validation error naming the field', async (body, errors) => {
    const res = await http('/app_jwts', { method: 'POST', auth: bearer(alphaMerchant), body });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual(errors);
  });
});

describe('the limit of 20 active tokens per scope', () => {
  it('40 parallel creations in one store: exactly 20 succeed, the rest are RESOURCE_LIMIT_REACHED', async () => {
    const store = await suite.env.admin.createStore({
      merchantId: suite.merchants.alpha.merchant.id,
      name: 'alpha Parallel',
    });
    const results = await Promise.all(
      Array.from({ length: 40 }, () =>
        http(`/stores/${store.id}/app_jwts`, { method: 'POST', auth: bearer(alphaMerchant), body: {} }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(20);
    for (const res of refused) expectErrorEnvelope(res, 400, 'RESOURCE_LIMIT_REACHED');
    expect(await activeTokens({ merchantId: suite.merchants.alpha.merchant.id, storeId: store.id })).toBe(20);
    expect(await suite.env.prisma.appToken.count({ where: { storeId: store.id } })).toBe(20);
  });

  it('counts the merchant and each store apart, and holds for the admin CLI too', async () => {
    const gamma = await suite.env.seedMerchant('gamma'); // one store token already
    const merchantToken = await suite.env.merchantToken(gamma);
    const fill = await Promise.all(
      Array.from({ length: 25 }, () =>
        http('/app_jwts', { method: 'POST', auth: bearer(merchantToken), body: {} }),
      ),
    );
    // the calling merchant token is one of the merchant's 20
    expect(fill.filter((r) => r.status === 201)).toHaveLength(19);
    expect(await activeTokens({ merchantId: gamma.merchant.id, storeId: null })).toBe(20);
    expectErrorEnvelope(
      await http('/app_jwts', { method: 'POST', auth: bearer(merchantToken), body: {} }),
      400,
      'RESOURCE_LIMIT_REACHED',
    );
    await expect(
      suite.env.admin.issueAppToken({ merchantId: gamma.merchant.id, mode: 'test' }),
    ).rejects.toThrow(AdminError);

    // the store's tokens are counted on their own: it still has 19 free slots
    const inStore = await http(`/stores/${gamma.store.id}/app_jwts`, {
      method: 'POST',
      auth: bearer(merchantToken),
      body: {},
    });
    expect(inStore.status).toBe(201);
    expect(await activeTokens({ merchantId: gamma.merchant.id, storeId: gamma.store.id })).toBe(2);
    const issuedByCli = await suite.env.admin.issueAppToken({
      merchantId: gamma.merchant.id,
      storeId: gamma.store.id,
      mode: 'test',
    });
    expect(issuedByCli.store_id).toBe(gamma.store.id);
  });

  it('revoking frees a slot; the revoked token is refused with 401 at once', async () => {
    const delta = await suite.env.seedMerchant('delta');
    const auth = bearer(delta.storeToken);
    const path = `/stores/${delta.store.id}/app_jwts`;
    const created = await Promise.all(
      Array.from({ length: 19 }, () => http(path, { method: 'POST', auth, body: {} })),
    );
    expect(created.every((r) => r.status === 201)).toBe(true);
    expectErrorEnvelope(await http(path, { method: 'POST', auth, body: {} }), 400, 'RESOURCE_LIMIT_REACHED');

    const victim = created[0].body as Credentials & { id: string };
    expect((await http('/me', { auth: bearer(victim) })).status).toBe(200);
    const revoked = await http(`${path}/${victim.id}`, { method: 'DELETE', auth });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    expectErrorEnvelope(await http('/me', { auth: bearer(victim) }), 401, 'INVALID_APP_TOKEN');
    expectErrorEnvelope(await http(`${path}/${victim.id}`, { auth }), 404, 'NOT_FOUND');
    expectErrorEnvelope(await http(`${path}/${victim.id}`, { method: 'DELETE', auth }), 404, 'NOT_FOUND');
    expect(
      (await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id: victim.id } })).revokedOn,
    ).not.toBeNull();

    expect((await http(path, { method: 'POST', auth, body: {} })).status).toBe(201);
    expectErrorEnvelope(await http(path, { method: 'POST', auth, body: {} }), 400, 'RESOURCE_LIMIT_REACHED');
  });

  it('a revocation through one gateway is honoured at once by another that had the token cached', async () => {
    // its cache keeps a row for the longest TTL allowed: only the revocation notice can drop it in time
    const other = await createGatewayApp(
      loadConfig({ ...suite.env.variables, APP_TOKEN_CACHE_TTL_MS: '60000' }),
    );
    try {
      const otherUrl = await listenLocally(other);
      const token = await suite.env.merchantToken(suite.merchants.beta);
      const meThere = () =>
        fetch(`${otherUrl}/me`, { headers: { authorization: bearer(token) } }).then((r) => r.status);
      expect(await meThere()).toBe(200); // now cached there
      expect((await http(`/app_jwts/${token.id}`, { method: 'DELETE', auth: bearer(token) })).status).toBe(
        204,
      );
      // pub/sub delivery is asynchronous: the other gateway refuses the token once the notice arrives
      await eventually(async () => (await meThere()) === 401, {
        what: 'the other gateway to refuse the token',
      });
    } finally {
      await other.close();
    }
  });

  it('the app-token cache: concurrent lookups share one read; a revocation during a read is not cached over', async () => {
    const cache = suite.app.get(AppTokenCache);
    const reads = jest.spyOn(suite.app.get(AppTokensRepository), 'findById');
    try {
      const token = await suite.env.merchantToken(suite.merchants.beta);
      const together = await Promise.all(Array.from({ length: 10 }, () => cache.find(token.id)));
      expect(reads).toHaveBeenCalledTimes(1);
      expect(together.every((row) => row?.id === token.id && row.revokedOn === null)).toBe(true);
      expect((await cache.find(token.id))?.id).toBe(token.id); // cached: no read
      expect(reads).toHaveBeenCalledTimes(1);

      // a revocation notice while a read is under way: that read answers, but is not cached
      await cache.invalidate(token.id);
      const during = cache.find(token.id);
      await cache.invalidate(token.id);
      expect((await during)?.id).toBe(token.id);
      await cache.find(token.id);
      expect(reads).toHaveBeenCalledTimes(3);

      await suite.env.admin.revokeAppToken(token.id); // invalidates through pub/sub
      await cache.invalidate(token.id); // and here at once, as the revoking gateway does
      expect((await cache.find(token.id))?.revokedOn).not.toBeNull();
    } finally {
      reads.mockRestore();
    }
  });

  it('revoking a token revokes every token it issued, transitively; tokens a user or the operator issued stand alone', async () => {
    const root = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.alpha.merchant.id,
      storeId: suite.merchants.alpha.store.id,
      mode: 'test',
    });
    const sibling = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.alpha.merchant.id,
      storeId: suite.merchants.alpha.store.id,
      mode: 'test',
    });
    const issue = async (by: Credentials) => {
      const res = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts`, {
        method: 'POST',
        auth: bearer(by),
        body: {},
      });
      expect(res.status).toBe(201);
      return { id: res.body.id as string, secret: res.body.secret as string, jwt: res.body.jwt as string };
    };
    // a leaked token issuing more, and those issuing more again
    const child = await issue(root);
    const grandchild = await issue(child);
    const ofSibling = await issue(sibling);
    for (const token of [root, child, grandchild, sibling, ofSibling])
      expect((await http(`/stores/${suite.merchants.alpha.store.id}`, { auth: bearer(token) })).status).toBe(
        200,
      );

    // the merchant revokes the leaked one: its whole issue stops authenticating at once
    const revoked = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts/${root.id}`, {
      method: 'DELETE',
      auth: bearer(alphaMerchant),
    });
    expect(revoked.status).toBe(204);
    for (const token of [root, child, grandchild])
      expect((await http(`/stores/${suite.merchants.alpha.store.id}`, { auth: bearer(token) })).status).toBe(
        401,
      );
    for (const token of [sibling, ofSibling])
      expect((await http(`/stores/${suite.merchants.alpha.store.id}`, { auth: bearer(token) })).status).toBe(
        200,
      );
    const listed = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts?limit=100`, {
      auth: bearer(alphaMerchant),
    });
    const active = listed.body.items.map((t: { id: string }) => t.id);
    expect(active).toEqual(expect.arrayContaining([sibling.id, ofSibling.id]));
    for (const id of [root.id, child.id, grandchild.id]) expect(active).not.toContain(id);

    // the operator's revocation does the same
    const cli = await suite.env.admin.revokeAppToken(sibling.id);
    expect(cli.revoked_with_it).toEqual([ofSibling.id]);
    expect(
      (await http(`/stores/${suite.merchants.alpha.store.id}`, { auth: bearer(ofSibling) })).status,
    ).toBe(401);
  });

  it('a token may revoke itself, and is refused from the next request on', async () => {
    const token = await suite.env.merchantToken(suite.merchants.beta);
    expect((await http(`/app_jwts/${token.id}`, { method: 'DELETE', auth: bearer(token) })).status).toBe(204);
    expectErrorEnvelope(await http('/app_jwts', { auth: bearer(token) }), 401, 'INVALID_APP_TOKEN');
  });
});

describe('who may see which tokens', () => {
  it('a store credential may not manage the merchant tokens', async () => {
    expectErrorEnvelope(
      await http('/app_jwts', { auth: bearer(suite.merchants.alpha.storeToken) }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(
      await http('/app_jwts', { method: 'POST', auth: bearer(suite.merchants.alpha.storeToken), body: {} }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(
      await http(`/app_jwts/${alphaMerchant.id}`, {
        method: 'DELETE',
        auth: bearer(suite.merchants.alpha.storeToken),
      }),
      403,
      'INVALID_PERMISSIONS',
    );
    // nor reach a merchant token through its own store's path
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts/${alphaMerchant.id}`, {
        auth: bearer(suite.merchants.alpha.storeToken),
      }),
      404,
      'NOT_FOUND',
    );
    expect((await http('/me', { auth: bearer(alphaMerchant) })).status).toBe(200);
  });

  it("a store credential sees its own store's tokens only, never a sibling store's", async () => {
    const { store: sibling, storeToken: siblingToken } = await suite.env.seedStore(
      suite.merchants.alpha,
      'alpha Sibling',
    );
    const auth = bearer(suite.merchants.alpha.storeToken);
    const own = await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts?limit=100`, { auth });
    expect(own.status).toBe(200);
    expect(
      own.body.items.every((t: { store_id: string }) => t.store_id === suite.merchants.alpha.store.id),
    ).toBe(true);
    expect(own.body.items.map((t: { id: string }) => t.id)).toContain(suite.merchants.alpha.storeToken.id);

    const missingStore = await http(`/stores/${randomUUID()}/app_jwts`, { auth });
    const siblingList = await http(`/stores/${sibling.id}/app_jwts`, { auth });
    expectErrorEnvelope(siblingList, 404, 'NOT_FOUND');
    expect(siblingList.body).toEqual(missingStore.body);
    expectErrorEnvelope(
      await http(`/stores/${sibling.id}/app_jwts/${siblingToken.id}`, { auth }),
      404,
      'NOT_FOUND',
    );
    expectErrorEnvelope(
      await http(`/stores/${sibling.id}/app_jwts/${siblingToken.id}`, { method: 'DELETE', auth }),
      404,
      'NOT_FOUND',
    );
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts/${siblingToken.id}`, {
        method: 'DELETE',
        auth,
      }),
      404,
      'NOT_FOUND',
    );
    expect((await http('/me', { auth: bearer(siblingToken) })).status).toBe(200);

    // the merchant sees the sibling's tokens
    const byMerchant = await http(`/stores/${sibling.id}/app_jwts`, { auth: bearer(alphaMerchant) });
    expect(byMerchant.body.items.map((t: { id: string }) => t.id)).toEqual([siblingToken.id]);
  });

  it("another merchant's tokens and stores answer 404 exactly like unknown ids", async () => {
    const betaMerchant = await suite.env.merchantToken(suite.merchants.beta);
    const auth = bearer(betaMerchant);
    const foreign = await http(`/app_jwts/${alphaMerchant.id}`, { method: 'DELETE', auth });
    const unknown = await http(`/app_jwts/${randomUUID()}`, { method: 'DELETE', auth });
    expectErrorEnvelope(foreign, 404, 'NOT_FOUND');
    expect(foreign.body).toEqual(unknown.body);
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts`, { auth }),
      404,
      'NOT_FOUND',
    );
    expectErrorEnvelope(
      await http(
        `/stores/${suite.merchants.alpha.store.id}/app_jwts/${suite.merchants.alpha.storeToken.id}`,
        { method: 'DELETE', auth },
      ),
      404,
      'NOT_FOUND',
    );
    expect((await http('/me', { auth: bearer(alphaMerchant) })).status).toBe(200);
    expect((await http('/me', { auth: bearer(suite.merchants.alpha.storeToken) })).status).toBe(200);
  });

  it('malformed ids answer 404, never 400 or 500', async () => {
    const auth = bearer(alphaMerchant);
    expectErrorEnvelope(await http('/app_jwts/nope', { auth }), 404, 'NOT_FOUND');
    expectErrorEnvelope(await http('/stores/nope/app_jwts', { auth }), 404, 'NOT_FOUND');
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.alpha.store.id}/app_jwts/nope`, { method: 'DELETE', auth }),
      404,
      'NOT_FOUND',
    );
  });

  it('public (secret-less) tokens may not manage tokens: 403 from a listed Origin, 401 from elsewhere', async () => {
    const publicAuth = `Bearer ${suite.merchants.alpha.storeToken.jwt}`;
    const path = `/stores/${suite.merchants.alpha.store.id}/app_jwts`;
    expectErrorEnvelope(
      await http(path, { method: 'POST', auth: publicAuth, body: {}, origin: 'https://shop.alpha.test' }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(
      await http(path, { auth: publicAuth, origin: 'https://shop.alpha.test' }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(
      await http(path, { method: 'POST', auth: publicAuth, body: {} }),
      401,
      'INVALID_DOMAIN',
    );
    expectErrorEnvelope(await http(path), 401, 'AUTH_HEADER_MISSING');
  });
});

describe('listing', () => {
  it('pages through active tokens newest first, without revoked ones', async () => {
    const store = await suite.env.admin.createStore({
      merchantId: suite.merchants.beta.merchant.id,
      name: 'beta Paged',
    });
    const ids: string[] = [];
    for (let i = 0; i < 13; i++) {
      ids.push(
        (
          await suite.env.admin.issueAppToken({
            merchantId: suite.merchants.beta.merchant.id,
            storeId: store.id,
            mode: 'test',
          })
        ).id,
      );
    }
    await suite.env.admin.revokeAppToken(ids[5]);
    const active = ids.filter((id) => id !== ids[5]).reverse();
    const auth = bearer(suite.merchants.beta.storeToken);
    const merchantAuth = bearer(await suite.env.merchantToken(suite.merchants.beta));
    expectErrorEnvelope(await http(`/stores/${store.id}/app_jwts`, { auth }), 404, 'NOT_FOUND');

    const first = await http(`/stores/${store.id}/app_jwts`, { auth: merchantAuth });
    expect(first.status).toBe(200);
    expect(first.body.items.map((t: { id: string }) => t.id)).toEqual(active.slice(0, 10));
    expect(first.body.has_more).toBe(true);
    const next = await http(`/stores/${store.id}/app_jwts?cursor=${active[9]}`, { auth: merchantAuth });
    expect(next.body.items.map((t: { id: string }) => t.id)).toEqual(active.slice(10));
    expect(next.body.has_more).toBe(false);
    const oldestFirst = await http(`/stores/${store.id}/app_jwts?limit=100&cursor_direction=asc`, {
      auth: merchantAuth,
    });
    expect(oldestFirst.body.items.map((t: { id: string }) => t.id)).toEqual([...active].reverse());

    expectErrorEnvelope(
      await http(`/stores/${store.id}/app_jwts?limit=5`, { auth: merchantAuth }),
      400,
      'VALIDATION_ERROR',
    );
    const revokedCursor = await http(`/stores/${store.id}/app_jwts?cursor=${ids[5]}`, { auth: merchantAuth });
    expectErrorEnvelope(revokedCursor, 400, 'VALIDATION_ERROR');
    expect(revokedCursor.body.errors).toEqual([{ field: 'cursor', reason: 'NOT_FOUND' }]);
  });
});

describe('logs', () => {
  it('never contain an issued secret or a jwt signature', () => {
    expect(issuedSecrets.length).toBeGreaterThan(20);
    for (const secret of issuedSecrets) expect(log.text).not.toContain(secret);
    expect(log.text).not.toContain(alphaMerchant.jwt.split('.')[2]);
  });
});
