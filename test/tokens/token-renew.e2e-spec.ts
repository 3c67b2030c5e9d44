// POST (/stores/{storeId})/tokens/{id}/renew (issue 18; docs/transaction-tokens.md, "Renewal")
// through the official SDK: a recurring card token gets a new token for the card's new expiry, with
// previous_id; the old one is deactivated, its subscriptions move, token_replaced is written; the
// card number is sealed again under the new token; another merchant reaches none of it. The gateway
// runs in-process.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TOKEN_REPLACED, TOKEN_UPDATED } from '@kessai/contracts';
import {
  APPROVED_TEST_CARD,
  GatewayClient,
  listenLocally,
  NEXT_YEAR,
  outboxEventsOf,
  RELAXED_RATE_LIMITS,
  sdkCardToken,
  sdkError,
  sdkFor,
  TestEnvironment,
  type SeededMerchant,
} from '@kessai/testing';
import { RedisService } from '@kessai/redis';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let env: TestEnvironment;
let app: NestFastifyApplication;
let baseUrl: string;
let shop: SeededMerchant;
let foreign: SeededMerchant;
let redis: RedisService;
let cvvs: PendingCvvStore;

const sdk = () => sdkFor(baseUrl, shop.storeToken);
const renewal = { data: { cardholder: 'Hanako Yamada', expMonth: 3, expYear: NEXT_YEAR + 2 } };

beforeAll(async () => {
  env = await TestEnvironment.create(RELAXED_RATE_LIMITS);
  app = await createGatewayApp(env.config);
  baseUrl = await listenLocally(app);
  shop = await env.seedPciMerchant('renew-shop');
  foreign = await env.seedPciMerchant('renew-foreign');
  redis = new RedisService(env.config);
  await redis.onModuleInit();
  cvvs = new PendingCvvStore(redis, env.config);
});

afterAll(async () => {
  await redis?.onModuleDestroy();
  await env?.close(app);
});

/** A subscription row on the token, as the subscriptions issue will write them. */
async function subscriptionOn(tokenId: string): Promise<string> {
  const row = await env.prisma.subscription.create({
    data: {
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      transactionTokenId: tokenId,
      mode: 'test',
      period: 'monthly',
      scheduleCreatedAt: new Date(),
      amount: 1000n,
      currency: 'JPY',
    },
  });
  return row.id;
}

describe('token renewal', () => {
  it('replaces a recurring card token: previous_id, same card, old one off, subscriptions moved, token_replaced', async () => {
    const old: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const subscriptionId = await subscriptionOn(old.id);

    const renewed: any = await sdk().transactionTokens.renew(shop.store.id, old.id, renewal);
    expect(renewed).toMatchObject({
      previousId: old.id,
      type: 'recurring',
      paymentType: 'card',
      active: true,
      email: old.email,
      data: {
        card: {
          cardholder: 'Hanako Yamada',
          expMonth: 3,
          expYear: NEXT_YEAR + 2,
          lastFour: old.data.card.lastFour,
        },
      },
    });
    expect(renewed.id).not.toBe(old.id);
    expect((await sdk().transactionTokens.get(shop.store.id, old.id)).active).toBe(false);
    // the old token's pending CVV is gone with it, as on DELETE
    expect(await cvvs.take(old.id)).toBeNull();
    // the same card, sealed under the new token (the vault binds a ciphertext to its token)
    const vault = new CardVault(env.config.VAULT_KEYS, env.config.VAULT_FINGERPRINT_SECRET);
    const sealed = await env.prisma.cardVault.findUniqueOrThrow({
      where: { transactionTokenId: renewed.id },
    });
    expect(vault.decrypt(sealed, { transactionTokenId: renewed.id }).reveal()).toBe(APPROVED_TEST_CARD);
    expect(
      (await env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).transactionTokenId,
    ).toBe(renewed.id);
    const replaced = (await outboxEventsOf(env, renewed.id)).filter((e) => e.eventType === TOKEN_REPLACED);
    expect(replaced.map((e) => e.payload)).toEqual([
      { transaction_token_id: renewed.id, previous_id: old.id, store_id: shop.store.id },
    ]);
    const deactivated = (await outboxEventsOf(env, old.id)).filter((e) => e.eventType === TOKEN_UPDATED);
    expect(deactivated.map((e) => (e.payload as { changed: string[] }).changed)).toEqual([['active']]);

    // the old token cannot be renewed (or charged) again
    const again = await sdkError(sdk().transactionTokens.renew(shop.store.id, old.id, renewal));
    expect(again).toMatchObject({ httpCode: 400, code: 'CANNOT_UPDATE_TRANSACTION_TOKEN' });
  });

  it('takes a new card number and CVV (card data: the PCI DSS gate), checked like a new token', async () => {
    const old: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const api = new GatewayClient(baseUrl).as(shop);
    const path = `/stores/${shop.store.id}/tokens/${old.id}/renew`;
    const expired = await api.request(path, {
      method: 'POST',
      json: { data: { cardholder: 'Hanako Yamada', exp_month: 1, exp_year: 2020 } },
    });
    expect([expired.status, expired.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const badNumber = await api.request(path, {
      method: 'POST',
      json: {
        data: {
          cardholder: 'Hanako Yamada',
          exp_month: 1,
          exp_year: NEXT_YEAR,
          card_number: '4111111111111112',
        },
      },
    });
    expect([badNumber.status, badNumber.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await sdk().transactionTokens.get(shop.store.id, old.id)).active).toBe(true);

    const ok = await api.request(path, {
      method: 'POST',
      json: {
        data: {
          cardholder: 'Hanako Yamada',
          exp_month: 1,
          exp_year: NEXT_YEAR,
          card_number: '5555555555554444',
          cvv: '321',
        },
      },
    });
    expect([ok.status, ok.body.previous_id, ok.body.data.card.brand]).toEqual([200, old.id, 'mastercard']);
    // the new CVV waits for the new token's first charge
    expect(await cvvs.take(ok.body.id as string)).toBe('321');

    const plain = await env.seedMerchant('renew-plain');
    const plainToken = await env.prisma.transactionToken.create({
      data: {
        merchantId: plain.merchant.id,
        storeId: plain.store.id,
        mode: 'test',
        type: 'recurring',
        paymentType: 'card',
        data: {},
      },
    });
    const gated = await new GatewayClient(baseUrl)
      .as(plain)
      .request(`/stores/${plain.store.id}/tokens/${plainToken.id}/renew`, {
        method: 'POST',
        json: {
          data: { cardholder: 'X Y', exp_month: 1, exp_year: NEXT_YEAR, card_number: '5555555555554444' },
        },
      });
    expect([gated.status, gated.body.code]).toEqual([403, 'DIRECT_CARD_TOKEN_CREATION_DISABLED']);
  });

  it('is for recurring and subscription card tokens of the caller’s store only', async () => {
    const oneTime: any = await sdkCardToken(sdk());
    const refused = await sdkError(sdk().transactionTokens.renew(shop.store.id, oneTime.id, renewal));
    expect(refused).toMatchObject({ httpCode: 400, code: 'INVALID_TOKEN_TYPE' });

    const old: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const other = sdkFor(baseUrl, foreign.storeToken);
    expect((await sdkError(other.transactionTokens.renew(shop.store.id, old.id, renewal))).httpCode).toBe(
      404,
    );
    expect((await sdkError(other.transactionTokens.renew(foreign.store.id, old.id, renewal))).httpCode).toBe(
      404,
    );
    expect((await sdk().transactionTokens.get(shop.store.id, old.id)).active).toBe(true);

    // without the store in the path: the store token's own store
    const renewed = await new GatewayClient(baseUrl).as(shop).request(`/tokens/${old.id}/renew`, {
      method: 'POST',
      json: { data: { cardholder: 'Hanako Yamada', exp_month: 4, exp_year: NEXT_YEAR } },
    });
    expect([renewed.status, renewed.body.previous_id]).toEqual([200, old.id]);
  });
});
