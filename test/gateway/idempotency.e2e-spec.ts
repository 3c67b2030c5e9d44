import { randomUUID } from 'node:crypto';
import SDK, { ResponseError } from 'univapay-node';
import {
  bearer,
  CapturedLog,
  requestJson,
  useSuite,
  type Credentials,
  type JsonRequest,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { fingerprintKey, requestFingerprint } from '../../apps/gateway/src/idempotency/request-fingerprint';
import { ResponseSealer } from '../../apps/gateway/src/idempotency/response-sealer';

type Token = Credentials;

const log = new CapturedLog();
const suite = useSuite({
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { shop: { label: 'idem' } },
});
let merchantToken: Token;

const call = (path: string, init?: JsonRequest) => requestJson(suite.url, path, init);

let keys = 0;
const newKey = () => `key-${Date.now()}-${++keys}`;

const activeMerchantTokens = () =>
  suite.env.prisma.appToken.count({
    where: { merchantId: suite.merchants.shop.merchant.id, storeId: null, revokedOn: null },
  });

beforeAll(async () => {
  merchantToken = await suite.env.merchantToken(suite.merchants.shop);
});

describe('Idempotency-Key', () => {
  it('executes 50 parallel requests with one key exactly once; the rest replay or get 409', async () => {
    const before = await activeMerchantTokens();
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: { mode: 'test' } }),
      ),
    );
    expect(await activeMerchantTokens()).toBe(before + 1);

    const created = results.filter((r) => r.status === 201);
    const inFlight = results.filter((r) => r.status === 409);
    expect(created.length + inFlight.length).toBe(50);
    expect(created.filter((r) => r.headers.get('idempotency-status') === 'successfully_stored')).toHaveLength(
      1,
    );
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of inFlight) {
      expect(r.body).toEqual({
        status: 'error',
        code: 'IDEMPOTENCY_KEY_CONFLICT',
        errors: [{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }],
      });
    }

    // once the first has finished, the same request replays the stored response byte for byte
    const replay = await call('/app_jwts', {
      method: 'POST',
      auth: bearer(merchantToken),
      key,
      json: { mode: 'test' },
    });
    const original = created.find((r) => r.headers.get('idempotency-status') === 'successfully_stored')!;
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(original.text);
    expect(replay.headers.get('content-type')).toBe(original.headers.get('content-type'));
    expect(replay.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
    expect(await activeMerchantTokens()).toBe(before + 1);
  });

  it('answers 409 IDEMPOTENCY_KEY_CONFLICT when the key comes back with a different request', async () => {
    const key = newKey();
    const first = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      json: { name: 'Renamed once' },
    });
    expect(first.status).toBe(200);
    const different = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      json: { name: 'Renamed twice' },
    });
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('IDEMPOTENCY_KEY_CONFLICT');
    expect(different.headers.get('idempotency-status')).toBe('conflicting_key');
    const store = await suite.env.prisma.store.findUniqueOrThrow({
      where: { id: suite.merchants.shop.store.id },
    });
    expect(store.name).toBe('Renamed once');

    // the same body in another key order is the same request
    const reordered = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      headers: { 'content-type': 'application/json' },
      body: '{ "name" : "Renamed once" }',
    });
    expect(reordered.status).toBe(200);
    expect(reordered.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
  });

  it('works through the official SDK (auth.idempotentKey)', async () => {
    const sdk = new SDK({ endpoint: suite.url, jwt: merchantToken.jwt, secret: merchantToken.secret });
    const key = newKey();
    const first = await sdk.stores.update(
      suite.merchants.shop.store.id,
      { name: 'Via SDK' },
      { idempotentKey: key },
    );
    const again = await sdk.stores.update(
      suite.merchants.shop.store.id,
      { name: 'Via SDK' },
      { idempotentKey: key },
    );
    expect(again).toEqual(first);
    let error: unknown;
    try {
      await sdk.stores.update(
        suite.merchants.shop.store.id,
        { name: 'Something else' },
        { idempotentKey: key },
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ResponseError);
    // the reason is the SDK's own spelling (decision 0069), not Kessai's former DIFFERENT_REQUEST
    expect((error as ResponseError).errorResponse).toMatchObject({
      code: 'IDEMPOTENCY_KEY_CONFLICT',
      httpCode: 409,
      errors: [{ field: 'idempotency_key', reason: 'IDEMPOTENCY_KEY_CONFLICT' }],
    });
  });

  it('scopes keys to the credential', async () => {
    const key = newKey();
    const other = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.shop.merchant.id,
      mode: 'test',
    });
    const before = await activeMerchantTokens();
    const a = await call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: {} });
    const b = await call('/app_jwts', { method: 'POST', auth: bearer(other), key, json: {} });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(await activeMerchantTokens()).toBe(before + 2);
  });

  it('stores client errors too, so a retry gets the same answer', async () => {
    const key = newKey();
    const first = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      json: { name: 42 },
    });
    expect(first.status).toBe(400);
    const again = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      json: { name: 42 },
    });
    expect(again.status).toBe(400);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const key = newKey();
    const path = `/stores/${suite.merchants.shop.store.id}`;
    const body = { name: 'Held' };
    await suite.env.prisma.idempotencyRecord.create({
      data: {
        credentialId: `app_token_${JSON.parse(Buffer.from(merchantToken.jwt.split('.')[1], 'base64url').toString()).jti}`,
        key,
        method: 'PATCH',
        path,
        requestHash: requestFingerprint(
          fingerprintKey(suite.env.config.IDEMPOTENCY_KEY_SECRET),
          'PATCH',
          path,
          body,
        ),
        expiresOn: new Date(Date.now() + 60_000),
      },
    });
    const res = await call(path, { method: 'PATCH', auth: bearer(merchantToken), key, json: body });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([{ field: 'idempotency_key', reason: 'REQUEST_IN_PROGRESS' }]);
    const store = await suite.env.prisma.store.findUniqueOrThrow({
      where: { id: suite.merchants.shop.store.id },
    });
    expect(store.name).not.toBe('Held');
  });

  it('replays a response stored before IDEMPOTENCY_KEY_SECRET, keyed from JWT_SIGNING_KEY (decision 0027)', async () => {
    const key = newKey();
    const path = `/stores/${suite.merchants.shop.store.id}`;
    const body = { name: 'Stored before the switch' };
    const legacy = suite.env.config.JWT_SIGNING_KEY;
    const id = randomUUID();
    const answer = JSON.stringify({ stored: 'before the switch' });
    await suite.env.prisma.idempotencyRecord.create({
      data: {
        id,
        credentialId: `app_token_${JSON.parse(Buffer.from(merchantToken.jwt.split('.')[1], 'base64url').toString()).jti}`,
        key,
        method: 'PATCH',
        path,
        requestHash: requestFingerprint(fingerprintKey(legacy), 'PATCH', path, body),
        state: 'completed',
        responseStatus: 200,
        responseBody: new ResponseSealer(legacy).seal(answer, id),
        responseHeaders: { 'content-type': 'application/json; charset=utf-8' },
        expiresOn: new Date(Date.now() + 60_000),
      },
    });
    const res = await call(path, { method: 'PATCH', auth: bearer(merchantToken), key, json: body });
    expect(res.status).toBe(200);
    expect(res.text).toBe(answer);
    expect(res.headers.get('idempotency-status')).toBe('retrieved_idempotent_response');
    // another request under the same key is still another request
    const other = await call(path, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key,
      json: { name: 'x' },
    });
    expect(other.status).toBe(409);
    const store = await suite.env.prisma.store.findUniqueOrThrow({
      where: { id: suite.merchants.shop.store.id },
    });
    expect(store.name).not.toBe(body.name);
  });

  it('takes an expired key over as a new request', async () => {
    const key = newKey();
    const before = await activeMerchantTokens();
    const first = await call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: {} });
    await suite.env.prisma.idempotencyRecord.updateMany({
      where: { key },
      data: { expiresOn: new Date(Date.now() - 1) },
    });
    const second = await call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: {} });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(await activeMerchantTokens()).toBe(before + 2);
  });

  it('rejects keys over 255 characters and accepts 255', async () => {
    const tooLong = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key: 'k'.repeat(256),
      json: { name: 'Long key' },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({
      status: 'error',
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'idempotency_key', reason: 'INVALID_FORMAT_LENGTH' }],
    });
    const longest = await call(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth: bearer(merchantToken),
      key: 'k'.repeat(255),
      json: { name: 'Longest key' },
    });
    expect(longest.status).toBe(200);
    expect(longest.headers.get('idempotency-status')).toBe('successfully_stored');
  });

  it('leaves reads alone', async () => {
    const key = newKey();
    const res = await call(`/stores/${suite.merchants.shop.store.id}`, { auth: bearer(merchantToken), key });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotency-status')).toBeNull();
    expect(await suite.env.prisma.idempotencyRecord.count({ where: { key } })).toBe(0);
  });

  it('keeps stored responses encrypted, and answers 500 UNABLE_TO_GET_IDEMPOTENT_REQUEST (as the SDK spells it) when one is unreadable', async () => {
    const key = newKey();
    const created = await call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: {} });
    expect(created.status).toBe(201);
    const record = await suite.env.prisma.idempotencyRecord.findFirstOrThrow({ where: { key } });
    expect(record.responseBody).not.toContain(created.body.secret);
    expect(record.responseBody).not.toContain(created.body.id);

    await suite.env.prisma.idempotencyRecord.update({
      where: { id: record.id },
      data: { responseBody: record.responseBody!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) },
    });
    const replay = await call('/app_jwts', { method: 'POST', auth: bearer(merchantToken), key, json: {} });
    expect(replay.status).toBe(500);
    expect(replay.body).toEqual({ status: 'error', code: 'UNABLE_TO_GET_IDEMPOTENT_REQUEST', errors: [] });
    expect(replay.text).not.toContain(created.body.secret);
  });
});
