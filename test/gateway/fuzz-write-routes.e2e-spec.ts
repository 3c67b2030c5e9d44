// Every write route of the gateway (POST, PATCH, PUT, DELETE as its router registers them, so a new
// route is fuzzed without being listed here) receives deep, wide, malformed, surrogate-bearing and
// wrongly-encoded bodies, with and without credentials and Idempotency-Key: no answer may be a 5xx,
// and every error answer is the API's error envelope (issue 27, docs/security.md). Bounded: a fixed
// seed (FUZZ_SEED to try another), every crafted body once per route, then a fixed number of
// generated requests; the seed and the counts are printed.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { bearer, CapturedLog, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { RouteRegistry } from '../../apps/gateway/src/http/route-registry';

const SEED = Number(process.env.FUZZ_SEED ?? 27);
/** generated requests after the sweep of crafted bodies */
const GENERATED_RUNS = 600;

const routes = new RouteRegistry();
const log = new CapturedLog();
const suite = useSuite({
  gateway: (config) => createGatewayApp(config, { routes, logger: log.logger('gateway') }),
  merchants: { shop: { label: 'fuzz', domains: ['shop.fuzz.test'] } },
});
/** Authorization headers to send (undefined: none) */
let credentials: Record<string, string | undefined>;

interface Body {
  label: string;
  contentType?: string;
  bytes: string | Buffer;
}

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);
const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/** Bodies built to break a parser or what follows it; each is sent to every write route. */
const CRAFTED: Body[] = [
  { label: 'deep array', bytes: `{"name":${nested(100_000)}}` },
  { label: 'deep objects', bytes: '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000) },
  { label: 'deep metadata', bytes: `{"amount":1000,"currency":"JPY","metadata":{"k":${nested(50_000)}}}` },
  { label: 'deep metadata string', bytes: JSON.stringify({ metadata: `{"k":${nested(50_000)}}` }) },
  {
    label: 'wide object',
    bytes: JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))),
  },
  { label: 'long array', bytes: JSON.stringify({ triggers: Array.from({ length: 12_000 }, () => 'x') }) },
  {
    label: 'lone surrogates',
    bytes: '{"name":"\\ud800","metadata":{"\\udc00":"x\\udbff"},"email":"a\\ud800@b.c"}',
  },
  { label: 'U+0000', bytes: '{"name":"a\\u0000","metadata":{"k":"\\u0000"},"url":"https://x.test/\\u0000"}' },
  { label: 'metadata string with a lone surrogate', bytes: JSON.stringify({ metadata: '{"k":"\\ud800"}' }) },
  { label: 'truncated', bytes: '{"amount":1000,"currency":"JP' },
  { label: 'trailing comma', bytes: '{"amount":1000,}' },
  {
    label: 'huge numbers',
    bytes: '{"amount":1e999999,"currency":123456789012345678901234567890,"cycles":-0}',
  },
  { label: 'duplicate keys', bytes: '{"amount":1000,"amount":"x","currency":"JPY","currency":null}' },
  { label: 'prototype keys', bytes: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}' },
  { label: 'utf-8 BOM', bytes: '\ufeff{"name":"bom"}' },
  {
    label: 'utf-16 with its charset',
    contentType: 'application/json; charset=utf-16',
    bytes: utf16('{"name":"x"}'),
  },
  {
    label: 'utf-16 BOM as utf-8',
    bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), utf16('{"name":"x"}')]),
  },
  { label: 'latin1 bytes', bytes: Buffer.from('{"name":"caf\xe9","metadata":{"k":"\xff"}}', 'latin1') },
  { label: 'latin1 charset', contentType: 'application/json; charset=iso-8859-1', bytes: '{"name":"x"}' },
  { label: 'text/plain', contentType: 'text/plain', bytes: '{"name":"x"}' },
  {
    label: 'urlencoded NUL',
    contentType: 'application/x-www-form-urlencoded',
    bytes: 'name=a%00b&metadata=%ED%A0%80',
  },
  {
    label: 'multipart NUL',
    contentType: 'multipart/form-data; boundary=b',
    bytes: '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\na\u0000b\r\n--b--\r\n',
  },
  {
    label: 'multipart utf-16 part',
    contentType: 'multipart/form-data; boundary=b',
    bytes: Buffer.concat([
      Buffer.from(
        '--b\r\nContent-Disposition: form-data; name="name"\r\nContent-Type: text/plain; charset=utf-16le\r\n\r\n',
      ),
      Buffer.from([0x00, 0xd8, 0x41, 0x00]),
      Buffer.from('\r\n--b--\r\n'),
    ]),
  },
  { label: 'multipart without boundary', contentType: 'multipart/form-data', bytes: 'garbage' },
  { label: 'empty', bytes: '' },
  { label: 'null', bytes: 'null' },
];

/** Field names the API's schemas read, for generated bodies that get past the parser. */
const FIELDS = [
  'name',
  'amount',
  'currency',
  'metadata',
  'transaction_token_id',
  'email',
  'password',
  'url',
  'auth_token',
  'triggers',
  'data',
  'type',
  'payment_type',
  'period',
  'cycles',
  'status',
  'reason',
  'configuration',
  'logo',
  'line1',
  'domains',
  'capture',
  'token',
  'subscriptions',
  'products',
];

const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('\ud800', 'x\udc00', '\u0000', '\ud83d\ude00', 'é', '\ufeff', '"', '\\', '1e309'),
);
const leaf = fc.oneof(
  oddText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e21),
);
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), oddText), tie('value'), { maxKeys: 6 }),
  ),
})).value;

/** Generated bodies: plausible objects with odd values, spliced, re-encoded, nested or widened. */
const generatedBody: fc.Arbitrary<Body> = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), jsonish, { maxKeys: 6 }).map((value) => ({
    label: 'object',
    bytes: JSON.stringify(value),
  })),
  fc.tuple(jsonish, fc.nat()).map(([value, cut]) => {
    const text = JSON.stringify(value) ?? '';
    return { label: 'truncated', bytes: text.slice(0, text.length > 0 ? cut % text.length : 0) };
  }),
  fc.tuple(jsonish, fc.constantFrom('utf-16', 'latin1', 'UTF-8', 'utf-32')).map(([value, charset]) => ({
    label: `charset ${charset}`,
    contentType: `application/json; charset=${charset}`,
    bytes: charset === 'utf-16' ? utf16(JSON.stringify(value)) : JSON.stringify(value),
  })),
  fc.tuple(fc.integer({ min: 1, max: 40 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => ({
    label: `nested ${depth}`,
    bytes: open.repeat(depth) + '"x"' + (open === '[' ? ']' : '}').repeat(depth),
  })),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ label: 'bytes', bytes: Buffer.from(bytes) })),
);

function pathOf(method: string, template: string): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    // the shop's own store, so that requests reach past the store lookup; never deleted, though
    name === 'storeId' && !(method === 'DELETE' && template === '/stores/:storeId')
      ? suite.merchants.shop.store.id
      : randomUUID(),
  );
}

const counts = { requests: 0, byStatus: new Map<number, number>() };

/** Sends one request; throws (with what was sent) on a 5xx or an error answer outside the envelope. */
async function send(method: string, template: string, body: Body, credential: string, key: boolean) {
  const headers: Record<string, string> = {};
  const auth = credentials[credential];
  if (auth !== undefined) headers.authorization = auth;
  if (credential === 'public') headers.origin = 'https://shop.fuzz.test';
  if (key) headers['idempotency-key'] = randomUUID();
  headers['content-type'] = body.contentType ?? 'application/json';
  const res = await fetch(`${suite.url}${pathOf(method, template)}`, { method, headers, body: body.bytes });
  const text = await res.text();
  counts.requests++;
  counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
  const sent = `${method} ${template} [${body.label}] credential=${credential} key=${key}`;
  if (res.status >= 500) throw new Error(`${sent}: ${res.status} ${text.slice(0, 300)}`);
  if (res.status < 400) return;
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${sent}: ${res.status} not JSON: ${text.slice(0, 200)}`);
  }
  const envelope =
    /^application\/json/.test(res.headers.get('content-type') ?? '') &&
    parsed?.status === 'error' &&
    typeof parsed.code === 'string' &&
    Array.isArray(parsed.errors);
  if (!envelope) throw new Error(`${sent}: ${res.status} outside the envelope: ${text.slice(0, 200)}`);
}

beforeAll(async () => {
  const merchant = await suite.env.merchantToken(suite.merchants.shop);
  credentials = {
    none: undefined,
    store: bearer(suite.merchants.shop.storeToken),
    merchant: bearer(merchant),
    public: `Bearer ${suite.merchants.shop.storeToken.jwt}`,
    malformed: 'Bearer not.a.token',
    basic: 'Basic dXNlcjpwYXNz',
  };
}, 60_000);

describe('write routes under fuzzed bodies', () => {
  const writeRoutes = () =>
    routes
      .list()
      .map((route) => route.split(' ') as [string, string])
      .filter(([method]) => ['POST', 'PATCH', 'PUT', 'DELETE'].includes(method));

  it('answer no 5xx and every error in the envelope', async () => {
    const all = writeRoutes();
    // the router's routes, as the OpenAPI document lists them (test/gateway/openapi.e2e-spec.ts)
    expect(all.length).toBeGreaterThan(50);
    expect(all).toContainEqual(['POST', '/charges']);
    expect(all).toContainEqual(['POST', '/processor/callbacks']);

    // every crafted body to every route, credentials and key taken in turn (deterministic)
    const names = Object.keys(credentials);
    let turn = 0;
    for (const [method, template] of all) {
      for (const body of CRAFTED) {
        turn++;
        await send(method, template, body, names[turn % names.length], turn % 2 === 0);
      }
    }
    const swept = counts.requests;

    // then generated requests, from the fixed seed
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all),
        generatedBody,
        fc.constantFrom(...names),
        fc.boolean(),
        async ([method, template], body, credential, key) => send(method, template, body, credential, key),
      ),
      { seed: SEED, numRuns: GENERATED_RUNS, endOnFailure: true },
    );

    const statuses = [...counts.byStatus.entries()].sort(([a], [b]) => a - b);
    console.log(
      `fuzz seed=${SEED}: ${all.length} write routes, ${swept} crafted + ${counts.requests - swept} ` +
        `generated requests; by status ${statuses.map(([status, n]) => `${status}:${n}`).join(' ')}`,
    );
  }, 110_000);
});
