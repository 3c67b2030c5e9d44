// Which transaction token a charge may use, and how often: another store's or merchant's token is not
// found, the mode and payment type must fit, a one_time token is charged once however many requests
// race for it, a recurring one counts its uses. The real gateway in-process, Postgres and Redis; no
// charge-service.
import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  GatewayClient,
  listenLocally,
  REAL_CARD_NUMBER,
  RELAXED_RATE_LIMITS,
  TestEnvironment,
  type Credentials,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let env: TestEnvironment;
let app: NestFastifyApplication;
let gateway: GatewayClient;
let shop: SeededMerchant;
let foreign: SeededMerchant;
let shopMerchantToken: Credentials;
/** the gateway as the shop's store token, and as another merchant's */
let shopApi: GatewayClient;
let foreignApi: GatewayClient;

beforeAll(async () => {
  env = await TestEnvironment.create(RELAXED_RATE_LIMITS);
  app = await createGatewayApp(env.config);
  gateway = new GatewayClient(await listenLocally(app));
  shop = await env.seedPciMerchant('shop');
  shopMerchantToken = await env.merchantToken(shop);
  shopApi = gateway.as(shop);
  foreign = await env.seedPciMerchant('foreign');
  foreignApi = gateway.as(foreign);
});

afterAll(async () => {
  await env?.close(app);
});

describe('POST /charges', () => {
  it('checks the token: another store or merchant 404, mode, payment type, type, inactive', async () => {
    const unknown = await shopApi.postCharge({
      transaction_token_id: randomUUID(),
      amount: 1200,
      currency: 'JPY',
    });
    expect(unknown.status).toBe(404);
    const foreignToken = await foreignApi.cardToken();
    const foreignUse = await shopApi.postCharge({
      transaction_token_id: foreignToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(foreignUse.status).toBe(404);
    expect(foreignUse.body.code).toBe('NOT_FOUND');

    const live = await env.liveStoreToken(shop);
    const liveToken = await gateway.as(live).cardToken({ cardNumber: REAL_CARD_NUMBER });
    const mismatch = await shopApi.postCharge({
      transaction_token_id: liveToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.code).toBe('PROCESSING_MODE_MISMATCH');

    const subscription = await shopApi.cardToken({ type: 'subscription' });
    const wrongType = await shopApi.postCharge({
      transaction_token_id: subscription,
      amount: 1200,
      currency: 'JPY',
    });
    expect(wrongType.body.code).toBe('INVALID_TOKEN_TYPE');

    const deleted = await shopApi.cardToken({ type: 'recurring' });
    await shopApi.request(`/stores/${shop.store.id}/tokens/${deleted}`, { method: 'DELETE' });
    const inactive = await shopApi.postCharge({
      transaction_token_id: deleted,
      amount: 1200,
      currency: 'JPY',
    });
    expect(inactive.status).toBe(400);
    expect(inactive.body.code).toBe('INVALID_TOKEN');

    const merchantWide = await gateway
      .as(shopMerchantToken)
      .postCharge({ transaction_token_id: randomUUID(), amount: 1, currency: 'JPY' });
    expect(merchantWide.status).toBe(403);
    expect(merchantWide.body).toEqual({
      status: 'error',
      code: 'INVALID_PERMISSIONS',
      errors: [{ field: null, reason: 'STORE_TOKEN_REQUIRED' }],
    });

    const online = await shopApi.onlineToken();
    const threeDs = await shopApi.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      three_ds: { mode: 'force' },
    });
    expect(threeDs.body.errors).toEqual([{ field: 'three_ds', reason: 'ONLY_FOR_CARD_PAYMENT' }]);
    const authOnly = await shopApi.postCharge({
      transaction_token_id: online,
      amount: 1200,
      currency: 'JPY',
      capture: false,
    });
    expect(authOnly.body.code).toBe('CAPTURE_ONLY_FOR_CARD_PAYMENT');
    expect((await shopApi.charge(online)).transaction_token_type).toBe('one_time');
  });

  it('parallel charges of two merchants (tokens read together): each finds its own token only', async () => {
    const [mine, theirs] = await Promise.all([shopApi.cardToken(), foreignApi.cardToken()]);
    const answers = await Promise.all([
      shopApi.postCharge({ transaction_token_id: mine, amount: 1200, currency: 'JPY' }),
      foreignApi.postCharge({ transaction_token_id: theirs, amount: 1300, currency: 'JPY' }),
      shopApi.postCharge({ transaction_token_id: theirs, amount: 1400, currency: 'JPY' }),
      foreignApi.postCharge({ transaction_token_id: mine.toUpperCase(), amount: 1500, currency: 'JPY' }),
      shopApi.postCharge({ transaction_token_id: randomUUID(), amount: 1600, currency: 'JPY' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 404, 404, 404]);
    expect(answers[0]?.body).toMatchObject({ transaction_token_id: mine, store_id: shop.store.id });
    expect(answers[1]?.body).toMatchObject({ transaction_token_id: theirs, store_id: foreign.store.id });
    expect(await env.prisma.charge.count({ where: { transactionTokenId: { in: [mine, theirs] } } })).toBe(2);
  });

  it('charges a one_time token once: a reuse is 400 TRANSACTION_ALREADY_PROCESSED', async () => {
    const tokenId = await shopApi.cardToken();
    await shopApi.charge(tokenId);
    const again = await shopApi.postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'TRANSACTION_ALREADY_PROCESSED',
      errors: [{ field: 'transaction_token_id', reason: 'TRANSACTION_ALREADY_PROCESSED' }],
    });
  });

  it('20 parallel charges on one one_time token: exactly one charge', async () => {
    const tokenId = await shopApi.cardToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        shopApi.postCharge({ transaction_token_id: tokenId, amount: 1200, currency: 'JPY' }),
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
    const tokenId = await shopApi.cardToken({ type: 'recurring' });
    await shopApi.charge(tokenId, { amount: 1000 });
    await shopApi.charge(tokenId, { amount: 2000 });
    expect(await env.prisma.transactionToken.findUniqueOrThrow({ where: { id: tokenId } })).toMatchObject({
      active: true,
      usedCount: 2,
    });
  });
});
