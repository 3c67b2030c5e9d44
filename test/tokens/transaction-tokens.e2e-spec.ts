import { randomUUID } from 'node:crypto';
import SDK from 'univapay-node';
import { TOKEN_UPDATED } from '@kessai/contracts';
import { TransactionTokensRepository } from '@kessai/db';
import { RedisService } from '@kessai/redis';
import {
  APPROVED_TEST_CARD,
  bearer,
  CapturedLog,
  cardData,
  cardNumberEndingIn,
  lastWriterOf,
  luhnValidRuns,
  NEXT_YEAR,
  ordinaryCardNumber,
  outboxEventsOf,
  REAL_CARD_NUMBER,
  requestJson,
  sdkError,
  sdkFor,
  useSuite,
  type Credentials,
  type JsonRequest,
} from '@kessai/testing';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const log = new CapturedLog();
const suite = useSuite({
  variables: { LOG_LEVEL: 'trace' },
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway', 'trace') }),
  merchants: { pci: { pci: true }, plain: { domains: ['shop.plain.test'] }, foreign: { pci: true } },
});
let pciLive: Credentials;
let pciMerchantToken: Credentials;

/** the card number most tests send */
const PAN = APPROVED_TEST_CARD;
const CVV = '7391'.slice(0, 3); // 739
const AMEX = '378282246310005';
const AMEX_CVV = '7391';
const PLAIN_ORIGIN = 'https://shop.plain.test';

/** every card number this suite sends, to be found nowhere in the logs */
const SENT_PANS = new Set<string>([PAN, AMEX, REAL_CARD_NUMBER]);

const sdkAs = (token: Credentials) => sdkFor(suite.url, token);
const card = (overrides: Record<string, unknown> = {}) => cardData({ cvv: CVV, ...overrides });
const call = (path: string, init?: JsonRequest) => requestJson(suite.url, path, init);

const createToken = (auth: string, json: unknown, origin?: string) =>
  call('/tokens', { method: 'POST', auth, json, origin });

beforeAll(async () => {
  pciLive = await suite.env.liveStoreToken(suite.merchants.pci);
  pciMerchantToken = await suite.env.merchantToken(suite.merchants.pci);
});

describe('POST /tokens with card data', () => {
  it('creates a card token through the SDK, showing brand, last four, bin, expiry and cardholder only', async () => {
    const token = await sdkAs(suite.merchants.pci.storeToken).transactionTokens.create({
      paymentType: 'card' as any,
      type: 'one_time' as any,
      email: 'buyer@example.test',
      data: { cardholder: 'Taro Yamada', cardNumber: PAN, expMonth: '09', expYear: NEXT_YEAR, cvv: CVV },
      metadata: { order_id: 'A-1', orderId: 7 },
    });
    expect(token).toMatchObject({
      storeId: suite.merchants.pci.store.id,
      email: 'buyer@example.test',
      active: true,
      mode: 'test',
      type: 'one_time',
      paymentType: 'card',
      metadata: { order_id: 'A-1', orderId: 7 },
      data: {
        card: {
          cardholder: 'Taro Yamada',
          expMonth: 9,
          expYear: NEXT_YEAR,
          lastFour: '5556',
          brand: 'visa',
          cardBin: '400005',
          cardType: 'debit',
          country: 'JP',
        },
      },
    });
    expect(JSON.stringify(token)).not.toContain(PAN);
    expect(JSON.stringify(token)).not.toMatch(/cvv"?:\s*"?\d/i);
  });

  it('keeps the PAN encrypted in card_vault (decryptable with the vault key), the CVV only in Redis', async () => {
    const res = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(`"${CVV}"`);
    expect(Object.keys(res.body.data.card).sort()).toEqual(
      [
        'brand',
        'card_bin',
        'card_type',
        'cardholder',
        'country',
        'exp_month',
        'exp_year',
        'last_four',
      ].sort(),
    );
    const id = res.body.id as string;

    const row = await suite.env.prisma.cardVault.findUniqueOrThrow({ where: { transactionTokenId: id } });
    expect(row.keyId).toBe('test1');
    const stored = Buffer.from(row.ciphertext);
    for (const form of [stored.toString('latin1'), stored.toString('hex'), stored.toString('base64')]) {
      expect(form).not.toContain(PAN);
    }
    const vault = new CardVault(suite.env.config.VAULT_KEYS, suite.env.config.VAULT_FINGERPRINT_SECRET);
    expect(vault.decrypt(row, { transactionTokenId: id }).reveal()).toBe(PAN);
    expect(row.fingerprint).toBe(vault.fingerprint(vault.decrypt(row, { transactionTokenId: id })));

    // nothing else in Postgres holds the number or the CVV
    const tokenRow = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id } });
    expect(JSON.stringify(tokenRow)).not.toContain(PAN);
    expect(JSON.stringify(tokenRow.data)).not.toMatch(/cvv"?:\s*"\d/);

    // the CVV waits sealed in Redis, is handed out once, then is gone
    const redis = suite.app.get(RedisService);
    const key = `${suite.env.config.REDIS_PREFIX}:cvv:{${id}}`;
    const sealed = await redis.client.get(key);
    expect(sealed).toMatch(/^test1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const ttl = await redis.client.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(suite.env.config.CVV_TTL_SECONDS);
    const cvvs = suite.app.get(PendingCvvStore);
    expect(await cvvs.take(id)).toBe(CVV);
    expect(await cvvs.take(id)).toBeNull();
    expect(await redis.client.exists(key)).toBe(0);
  });

  it('still uses a CVV kept under the names before the Redis Cluster change, for one charge only', async () => {
    const redis = suite.app.get(RedisService);
    const cvvs = suite.app.get(PendingCvvStore);
    // a gateway of the version before kept it without a hash tag (and a charge may have claimed it)
    const keptBefore = async (claimedBy?: string) => {
      const res = await createToken(bearer(suite.merchants.pci.storeToken), {
        payment_type: 'card',
        type: 'one_time',
        data: card(),
      });
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      const sealed = await redis.client.get(`${suite.env.config.REDIS_PREFIX}:cvv:{${id}}`);
      await cvvs.discard(id);
      await redis.client.set(`${suite.env.config.REDIS_PREFIX}:cvv:${id}`, sealed!, 'EX', 600);
      if (claimedBy)
        await redis.client.set(`${suite.env.config.REDIS_PREFIX}:cvv-claim:${id}`, claimedBy, 'EX', 600);
      return id;
    };
    const id = await keptBefore();
    const [first, second] = [randomUUID(), randomUUID()];
    expect(await cvvs.peek(id, first)).toBe(CVV);
    expect(await cvvs.peek(id, second)).toBeNull();
    expect(await cvvs.peek(id, first)).toBe(CVV);
    // moved under today's name with its remaining time; the old name is gone
    expect(await redis.client.exists(`${suite.env.config.REDIS_PREFIX}:cvv:${id}`)).toBe(0);
    const ttl = await redis.client.ttl(`${suite.env.config.REDIS_PREFIX}:cvv:{${id}}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    await cvvs.discard(id, first);
    expect(await cvvs.peek(id, first)).toBeNull();

    // a claim made under the old names holds: only that charge gets the CVV
    const claimed = await keptBefore(first);
    expect(await cvvs.peek(claimed, second)).toBeNull();
    expect(await cvvs.peek(claimed, first)).toBe(CVV);
    // take and read find it too, and a discard without a charge forgets both names
    expect(await cvvs.take(await keptBefore())).toBe(CVV);
    const read = await keptBefore();
    expect(await cvvs.read(read)).toBe(CVV);
    const forgotten = await keptBefore();
    await cvvs.discard(forgotten);
    expect(await cvvs.read(forgotten)).toBeNull();
  });

  it('writes token, vault row and token_created event in one transaction', async () => {
    const res = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const [event] = await outboxEventsOf(suite.env, id);
    expect(event).toMatchObject({
      eventType: 'token_created',
      aggregateType: 'transaction_token',
      merchantId: suite.merchants.pci.merchant.id,
      storeId: suite.merchants.pci.store.id,
      correlationId: res.headers.get('x-request-id'),
      publishedOn: null,
    });
    expect(event.payload).toEqual({
      transaction_token_id: id,
      store_id: suite.merchants.pci.store.id,
      type: 'one_time',
      payment_type: 'card',
      mode: 'test',
    });
    const vaultRow = await suite.env.prisma.cardVault.findUniqueOrThrow({
      where: { transactionTokenId: id },
    });
    const tx = await lastWriterOf(suite.env, 'transaction_tokens', id);
    expect(tx).toBeDefined();
    expect(await lastWriterOf(suite.env, 'card_vault', vaultRow.id)).toBe(tx);
    expect(await lastWriterOf(suite.env, 'outbox_events', event.id)).toBe(tx);
  });

  it('accepts American Express with a 4-digit CVV and card numbers typed with spaces', async () => {
    const res = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card({ card_number: '3782 822463 10005', cvv: AMEX_CVV, exp_year: String(NEXT_YEAR % 100) }),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.card).toMatchObject({
      brand: 'american_express',
      last_four: '0005',
      exp_year: NEXT_YEAR,
    });
  });

  it('refuses card data from a secret-bearing token of a merchant that is not PCI DSS compliant', async () => {
    const before = await suite.env.prisma.transactionToken.count({
      where: { merchantId: suite.merchants.plain.merchant.id },
    });
    const res = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 'error', code: 'DIRECT_CARD_TOKEN_CREATION_DISABLED', errors: [] });
    const err = await sdkError(
      sdkAs(suite.merchants.plain.storeToken).transactionTokens.create({
        paymentType: 'card' as any,
        type: 'one_time' as any,
        data: { cardholder: 'Taro Yamada', cardNumber: PAN, expMonth: 12, expYear: NEXT_YEAR, cvv: CVV },
      }),
    );
    expect(err).toMatchObject({ code: 'DIRECT_CARD_TOKEN_CREATION_DISABLED', httpCode: 403 });
    expect(
      await suite.env.prisma.transactionToken.count({
        where: { merchantId: suite.merchants.plain.merchant.id },
      }),
    ).toBe(before);
  });

  it('lets a public (secret-less) token create card tokens for that merchant from an allowed Origin', async () => {
    const jwtOnly = `Bearer ${suite.merchants.plain.storeToken.jwt}`;
    const res = await createToken(
      jwtOnly,
      { payment_type: 'card', type: 'one_time', data: card() },
      PLAIN_ORIGIN,
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      store_id: suite.merchants.plain.store.id,
      payment_type: 'card',
      mode: 'test',
    });

    const viaSdk = await new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.plain.storeToken.jwt,
      origin: PLAIN_ORIGIN,
    }).transactionTokens.create({
      paymentType: 'card' as any,
      type: 'one_time' as any,
      data: { cardholder: 'Hanako Sato', cardNumber: PAN, expMonth: 1, expYear: NEXT_YEAR, cvv: CVV },
    });
    expect(viaSdk.data).toMatchObject({ card: { lastFour: '5556', cardholder: 'Hanako Sato' } });

    const noOrigin = await createToken(jwtOnly, { payment_type: 'card', type: 'one_time', data: card() });
    expect(noOrigin.status).toBe(401);
    expect(noOrigin.body.code).toBe('INVALID_DOMAIN');
    // reading tokens still needs the secret
    const read = await call(`/stores/${suite.merchants.plain.store.id}/tokens/${res.body.id}`, {
      auth: jwtOnly,
      origin: PLAIN_ORIGIN,
    });
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('INVALID_PERMISSIONS');
  });

  it('refuses a CVV sent by PATCH with the secret of a merchant that is not PCI DSS compliant', async () => {
    // a card token made by the hosted checkout (public token), then updated by the merchant's server
    const created = await createToken(
      `Bearer ${suite.merchants.plain.storeToken.jwt}`,
      { payment_type: 'card', type: 'one_time', data: card() },
      PLAIN_ORIGIN,
    );
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const cvvs = suite.app.get(PendingCvvStore);
    await cvvs.discard(id);
    const path = `/stores/${suite.merchants.plain.store.id}/tokens/${id}`;

    const withCvv = await call(path, {
      method: 'PATCH',
      auth: bearer(suite.merchants.plain.storeToken),
      json: { data: { cvv: '456' } },
    });
    expect(withCvv.status).toBe(403);
    expect(withCvv.body).toEqual({
      status: 'error',
      code: 'DIRECT_CARD_TOKEN_CREATION_DISABLED',
      errors: [],
    });
    expect(await cvvs.take(id)).toBeNull();
    expect(
      await suite.env.prisma.outboxEvent.count({ where: { aggregateId: id, eventType: TOKEN_UPDATED } }),
    ).toBe(0);

    // what is not card data stays the merchant's to change
    const cardholder = await call(path, {
      method: 'PATCH',
      auth: bearer(suite.merchants.plain.storeToken),
      json: { data: { cardholder: 'Hanako Sato' } },
    });
    expect(cardholder.status).toBe(200);
    expect(cardholder.body.data.card.cardholder).toBe('Hanako Sato');
  });

  it('names each invalid field: Luhn, past expiry, CVV format, missing values', async () => {
    const badLuhn = `${PAN.slice(0, 15)}${(Number(PAN[15]) + 1) % 10}`;
    SENT_PANS.add(badLuhn);
    const cases: [Record<string, unknown>, { field: string; reason: string }[]][] = [
      [card({ card_number: badLuhn }), [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }]],
      [card({ exp_year: NEXT_YEAR - 3 }), [{ field: 'data.exp_year', reason: 'INVALID_CARD_EXPIRATION' }]],
      [card({ exp_month: 13 }), [{ field: 'data.exp_month', reason: 'INVALID_CARD_EXPIRATION' }]],
      [card({ cvv: '12' }), [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
      [card({ cvv: '12a' }), [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
      [card({ card_number: AMEX, cvv: '123' }), [{ field: 'data.cvv', reason: 'INVALID_CVV' }]],
      [card({ cardholder: PAN }), [{ field: 'data.cardholder', reason: 'INVALID_FORMAT' }]],
      [card({ country: 'Japan' }), [{ field: 'data.country', reason: 'INVALID_FORMAT' }]],
      [card({ nickname: 'x' }), [{ field: 'data.nickname', reason: 'FORBIDDEN_PARAMETER' }]],
      [
        { cardholder: 'A B' },
        [
          { field: 'data.card_number', reason: 'REQUIRED_VALUE' },
          { field: 'data.exp_month', reason: 'REQUIRED_VALUE' },
          { field: 'data.exp_year', reason: 'REQUIRED_VALUE' },
          { field: 'data.cvv', reason: 'REQUIRED_VALUE' },
        ],
      ],
    ];
    for (const [data, expected] of cases) {
      const res = await createToken(bearer(suite.merchants.pci.storeToken), {
        payment_type: 'card',
        type: 'one_time',
        data,
      });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.errors).toEqual(expect.arrayContaining(expected));
      expect(res.body.errors).toHaveLength(expected.length);
      for (const pan of SENT_PANS) expect(res.text).not.toContain(pan);
    }
    const sdkErr = await sdkError(
      sdkAs(suite.merchants.pci.storeToken).transactionTokens.create({
        paymentType: 'card' as any,
        type: 'one_time' as any,
        data: { cardholder: 'Taro Yamada', cardNumber: badLuhn, expMonth: 12, expYear: NEXT_YEAR, cvv: CVV },
      }),
    );
    expect(sdkErr).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
      errors: [{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }],
    });
  });

  it("test mode takes any valid number, as UnivaPay's does; live mode refuses test cards and takes real cards", async () => {
    const auth = bearer(suite.merchants.pci.storeToken);
    const numbers = [
      REAL_CARD_NUMBER,
      cardNumberEndingIn('1111'),
      cardNumberEndingIn('4242', { prefix: '5425' }),
      cardNumberEndingIn('1881', { prefix: '3530' }),
      ordinaryCardNumber(),
    ];
    for (const number of numbers) {
      SENT_PANS.add(number);
      const res = await createToken(auth, {
        payment_type: 'card',
        type: 'one_time',
        data: card({ card_number: number }),
      });
      expect({ status: res.status, last_four: res.body.data?.card?.last_four }).toEqual({
        status: 201,
        last_four: number.slice(-4),
      });
      expect(res.body.mode).toBe('test');
      expect(res.text).not.toContain(number);
    }
    // validity still applies: Luhn, and the brand's length
    const badLuhn = `${REAL_CARD_NUMBER.slice(0, 15)}${(Number(REAL_CARD_NUMBER[15]) + 1) % 10}`;
    SENT_PANS.add(badLuhn);
    const invalid = await createToken(auth, {
      payment_type: 'card',
      type: 'one_time',
      data: card({ card_number: badLuhn }),
    });
    expect(invalid.body.errors).toEqual([{ field: 'data.card_number', reason: 'INVALID_CARD_NUMBER' }]);

    for (const testCard of [PAN, '4111111111111111', '4000000000003220']) {
      const liveTest = await createToken(bearer(pciLive), {
        payment_type: 'card',
        type: 'one_time',
        data: card({ card_number: testCard }),
      });
      expect(liveTest.status).toBe(400);
      expect(liveTest.body).toEqual({
        status: 'error',
        code: 'NO_TEST_CARD_IN_LIVE_MODE',
        errors: [{ field: 'data.card_number', reason: 'NO_TEST_CARD_IN_LIVE_MODE' }],
      });
    }
    const liveSdk = await sdkError(
      sdkAs(pciLive).transactionTokens.create({
        paymentType: 'card' as any,
        type: 'one_time' as any,
        data: { cardholder: 'Taro Yamada', cardNumber: PAN, expMonth: 12, expYear: NEXT_YEAR, cvv: CVV },
      }),
    );
    expect(liveSdk).toMatchObject({ code: 'NO_TEST_CARD_IN_LIVE_MODE', httpCode: 400 });

    const liveReal = await createToken(bearer(pciLive), {
      payment_type: 'card',
      type: 'one_time',
      data: card({ card_number: REAL_CARD_NUMBER }),
    });
    expect(liveReal.status).toBe(201);
    expect(liveReal.body).toMatchObject({
      mode: 'live',
      data: { card: { last_four: REAL_CARD_NUMBER.slice(-4), card_type: 'unknown', country: null } },
    });
    expect(liveReal.text).not.toContain(REAL_CARD_NUMBER);
  });

  it('shows card_type and country: a test card its own, another number what the BIN table knows', async () => {
    const jcb = cardNumberEndingIn('0005', { prefix: '3541' });
    const maestro = cardNumberEndingIn('0009', { prefix: '6761' });
    const unionpay = cardNumberEndingIn('0007', { prefix: '6213' });
    const cases = [
      [PAN, 'debit', 'JP'],
      ['4242424242424242', 'credit', 'JP'],
      ['371449635398431', 'charge_card', 'US'],
      ['2223003122003222', 'unknown', null],
      [jcb, 'credit', 'JP'],
      [maestro, 'debit', null],
      [unionpay, 'unknown', 'CN'],
      [REAL_CARD_NUMBER, 'unknown', null],
    ] as const;
    for (const [number, cardType, country] of cases) {
      SENT_PANS.add(number);
      const cvv = number.startsWith('37') ? AMEX_CVV : CVV;
      const created = await sdkAs(suite.merchants.pci.storeToken).transactionTokens.create({
        paymentType: 'card' as any,
        type: 'one_time' as any,
        data: { cardholder: 'Taro Yamada', cardNumber: number, expMonth: 12, expYear: NEXT_YEAR, cvv },
      });
      expect([number, created.data]).toMatchObject([number, { card: { cardType, country } }]);
      const read = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${created.id}`, {
        auth: bearer(suite.merchants.pci.storeToken),
      });
      expect([number, read.body.data.card]).toMatchObject([number, { card_type: cardType, country }]);
    }
  });

  it('takes the store from the app token: a merchant-scope token gets a clear refusal', async () => {
    const res = await createToken(bearer(pciMerchantToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      status: 'error',
      code: 'INVALID_PERMISSIONS',
      errors: [{ field: null, reason: 'STORE_TOKEN_REQUIRED' }],
    });
  });
});

describe('token types', () => {
  const online = { brand: 'pay_pay_online' };

  it('subscription and recurring tokens; usage_limit only for recurring', async () => {
    const auth = bearer(suite.merchants.pci.storeToken);
    const sub = await createToken(auth, { payment_type: 'card', type: 'subscription', data: card() });
    expect(sub.status).toBe(201);
    expect(sub.body).toMatchObject({ type: 'subscription' });
    // the SDK types usage_limit optional: absent rather than null without one
    expect(sub.body).not.toHaveProperty('usage_limit');

    const rec = await createToken(auth, {
      payment_type: 'card',
      type: 'recurring',
      usage_limit: 'monthly',
      data: card(),
    });
    expect(rec.status).toBe(201);
    expect(rec.body).toMatchObject({ type: 'recurring', usage_limit: 'monthly' });

    const unbounded = await createToken(auth, { payment_type: 'card', type: 'recurring', data: card() });
    expect(unbounded.status).toBe(201);

    const misplaced = await createToken(auth, {
      payment_type: 'card',
      type: 'one_time',
      usage_limit: 'daily',
      data: card(),
    });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body).toEqual({
      status: 'error',
      code: 'USAGE_LIMIT_NOT_APPLICABLE',
      errors: [{ field: 'usage_limit', reason: 'USAGE_LIMIT_NOT_APPLICABLE' }],
    });

    const badLimit = await createToken(auth, {
      payment_type: 'card',
      type: 'recurring',
      usage_limit: 'hourly',
      data: card(),
    });
    expect(badLimit.body.errors).toEqual([{ field: 'usage_limit', reason: 'INVALID_FORMAT' }]);
    const badType = await createToken(auth, { payment_type: 'card', type: 'forever', data: card() });
    expect(badType.body.errors).toEqual([{ field: 'type', reason: 'INVALID_FORMAT' }]);
  });

  it('follows the store recurring_token_configuration: bounded needs usage_limit, none refuses', async () => {
    const shop = await suite.env.seedMerchant('recurring');
    const auth = bearer(shop.storeToken);
    const setRecurring = (recurring_type: string) =>
      suite.env.prisma.store.update({
        where: { id: shop.store.id },
        data: { configuration: { recurring_token_configuration: { recurring_type } } },
      });

    await setRecurring('bounded');
    const unbounded = await createToken(auth, { payment_type: 'online', type: 'recurring', data: online });
    expect(unbounded.body).toEqual({
      status: 'error',
      code: 'RECURRING_USAGE_LIMIT_REQUIRED',
      errors: [{ field: 'usage_limit', reason: 'RECURRING_USAGE_LIMIT_REQUIRED' }],
    });
    const bounded = await createToken(auth, {
      payment_type: 'online',
      type: 'recurring',
      usage_limit: 'weekly',
      data: online,
    });
    expect(bounded.status).toBe(201);

    await setRecurring('none');
    const refused = await createToken(auth, {
      payment_type: 'online',
      type: 'recurring',
      usage_limit: 'weekly',
      data: online,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('RECURRING_TOKEN_NOT_ALLOWED');
  });

  it('online tokens (no PCI needed): brand and call method', async () => {
    const sdk = sdkAs(suite.merchants.plain.storeToken);
    const token = await sdk.transactionTokens.create({
      paymentType: 'online' as any,
      type: 'one_time' as any,
      data: { brand: 'pay_pay_online' as any },
    });
    expect(token).toMatchObject({
      paymentType: 'online',
      data: { brand: 'pay_pay_online', callMethod: 'http_post' },
    });
    expect(await suite.env.prisma.cardVault.count({ where: { transactionTokenId: token.id } })).toBe(0);

    const explicit = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'online',
      type: 'one_time',
      data: { brand: 'we_chat_online', call_method: 'sdk', user_identifier: 'wx-user' },
    });
    expect(explicit.body.data).toMatchObject({
      brand: 'we_chat_online',
      call_method: 'sdk',
      user_identifier: 'wx-user',
    });

    const bad = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'online',
      type: 'one_time',
      data: { brand: 'cash', call_method: 'fax' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'data.brand', reason: 'INVALID_FORMAT' },
        { field: 'data.call_method', reason: 'INVALID_FORMAT' },
      ]),
    );
    const threeDs = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'online',
      type: 'one_time',
      three_ds: { mode: 'force' },
      data: online,
    });
    expect(threeDs.body.errors).toEqual([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
  });

  it('qr_scan tokens: one_time only, brand recognised, the scanned code never shown', async () => {
    const res = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'qr_scan',
      type: 'one_time',
      data: { scanned_qr: '280000000000000001' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ payment_type: 'qr_scan', data: { brand: 'alipay' } });
    expect(res.body.data).not.toHaveProperty('gateway');
    expect(res.text).not.toContain('280000000000000001');
    const stored = await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(stored.data).toMatchObject({ scanned_qr: '280000000000000001' });

    const recurring = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'qr_scan',
      type: 'recurring',
      data: { scanned_qr: '280000000000000001' },
    });
    expect(recurring.body.errors).toEqual([{ field: 'type', reason: 'ONE_TIME_ONLY_ALLOWED' }]);
    const blank = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'qr_scan',
      type: 'one_time',
      data: {},
    });
    expect(blank.body.errors).toEqual([{ field: 'data.scanned_qr', reason: 'REQUIRED_VALUE' }]);
  });

  it('a payment type outside the API is refused; a Paidy token needs its token and shipping address', async () => {
    const unknown = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'cash',
      type: 'one_time',
      data: {},
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: 'payment_type', reason: 'INVALID_FORMAT' }]);
    const res = await createToken(bearer(suite.merchants.plain.storeToken), {
      payment_type: 'paidy',
      type: 'one_time',
      data: { paidy_token: 'A' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'data.paidy_token', reason: 'INVALID_FORMAT' },
      { field: 'data.shipping_address', reason: 'REQUIRED_VALUE' },
    ]);
  });
});

describe('reading, listing, updating and deleting tokens', () => {
  it('gets a token through the SDK; other merchants, sibling stores and malformed ids get 404', async () => {
    const created = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    const id = created.body.id as string;
    const got = await sdkAs(suite.merchants.pci.storeToken).transactionTokens.get(
      suite.merchants.pci.store.id,
      id,
    );
    expect(got).toMatchObject({
      id,
      storeId: suite.merchants.pci.store.id,
      data: { card: { lastFour: '5556' } },
    });
    // the merchant's own merchant-scope token reaches every store
    expect(
      (await call(`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, { auth: bearer(pciMerchantToken) }))
        .status,
    ).toBe(200);

    const missing = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${randomUUID()}`, {
      auth: bearer(suite.merchants.pci.storeToken),
    });
    expect(missing.status).toBe(404);
    for (const [path, token] of [
      [`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, suite.merchants.foreign.storeToken],
      [`/stores/${suite.merchants.foreign.store.id}/tokens/${id}`, suite.merchants.foreign.storeToken],
      [`/stores/${suite.merchants.pci.store.id}/tokens/not-a-uuid`, suite.merchants.pci.storeToken],
    ] as const) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await call(path, {
          method,
          auth: bearer(token),
          json: method === 'PATCH' ? { email: 'x@y.test' } : undefined,
        });
        expect({ method, status: res.status, body: res.body }).toEqual({
          method,
          status: 404,
          body: missing.body,
        });
      }
    }
    const { store: sibling, storeToken: siblingToken } = await suite.env.seedStore(
      suite.merchants.pci,
      'pci Sibling',
    );
    const fromSibling = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, {
      auth: bearer(siblingToken),
    });
    expect(fromSibling.status).toBe(404);
    const wrongPath = await call(`/stores/${sibling.id}/tokens/${id}`, { auth: bearer(siblingToken) });
    expect(wrongPath.status).toBe(404);
    // the token is untouched
    expect((await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id } })).active).toBe(true);
  });

  it('lists newest first with keyset pagination, total_hits, filters and merchant/store names', async () => {
    const shop = await suite.env.seedMerchant('pager');
    const auth = bearer(shop.storeToken);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await createToken(auth, {
        payment_type: i % 4 === 0 ? 'qr_scan' : 'online',
        type: 'one_time',
        email: `buyer${i}@example.test`,
        data: i % 4 === 0 ? { scanned_qr: '280000000000000001' } : { brand: 'pay_pay_online' },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const newestFirst = [...ids].reverse();

    const sdk = sdkAs(shop.storeToken);
    const first = await sdk.transactionTokens.list({ limit: 10 });
    expect(first.items.map((t) => t.id)).toEqual(newestFirst.slice(0, 10));
    expect(first.hasMore).toBe(true);
    expect(first.totalHits).toBe(12);
    expect(first.items[0]).toMatchObject({ merchantName: 'pager Merchant', storeName: 'pager Store' });

    const second = await call(`/stores/${shop.store.id}/tokens?limit=10&cursor=${first.items[9].id}`, {
      auth,
    });
    expect(second.status).toBe(200);
    expect(second.body.items.map((t: { id: string }) => t.id)).toEqual(newestFirst.slice(10));
    expect(second.body.has_more).toBe(false);
    expect(second.body.total_hits).toBeUndefined();

    const ascending = await sdk.transactionTokens.list(
      { limit: 10, cursorDirection: 'asc' as any },
      undefined,
      shop.store.id,
    );
    expect(ascending.items[0].id).toBe(ids[0]);

    const qr = await call('/tokens?payment_type=qr_scan', { auth });
    expect(qr.body.items.map((t: { id: string }) => t.id)).toEqual([ids[8], ids[4], ids[0]]);
    const search = await call('/tokens?search=BUYER11', { auth });
    expect(search.body.items.map((t: { id: string }) => t.id)).toEqual([ids[11]]);
    // the search is text, not a LIKE pattern: `_` and `%` match themselves only
    for (const pattern of ['BUYER1_', 'BUYER%25'])
      expect((await call(`/tokens?search=${pattern}`, { auth })).body.items).toEqual([]);

    const badLimit = await call('/tokens?limit=5', { auth });
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.errors).toEqual([{ field: 'limit', reason: 'NOT_WITHIN_BOUNDS' }]);
    const foreignCursor = await call(`/tokens?cursor=${ids[0]}`, {
      auth: bearer(suite.merchants.foreign.storeToken),
    });
    expect(foreignCursor.status).toBe(400);

    // other merchants see none of them; a merchant token lists all its stores
    const other = await call('/tokens', { auth: bearer(suite.merchants.foreign.storeToken) });
    expect(other.body.items.filter((t: { id: string }) => ids.includes(t.id))).toEqual([]);
    expect(
      (await call(`/stores/${shop.store.id}/tokens`, { auth: bearer(suite.merchants.foreign.storeToken) }))
        .status,
    ).toBe(404);
    const merchantWide = await suite.env.admin.issueAppToken({ merchantId: shop.merchant.id, mode: 'test' });
    const all = await call('/tokens?limit=100', { auth: bearer(merchantWide) });
    expect(all.body.items).toHaveLength(12);
  });

  it('updates email, metadata and billing with a token_updated event in the same transaction', async () => {
    const created = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'recurring',
      data: card({ line1: '1-2-3 Ginza', country: 'jp' }),
      metadata: '{"order_id":"B-2"}',
    });
    expect(created.body).toMatchObject({
      metadata: { order_id: 'B-2' },
      data: { billing: { line1: '1-2-3 Ginza', country: 'JP' } },
    });
    const id = created.body.id as string;

    const updated = await sdkAs(suite.merchants.pci.storeToken).transactionTokens.update(
      suite.merchants.pci.store.id,
      id,
      {
        email: 'new@example.test',
        metadata: { order_id: 'B-3', 'univapay-customer-id': 'c-1' },
        data: { cardholder: 'Jiro Yamada', zip: '104-0061' },
      },
    );
    expect(updated).toMatchObject({
      email: 'new@example.test',
      metadata: { order_id: 'B-3', 'univapay-customer-id': 'c-1' },
      data: {
        card: { cardholder: 'Jiro Yamada', lastFour: '5556' },
        billing: { line1: '1-2-3 Ginza', zip: '104-0061' },
      },
    });

    const events = await outboxEventsOf(suite.env, id);
    expect(events.map((e) => e.eventType)).toEqual(['token_created', 'token_updated']);
    expect(events[1].payload).toEqual({
      transaction_token_id: id,
      store_id: suite.merchants.pci.store.id,
      changed: ['email', 'metadata', 'cardholder', 'billing'],
      active: true,
    });
    expect(await lastWriterOf(suite.env, 'outbox_events', events[1].id)).toBe(
      await lastWriterOf(suite.env, 'transaction_tokens', id),
    );

    const invalid = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, {
      method: 'PATCH',
      auth: bearer(suite.merchants.pci.storeToken),
      json: { email: 'not-an-email', metadata: { nested: { a: 1 } }, data: { cvv: '1' } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'email', reason: 'INVALID_FORMAT_EMAIL' },
        { field: 'metadata.nested', reason: 'NESTED_JSON_NOT_ALLOWED' },
      ]),
    );

    // a new CVV for a later charge goes to Redis, never to the row
    const withCvv = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, {
      method: 'PATCH',
      auth: bearer(suite.merchants.pci.storeToken),
      json: { data: { cvv: '456' } },
    });
    expect(withCvv.status).toBe(200);
    const cvvs = suite.app.get(PendingCvvStore);
    expect(await cvvs.take(id)).toBe('456');
    expect(
      JSON.stringify(await suite.env.prisma.transactionToken.findUniqueOrThrow({ where: { id } })),
    ).not.toContain('"456"');
  });

  it('delete deactivates the token (token_updated), is idempotent, and blocks later updates', async () => {
    const created = await createToken(bearer(suite.merchants.pci.storeToken), {
      payment_type: 'card',
      type: 'one_time',
      data: card(),
    });
    const id = created.body.id as string;
    const sdk = sdkAs(suite.merchants.pci.storeToken);
    await expect(sdk.transactionTokens.delete(suite.merchants.pci.store.id, id)).resolves.toBeFalsy();
    const got = await sdk.transactionTokens.get(suite.merchants.pci.store.id, id);
    expect(got.active).toBe(false);
    expect(await suite.app.get(PendingCvvStore).take(id)).toBeNull();

    const again = await call(`/stores/${suite.merchants.pci.store.id}/tokens/${id}`, {
      method: 'DELETE',
      auth: bearer(suite.merchants.pci.storeToken),
    });
    expect(again.status).toBe(204);
    const events = await outboxEventsOf(suite.env, id);
    expect(events.map((e) => e.eventType)).toEqual(['token_created', 'token_updated']);
    expect(events[1].payload).toMatchObject({ changed: ['active'], active: false });
    expect(await lastWriterOf(suite.env, 'outbox_events', events[1].id)).toBe(
      await lastWriterOf(suite.env, 'transaction_tokens', id),
    );

    const err = await sdkError(
      sdk.transactionTokens.update(suite.merchants.pci.store.id, id, { email: 'late@example.test' }),
    );
    expect(err).toMatchObject({ code: 'CANNOT_UPDATE_TRANSACTION_TOKEN', httpCode: 400 });
  });
});

describe('card data never reaches a log line', () => {
  it('through valid, invalid, malformed and failing requests at trace level', async () => {
    const auth = bearer(suite.merchants.pci.storeToken);
    const amex = { payment_type: 'card', type: 'one_time', data: card({ card_number: AMEX, cvv: AMEX_CVV }) };
    await createToken(auth, amex);
    await createToken(auth, {
      payment_type: 'card',
      type: 'one_time',
      data: card({ card_number: '4000 0566 5566 5556' }),
    });
    await createToken(auth, {
      payment_type: 'card',
      type: 'one_time',
      data: card({ exp_year: 2001, cvv: AMEX_CVV }),
    });
    await createToken(bearer(suite.merchants.plain.storeToken), amex); // PCI refusal
    await createToken(bearer(pciLive), amex); // test card in live mode
    await createToken(`Bearer ${suite.merchants.plain.storeToken.jwt}`, amex); // public token without Origin
    await createToken(auth, { ...amex, surprise: AMEX }); // unknown field
    await call(`/stores/${suite.merchants.pci.store.id}/tokens/${randomUUID()}`, {
      method: 'PATCH',
      auth,
      json: { data: { cvv: AMEX_CVV } },
    });
    await call('/tokens?search=' + AMEX, { auth });

    // malformed JSON whose parser error message quotes the body
    const malformed = await call('/tokens', {
      method: 'POST',
      auth,
      headers: { 'content-type': 'application/json' },
      body: `{"payment_type":"card","data":{"card_number":"${AMEX}","cvv":"${AMEX_CVV}"`,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.text).not.toContain(AMEX);

    // a database failure mid-request: 500 with an error id, logged
    const repository = suite.app.get(TransactionTokensRepository);
    const spy = jest
      .spyOn(repository, 'create')
      .mockRejectedValueOnce(new Error('connection terminated unexpectedly'));
    const failed = await createToken(auth, amex);
    spy.mockRestore();
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', error_id: expect.any(String) });
    expect(failed.text).not.toContain(AMEX);

    const text = log.text;
    expect(text).toContain(failed.body.error_id); // the 500 was logged: the scan saw real log output
    expect(log.lines.length).toBeGreaterThan(5);
    expect(luhnValidRuns(text)).toEqual([]);
    for (const pan of SENT_PANS) expect(text).not.toContain(pan);
    expect(text).not.toMatch(/(?<![0-9a-f-])7391(?![0-9a-f-])/);
    expect(text).not.toMatch(/"cvv"\s*:\s*"?\d/);
  });
});
