// POST (/stores/{storeId})/tokens/{id}/renew (issue 18; docs/transaction-tokens.md, "Renewal")
// through the official SDK: a recurring card token gets a new token for the card's new expiry, with
// previous_id; the old one is deactivated, its subscriptions move, token_replaced is written; the
// card number is sealed again under the new token; another merchant reaches none of it. The gateway
// runs in-process.
import { TOKEN_REPLACED, TOKEN_UPDATED } from '@kessai/contracts';
import {
  APPROVED_TEST_CARD,
  NEXT_YEAR,
  outboxEventsOf,
  sdkCardToken,
  sdkError,
  useSuite,
} from '@kessai/testing';
import { RedisService } from '@kessai/redis';
import { CardVault, PendingCvvStore } from '@kessai/vault';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true }, foreign: { pci: true } },
});
let redis: RedisService;
let cvvs: PendingCvvStore;

const sdk = () => suite.sdk.shop;
const renewal = { data: { cardholder: 'Hanako Yamada', expMonth: 3, expYear: NEXT_YEAR + 2 } };

beforeAll(async () => {
  redis = new RedisService(suite.env.config);
  await redis.onModuleInit();
  suite.cleanup(() => redis.onModuleDestroy());
  cvvs = new PendingCvvStore(redis, suite.env.config);
});

/** A subscription row on the token, as the subscriptions issue will write them. */
async function subscriptionOn(tokenId: string): Promise<string> {
  const row = await suite.env.prisma.subscription.create({
    data: {
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
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

    const renewed: any = await sdk().transactionTokens.renew(suite.merchants.shop.store.id, old.id, renewal);
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
    expect((await sdk().transactionTokens.get(suite.merchants.shop.store.id, old.id)).active).toBe(false);
    // the old token's pending CVV is gone with it, as on DELETE
    expect(await cvvs.take(old.id)).toBeNull();
    // the same card, sealed under the new token (the vault binds a ciphertext to its token)
    const vault = new CardVault(suite.env.config.VAULT_KEYS, suite.env.config.VAULT_FINGERPRINT_SECRET);
    const sealed = await suite.env.prisma.cardVault.findUniqueOrThrow({
      where: { transactionTokenId: renewed.id },
    });
    expect(vault.decrypt(sealed, { transactionTokenId: renewed.id }).reveal()).toBe(APPROVED_TEST_CARD);
    expect(
      (await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } }))
        .transactionTokenId,
    ).toBe(renewed.id);
    const replaced = (await outboxEventsOf(suite.env, renewed.id)).filter(
      (e) => e.eventType === TOKEN_REPLACED,
    );
    expect(replaced.map((e) => e.payload)).toEqual([
      { transaction_token_id: renewed.id, previous_id: old.id, store_id: suite.merchants.shop.store.id },
    ]);
    const deactivated = (await outboxEventsOf(suite.env, old.id)).filter(
      (e) => e.eventType === TOKEN_UPDATED,
    );
    expect(deactivated.map((e) => (e.payload as { changed: string[] }).changed)).toEqual([['active']]);

    // the list's previous_transaction_token_id filter finds the successor, and only it (issue 30, gap 9)
    const successors = await sdk().transactionTokens.list({ previousTransactionTokenId: old.id });
    expect(successors.items.map((token) => token.id)).toEqual([renewed.id]);
    const ofStore = await sdk().transactionTokens.list(
      { previousTransactionTokenId: renewed.id },
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(ofStore.items).toEqual([]);

    // the old token cannot be renewed (or charged) again
    const again = await sdkError(
      sdk().transactionTokens.renew(suite.merchants.shop.store.id, old.id, renewal),
    );
    expect(again).toMatchObject({ httpCode: 400, code: 'CANNOT_UPDATE_TRANSACTION_TOKEN' });
  });

  it('takes a new card number and CVV (card data: the PCI DSS gate), checked like a new token', async () => {
    const old: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const api = suite.api.shop;
    const path = `/stores/${suite.merchants.shop.store.id}/tokens/${old.id}/renew`;
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
    expect((await sdk().transactionTokens.get(suite.merchants.shop.store.id, old.id)).active).toBe(true);

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

    const plain = await suite.env.seedMerchant('renew-plain');
    const plainToken = await suite.env.prisma.transactionToken.create({
      data: {
        merchantId: plain.merchant.id,
        storeId: plain.store.id,
        mode: 'test',
        type: 'recurring',
        paymentType: 'card',
        data: {},
      },
    });
    const gated = await suite.gateway
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
    const refused = await sdkError(
      sdk().transactionTokens.renew(suite.merchants.shop.store.id, oneTime.id, renewal),
    );
    expect(refused).toMatchObject({ httpCode: 400, code: 'INVALID_TOKEN_TYPE' });

    const old: any = await sdkCardToken(sdk(), { type: 'recurring' });
    const other = suite.sdk.foreign;
    expect(
      (await sdkError(other.transactionTokens.renew(suite.merchants.shop.store.id, old.id, renewal)))
        .httpCode,
    ).toBe(404);
    expect(
      (await sdkError(other.transactionTokens.renew(suite.merchants.foreign.store.id, old.id, renewal)))
        .httpCode,
    ).toBe(404);
    expect((await sdk().transactionTokens.get(suite.merchants.shop.store.id, old.id)).active).toBe(true);

    // without the store in the path: the store token's own store
    const renewed = await suite.api.shop.request(`/tokens/${old.id}/renew`, {
      method: 'POST',
      json: { data: { cardholder: 'Hanako Yamada', exp_month: 4, exp_year: NEXT_YEAR } },
    });
    expect([renewed.status, renewed.body.previous_id]).toEqual([200, old.id]);
  });
});
