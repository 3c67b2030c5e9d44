// Crafted request bodies and the answers' headers (issue 27, docs/security.md "Request bodies and
// headers"): each reproduction answered 500 (or took a body it should not have) before the JSON
// parser held bodies to JSON_LIMITS, to UTF-8 and to the string rules.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { bearer, expectErrorEnvelope, requestJson, useSuite, type JsonRequest } from '@kessai/testing';
import { signProcessorCallback } from '@kessai/processor';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { GATEWAY_CONTROLLERS } from '../../apps/gateway/src/app.module';
import { credentialRoutes } from '../../apps/gateway/src/auth/credential-check';
import { RouteRegistry } from '../../apps/gateway/src/http/route-registry';
import { RAW_JSON_BODY_LIMIT_BYTES } from '../../apps/gateway/src/http/json-body-parser';
import { JSON_LIMITS } from '../../apps/gateway/src/http/json-text';

const routes = new RouteRegistry();
const suite = useSuite({
  gateway: (config) => createGatewayApp(config, { routes }),
  merchants: { shop: { label: 'input', domains: ['shop.input.test'] } },
});
let auth: string;
let merchantAuth: string;
const USER = { email: 'owner@input.test', password: 'correct-horse-1' };

const http = (path: string, init?: JsonRequest) => requestJson(suite.url, path, init);
const JSON_TYPE = { 'content-type': 'application/json' };
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** Deep enough to overflow any recursive walk of the parsed value, well inside the body limit. */
const DEEP = nested(200_000);

beforeAll(async () => {
  auth = bearer(suite.merchants.shop.storeToken);
  merchantAuth = bearer(await suite.env.merchantToken(suite.merchants.shop));
  await suite.env.admin.createUser({ merchantId: suite.merchants.shop.merchant.id, ...USER, name: 'Owner' });
}, 60_000);

describe('JSON bodies are held to JSON_LIMITS while they are parsed', () => {
  it('deep JSON with an Idempotency-Key answers 400, not a stack overflow in the fingerprint', async () => {
    for (const [method, path] of [
      ['PATCH', `/stores/${suite.merchants.shop.store.id}`],
      ['POST', '/charges'],
      ['POST', '/webhooks'],
      ['POST', '/app_jwts'],
    ]) {
      const res = await http(path, {
        method,
        auth,
        key: randomUUID(),
        headers: JSON_TYPE,
        body: `{"name":${DEEP}}`,
      });
      expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ field: null, reason: 'NESTED_JSON_NOT_ALLOWED' }]);
    }
  });

  it('takes nesting up to the limit, refuses one level more', async () => {
    const body = (depth: number) => `{"name":"n","x":${nested(depth - 1)}}`;
    const at = await http(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth,
      headers: JSON_TYPE,
      body: body(JSON_LIMITS.maxDepth),
    });
    // parsed: the store's schema refuses the unknown field
    expect(at.body.errors).not.toEqual([{ field: null, reason: 'NESTED_JSON_NOT_ALLOWED' }]);
    const beyond = await http(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth,
      headers: JSON_TYPE,
      body: body(JSON_LIMITS.maxDepth + 1),
    });
    expect(beyond.body.errors).toEqual([{ field: null, reason: 'NESTED_JSON_NOT_ALLOWED' }]);
  });

  it('refuses an object or an array wider than the limits', async () => {
    const wideObject = JSON.stringify(
      Object.fromEntries(Array.from({ length: JSON_LIMITS.maxMembers + 1 }, (_, i) => [`k${i}`, 1])),
    );
    const longArray = JSON.stringify({ triggers: Array.from({ length: JSON_LIMITS.maxItems + 1 }, () => 0) });
    for (const body of [wideObject, longArray]) {
      const res = await http('/webhooks', { method: 'POST', auth, headers: JSON_TYPE, body });
      expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ field: null, reason: 'INVALID_FORMAT_LENGTH' }]);
    }
  });

  it('let the largest metadata the API takes through to its own rules (16 KiB: ~1,500 keys, ~8,000 items)', async () => {
    const keys = Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`k${i}`, i % 10]));
    const items = { list: Array.from({ length: 8_000 }, () => 0) };
    for (const metadata of [keys, items]) {
      expect(JSON.stringify(metadata).length).toBeLessThanOrEqual(16_384);
      const res = await http('/charges', {
        method: 'POST',
        auth,
        json: { transaction_token_id: randomUUID(), amount: 1000, currency: 'JPY', metadata },
      });
      // parsed and validated: only the unknown token is refused
      expectErrorEnvelope(res, 404, 'NOT_FOUND');
    }
  });
});

describe('metadata nested deeper than its own rule', () => {
  const charge = (metadata: unknown) => ({
    transaction_token_id: randomUUID(),
    amount: 1000,
    currency: 'JPY',
    metadata,
  });

  it('as a JSON-encoded string answers 400 on charges and subscriptions, not a stack overflow', async () => {
    const metadata = `{"a":${DEEP}}`;
    for (const path of ['/charges', '/subscriptions']) {
      const res = await http(path, {
        method: 'POST',
        auth,
        json: { ...charge(metadata), period: 'monthly' },
      });
      expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
      expect(res.body.errors).toContainEqual({ field: 'metadata', reason: 'NESTED_JSON_NOT_ALLOWED' });
    }
  });

  it('as an object answers 400 where the body is parsed, not a stack overflow in its length check', async () => {
    const res = await http('/charges', {
      method: 'POST',
      auth,
      headers: JSON_TYPE,
      body: `{"transaction_token_id":"${randomUUID()}","amount":1000,"currency":"JPY","metadata":{"a":${DEEP}}}`,
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: null, reason: 'NESTED_JSON_NOT_ALLOWED' }]);
  });
});

describe('strings: no U+0000, no lone surrogate', () => {
  it.each([
    [
      'a store name',
      'PATCH',
      () => `/stores/${suite.merchants.shop.store.id}`,
      '{"name":"a\\ud800b"}',
      'name',
    ],
    ['metadata', 'POST', () => '/charges', '{"metadata":{"k":["ok","\\udc00"]}}', 'metadata.k.1'],
    ['a metadata key', 'POST', () => '/charges', '{"metadata":{"\\ud83d":1}}', 'metadata.\ud83d'],
    [
      'a billing field',
      'POST',
      () => '/tokens',
      '{"payment_type":"card","type":"one_time","data":{"line1":"\\ud800"}}',
      'data.line1',
    ],
    [
      'a webhook auth_token',
      'POST',
      () => '/webhooks',
      '{"triggers":["charge_finished"],"url":"https://example.test/h","auth_token":"x\\udbff"}',
      'auth_token',
    ],
    [
      'the unauthenticated POST /authenticate',
      'POST',
      () => '/authenticate',
      '{"email":"a\\ud800@x.test","password":"p"}',
      'email',
    ],
    [
      'metadata sent JSON-encoded',
      'POST',
      () => '/charges',
      JSON.stringify({ metadata: '{"k":"\\ud800"}' }),
      'metadata.k',
    ],
  ])('%s with a lone surrogate answers 400 naming the field', async (_, method, path, body, field) => {
    const res = await http(path(), { method, auth, headers: JSON_TYPE, body });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toContainEqual({ field, reason: 'INVALID_FORMAT' });
  });

  it('a surrogate pair and other text above U+FFFF are taken', async () => {
    const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth,
      headers: JSON_TYPE,
      body: '{"name":"\\ud83d\\ude00 店舗"}',
    });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('😀 店舗');
  });

  it('a form field (the logo form) holding U+0000 answers 400, not 500', async () => {
    const form = new FormData();
    form.set('name', 'a\u0000b');
    const res = await http(`/stores/${suite.merchants.shop.store.id}`, { method: 'PATCH', auth, body: form });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: 'name', reason: 'INVALID_FORMAT' }]);
  });
});

describe('encodings', () => {
  it('a charset other than UTF-8 answers 415, as other media types do', async () => {
    for (const type of ['application/json; charset=utf-16', 'application/json; charset="ISO-8859-1"']) {
      const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        auth,
        headers: { 'content-type': type },
        body: '{"name":"not read"}',
      });
      expectErrorEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(res.body.errors).toEqual([{ field: null, reason: 'INVALID_FORMAT' }]);
    }
    const store = await http(`/stores/${suite.merchants.shop.store.id}`, { auth });
    expect(store.body.name).not.toBe('not read');
  });

  it('UTF-8 named in any spelling is read', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        auth,
        headers: { 'content-type': type },
        body: '{"name":"utf-8 café"}',
      });
      expect(res.status).toBe(200);
      expect(res.body.name).toBe('utf-8 café');
    }
  });

  it('bytes that are not UTF-8 (latin1) answer 400 rather than being stored with U+FFFD', async () => {
    const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth,
      headers: JSON_TYPE,
      body: Buffer.from('{"name":"caf\xe9"}', 'latin1'),
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ field: null, reason: 'INVALID_FORMAT_OBJECT' }]);
  });

  it('application/x-www-form-urlencoded answers 415 (its values escaped the string rules: 500)', async () => {
    const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      auth,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=a%00b',
    });
    expectErrorEnvelope(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('headers of every answer', () => {
  it('nosniff everywhere; no-store on API answers, secrets-bearing ones included', async () => {
    const answers = [
      await http('/heartbeat'),
      await http('/me', { auth }),
      await http('/me'),
      await http('/nowhere'),
      await http(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        auth,
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      await http('/app_jwts', { method: 'POST', auth: merchantAuth, json: {} }),
      await http('/authenticate', { method: 'POST', json: USER }),
      await http('/authenticate', { method: 'POST', json: { email: 'nobody@x.test', password: 'p' } }),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 200, 401, 404, 415, 201, 200, 401]);
    expect(answers[5].body.secret).toEqual(expect.any(String));
    expect(answers[6].body.token).toEqual(expect.any(String));
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('keeps the caching of what sets its own (the API page’s assets)', async () => {
    const res = await fetch(`${suite.url}/docs/page.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

/**
 * Sends headers and the first bytes of a body it never finishes, and resolves with the answer:
 * only a request refused before its body is read is answered at all.
 */
function answerToUnfinishedBody(path: string, headers: Record<string, string>) {
  const url = new URL(path, suite.url);
  return new Promise<{ status: number; body: any; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': '1048576' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers });
      });
    });
    req.write(`{"name":${'['.repeat(1000)}`);
  });
}

describe('credentials are checked before the body is read', () => {
  it('no Authorization: 401 AUTH_HEADER_MISSING without waiting for the body', async () => {
    const res = await answerToUnfinishedBody(`/stores/${suite.merchants.shop.store.id}`, {});
    expect({ status: res.status, body: res.body }).toEqual({
      status: 401,
      body: { status: 'error', code: 'AUTH_HEADER_MISSING', errors: [] },
    });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="kessai"');
  });

  it('a malformed or unknown credential: the guard’s answer, without waiting for the body', async () => {
    const revoked = await suite.env.merchantToken(suite.merchants.shop);
    await suite.env.prisma.appToken.update({ where: { id: revoked.id }, data: { revokedOn: new Date() } });
    for (const [authorization, code] of [
      ['Bearer not-a-token', 'INVALID_APP_TOKEN'],
      [`Bearer ${suite.merchants.shop.storeToken.jwt.slice(0, -4)}abcd`, 'INVALID_APP_TOKEN'],
      [`Bearer wrong-secret.${suite.merchants.shop.storeToken.jwt}`, 'INVALID_CREDENTIALS'],
      [bearer(revoked), 'INVALID_APP_TOKEN'],
      ['Token legacy', 'INVALID_APP_TOKEN'],
    ]) {
      const res = await answerToUnfinishedBody(`/stores/${suite.merchants.shop.store.id}`, { authorization });
      expect({ authorization, status: res.status, code: res.body.code }).toEqual({
        authorization,
        status: 401,
        code,
      });
    }
  });

  it('a body that would have been refused is not looked at: the credential answers first', async () => {
    for (const body of ['{"name":', `{"name":${DEEP}}`, '{"name":"\\ud800"}']) {
      const res = await http(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        headers: JSON_TYPE,
        body,
      });
      expectErrorEnvelope(res, 401, 'AUTH_HEADER_MISSING');
    }
  });

  it('open routes and public tokens from their Origin still have their bodies read', async () => {
    const login = await http('/authenticate', { method: 'POST', headers: JSON_TYPE, body: '{"email":' });
    expectErrorEnvelope(login, 400, 'VALIDATION_ERROR');
    const publicToken = await http('/tokens', {
      method: 'POST',
      auth: `Bearer ${suite.merchants.shop.storeToken.jwt}`,
      origin: 'https://shop.input.test',
      headers: JSON_TYPE,
      body: '{"payment_type":',
    });
    expectErrorEnvelope(publicToken, 400, 'VALIDATION_ERROR');
  });

  it('knows every route the router has; the open ones are those the API document says need nothing', () => {
    const table = credentialRoutes(GATEWAY_CONTROLLERS);
    const registered = routes.list().filter((route) => !/^(HEAD|OPTIONS) /.test(route));
    expect(registered.filter((route) => !table.has(route))).toEqual([]);
    const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
      paths: Record<string, Record<string, { security?: unknown[] }>>;
    };
    const openInDocument = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.security?.length === 0)
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    const openInTable = [...table].filter(([, needs]) => !needs).map(([route]) => route);
    expect(openInTable.sort()).toEqual(openInDocument.sort());
    expect(openInTable).toEqual(expect.arrayContaining(['POST /authenticate', 'POST /processor/callbacks']));
  });
});

describe('POST /processor/callbacks verifies the signature over the raw bytes before parsing', () => {
  const notice = () =>
    JSON.stringify({
      id: randomUUID(),
      event: 'operator_payment',
      operator_payment_id: 'op_1',
      payment_id: 'pay_1',
      reference: randomUUID(),
      status: 'paid',
      amount: 1000,
      currency: 'JPY',
      occurred_on: new Date().toISOString(),
    });

  it('an unsigned or wrongly signed body that is not even JSON answers 401, not 400', async () => {
    for (const signature of [
      undefined,
      signProcessorCallback('{"other":1}', suite.env.config.PROCESSOR_CALLBACK_SECRET),
    ]) {
      const res = await http('/processor/callbacks', {
        method: 'POST',
        headers: { ...JSON_TYPE, ...(signature ? { 'x-processor-signature': signature } : {}) },
        // deep, unterminated, and within the notices' size limit (a larger one is a 413, below)
        body: `{"id":${nested(20_000)}`,
      });
      expectErrorEnvelope(res, 401, 'INVALID_CREDENTIALS');
    }
  });

  it('a body larger than a notice can be is refused with 413 before it is read', async () => {
    const res = await http('/processor/callbacks', {
      method: 'POST',
      headers: { ...JSON_TYPE, 'x-processor-signature': 't=1,v1=' + '0'.repeat(64) },
      body: JSON.stringify({ padding: 'x'.repeat(RAW_JSON_BODY_LIMIT_BYTES) }),
    });
    expectErrorEnvelope(res, 413, 'REQUEST_TOO_LARGE');
  });

  it('a signed notice is still parsed and judged (a reference that is no charge of ours: 404)', async () => {
    const body = notice();
    const res = await http('/processor/callbacks', {
      method: 'POST',
      headers: {
        ...JSON_TYPE,
        'x-processor-signature': signProcessorCallback(body, suite.env.config.PROCESSOR_CALLBACK_SECRET),
      },
      body,
    });
    expectErrorEnvelope(res, 404, 'NOT_FOUND');
  });
});
