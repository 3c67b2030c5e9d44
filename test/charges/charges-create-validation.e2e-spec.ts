// POST /charges refusing what it must not take: malformed fields (each named in the 400), bodies that
// are not a JSON object, and U+0000 anywhere in a request, which Postgres could not store. The real
// gateway in-process, Postgres and Redis; no charge-service.
import { randomUUID } from 'node:crypto';
import { APPROVED_TEST_CARD, cardData, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { JSON_LIMITS } from '../../apps/gateway/src/http/json-text';

const suite = useSuite({ gateway: createGatewayApp, merchants: { shop: { pci: true } } });

describe('POST /charges', () => {
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
    [{ descriptor: 'x'.repeat(201) }, ['descriptor', 'INVALID_FORMAT_LENGTH']],
    [{ redirect: { endpoint: 'not a url' } }, ['redirect.endpoint', 'INVALID_FORMAT_URL']],
    [{ three_ds: { mode: 'always' } }, ['three_ds.mode', 'INVALID_FORMAT']],
    [{ metadata: { nested: { a: 1 } } }, ['metadata.nested', 'NESTED_JSON_NOT_ALLOWED']],
    [{ metadata: 'not json' }, ['metadata', 'INVALID_FORMAT_OBJECT']],
    [{ fee_amount: 1.5 }, ['fee_amount', 'INVALID_FORMAT']],
    [{ fee_amount: 100, fee_currency: 'JP' }, ['fee_currency', 'INVALID_FORMAT']],
    [{ card_number: APPROVED_TEST_CARD }, ['card_number', 'FORBIDDEN_PARAMETER']],
  ])('refuses %j with 400 naming each field', async (overrides, ...expected) => {
    const base =
      Object.keys(overrides).length === 0
        ? {}
        : { transaction_token_id: randomUUID(), amount: 1200, currency: 'JPY' };
    const res = await suite.api.shop.postCharge({ ...base, ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    for (const [field, reason] of expected) expect(res.body.errors).toContainEqual({ field, reason });
  });

  it('refuses a card capture_at more than a week ahead or without capture: false (the token read first)', async () => {
    const tokenId = await suite.api.shop.cardToken();
    for (const overrides of [
      { capture: false, capture_at: Date.now() + 30 * 86_400_000 },
      { capture_at: Date.now() + 3_600_000 },
    ]) {
      const res = await suite.api.shop.postCharge({
        transaction_token_id: tokenId,
        amount: 1200,
        currency: 'JPY',
        ...overrides,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status: 'error',
        code: 'VALIDATION_ERROR',
        errors: [{ field: 'capture_at', reason: 'INVALID_SCHEDULED_CAPTURE_DATE' }],
      });
    }
  });

  it('refuses bodies that are not a JSON object', async () => {
    for (const body of ['[1,2]', '"x"', 'null', '{']) {
      const res = await suite.api.shop.request('/charges', {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(400);
    }
  });

  it('U+0000 in any field, key, JSON-encoded metadata or query is 400 naming the field; nothing is written', async () => {
    const tokenId = await suite.api.shop.cardToken();
    const chargesBefore = await suite.env.prisma.charge.count();
    const tokensBefore = await suite.env.prisma.transactionToken.count();
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
        { payment_type: 'card', type: 'one_time', email: 'a\u0000@example.test', data: cardData() },
        'email',
      ],
      [
        'POST',
        '/tokens',
        { payment_type: 'card', type: 'one_time', data: { ...cardData(), cardholder: 'TARO\u0000' } },
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
        `/stores/${suite.merchants.shop.store.id}/tokens/${tokenId}`,
        { metadata: JSON.stringify({ note: 'x\u0000' }) },
        'metadata.note',
      ],
      [
        'PATCH',
        `/stores/${suite.merchants.shop.store.id}/charges/${randomUUID()}`,
        { metadata: { note: 'x\u0000' } },
        'metadata.note',
      ],
      ['GET', `/stores/${suite.merchants.shop.store.id}/tokens?search=a%00b`, undefined, 'search'],
      ['GET', `/charges?metadata=${encodeURIComponent('order: x\u0000')}`, undefined, 'metadata'],
    ];
    for (const [method, path, json, field] of cases) {
      const res = await suite.api.shop.request(path, { method, json });
      expect({ path, field, status: res.status, body: res.body }).toEqual({
        path,
        field,
        status: 400,
        body: { status: 'error', code: 'VALIDATION_ERROR', errors: [{ field, reason: 'INVALID_FORMAT' }] },
      });
    }
    // down to the depth bodies may have (JSON_LIMITS), with and without the character at the bottom;
    // deeper is refused before anything is looked at (test/gateway/input-hardening.e2e-spec.ts)
    const depth = JSON_LIMITS.maxDepth - 1;
    const deep = (inner: string) => `{"metadata":${'['.repeat(depth - 1)}${inner}${']'.repeat(depth - 1)}}`;
    const post = (body: string) =>
      suite.api.shop.request('/charges', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const withNul = await post(deep('"x\\u0000"'));
    expect(withNul.status).toBe(400);
    expect(withNul.body.errors).toEqual([
      { field: `metadata${'.0'.repeat(depth - 1)}`, reason: 'INVALID_FORMAT' },
    ]);
    const clean = await post(deep('"x"')); // not a metadata object: the schema's answer
    expect(clean.status).toBe(400);
    expect(clean.body.code).toBe('VALIDATION_ERROR');
    const deeper = await post(deep(`[[${'"x\\u0000"'}]]`));
    expect(deeper.body.errors).toEqual([{ field: null, reason: 'NESTED_JSON_NOT_ALLOWED' }]);
    expect(await suite.env.prisma.charge.count()).toBe(chargesBefore);
    expect(await suite.env.prisma.transactionToken.count()).toBe(tokensBefore);
    // the token is still unused: the refused charges claimed nothing
    expect((await suite.api.shop.charge(tokenId)).status).toBe('pending');
  });
});
