// Temporary token aliases through the official univapay-node SDK (its TemporaryTokenAlias class,
// which an integrator makes with `new TemporaryTokenAlias(sdk.api)`): an alias of a card token with
// its amount, metadata and validity; read while valid, gone once expired or deleted; another store's
// alias a 404; bad input the API's error envelope with the SDK's codes (decision 0058).
import SDK, { TemporaryTokenAlias, type TemporaryTokenAliasShortItem } from 'univapay-node';
import { bearer, requestJson, sdkCardToken, sdkError, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOP_ORIGIN = 'https://shop.alias.test';
const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, domains: ['shop.alias.test'] }, other: { pci: true } },
});

const MINUTE = 60_000;
const aliasesOf = (sdk: SDK) => new TemporaryTokenAlias(sdk.api);
/** What create answers: the SDK's TemporaryTokenAliasShortItem (it declares the long item, every field optional). */
const created = async (answer: Promise<unknown>) =>
  (await answer) as TemporaryTokenAliasShortItem & { key: string };

let shop: SDK;
let shopStore: string;
let tokenId: string;

beforeAll(async () => {
  shop = suite.sdk.shop;
  shopStore = suite.merchants.shop.store.id;
  tokenId = (await sdkCardToken(shop, { type: 'recurring' })).id;
});

describe('TemporaryTokenAlias through the SDK', () => {
  it('makes an alias of a token, with its amount, metadata and validity, and reads it back', async () => {
    const validUntil = new Date(Date.now() + 10 * MINUTE).toISOString();
    const alias = await created(
      aliasesOf(shop).create({
        transactionTokenId: tokenId,
        amount: 1200,
        currency: 'jpy',
        metadata: { order: 'A-17', gift: true },
        validUntil,
      }),
    );
    expect(alias).toEqual({ key: expect.any(String), validUntil });
    expect(alias.key).not.toBe(tokenId);

    expect(await aliasesOf(shop).get(shopStore, alias.key)).toEqual({
      id: tokenId,
      merchantId: suite.merchants.shop.merchant.id,
      storeId: shopStore,
      email: 'buyer@example.test',
      paymentType: 'card',
      active: true,
      mode: 'test',
      type: 'recurring',
      createdOn: expect.any(String),
      lastUsedOn: expect.any(String),
      amount: 1200,
      currency: 'JPY',
      aliasMetadata: { order: 'A-17', gift: true },
      validUntil,
    });
  });

  it('is valid for 30 minutes unless told, and shows no amount without one', async () => {
    const { key, validUntil } = await created(aliasesOf(shop).create({ transactionTokenId: tokenId }));
    const alias = (await aliasesOf(shop).get(shopStore, key)) as Record<string, unknown>;
    expect(new Date(validUntil!).getTime() - new Date(alias.createdOn as string).getTime()).toBe(30 * MINUTE);
    expect(alias).not.toHaveProperty('amount');
    expect(alias).not.toHaveProperty('currency');
    expect(alias.aliasMetadata).toEqual({});
  });

  it('is found by nothing once expired: get and delete answer 404', async () => {
    const { key } = await created(aliasesOf(shop).create({ transactionTokenId: tokenId }));
    await suite.env.prisma.transactionTokenAlias.update({
      where: { id: key },
      data: { validUntil: new Date(Date.now() - 1000) },
    });
    expect(await sdkError(aliasesOf(shop).get(shopStore, key))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    expect(await sdkError(aliasesOf(shop).delete(shopStore, key))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is deleted at once: 204, then 404 on every read and on a second delete; the token stays', async () => {
    const { key } = await created(aliasesOf(shop).create({ transactionTokenId: tokenId }));
    await expect(aliasesOf(shop).delete(shopStore, key)).resolves.toBeFalsy();
    expect(await sdkError(aliasesOf(shop).get(shopStore, key))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await sdkError(aliasesOf(shop).delete(shopStore, key))).toMatchObject({ code: 'NOT_FOUND' });
    expect((await shop.transactionTokens.get(shopStore, tokenId)).active).toBe(true);
  });

  it("answers 404 for another store's alias, and for another store's token", async () => {
    const other = suite.sdk.other;
    const otherStore = suite.merchants.other.store.id;
    const { key } = await created(aliasesOf(shop).create({ transactionTokenId: tokenId }));
    // the other merchant, naming the alias's store or its own
    expect(await sdkError(aliasesOf(other).get(shopStore, key))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    expect(await sdkError(aliasesOf(other).get(otherStore, key))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await sdkError(aliasesOf(other).delete(otherStore, key))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await sdkError(aliasesOf(other).create({ transactionTokenId: tokenId }))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    // still the shop's
    expect((await aliasesOf(shop).get(shopStore, key)).id).toBe(tokenId);
  });

  it('refuses bad input in the error envelope, with the SDK’s codes', async () => {
    const aliases = aliasesOf(shop);
    expect(await sdkError(aliases.create({ transactionTokenId: tokenId, amount: 500 }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
      errors: [{ field: 'currency', reason: 'REQUIRED_VALUE' }],
    });
    expect(
      await sdkError(
        aliases.create({
          transactionTokenId: tokenId,
          validUntil: new Date(Date.now() - MINUTE).toISOString(),
        }),
      ),
    ).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'valid_until', reason: 'MUST_BE_FUTURE_TIME' }],
    });
    expect(
      await sdkError(
        aliases.create({
          transactionTokenId: tokenId,
          validUntil: new Date(Date.now() + 25 * 60 * MINUTE).toISOString(),
        }),
      ),
    ).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'valid_until', reason: 'EXPIRATION_DATE_OUT_OF_BOUNDS' }],
    });
    expect(await sdkError(aliases.create({ transactionTokenId: 'not-a-token' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'transaction_token_id', reason: expect.any(String) }],
    });

    const spent = (await sdkCardToken(shop, { type: 'recurring' })).id;
    await shop.transactionTokens.delete(shopStore, spent);
    expect(await sdkError(aliases.create({ transactionTokenId: spent }))).toMatchObject({
      code: 'INVALID_TOKEN',
      errors: [{ field: 'transaction_token_id', reason: 'NOT_ACTIVE' }],
    });

    const { key } = await created(aliases.create({ transactionTokenId: tokenId }));
    // the QR image is not served (decision 0058); the JSON is
    const qr = await requestJson(suite.url, `/stores/${shopStore}/tokens/alias/${key}?media=qr`, {
      auth: bearer(suite.merchants.shop.storeToken),
    });
    expect(qr.status).toBe(400);
    expect(qr.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'media', reason: 'FORBIDDEN_PARAMETER' }],
    });
    const missing = await requestJson(suite.url, '/tokens/alias', {
      method: 'POST',
      auth: bearer(suite.merchants.shop.storeToken),
      json: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'transaction_token_id' }],
    });
  });

  it('is read with the store’s public token from its domains, but made and deleted only with the secret', async () => {
    const publicSdk = new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.shop.storeToken.jwt,
      origin: SHOP_ORIGIN,
    });
    const { key } = await created(aliasesOf(shop).create({ transactionTokenId: tokenId }));
    expect((await aliasesOf(publicSdk).get(shopStore, key)).id).toBe(tokenId);
    expect(await sdkError(aliasesOf(publicSdk).create({ transactionTokenId: tokenId }))).toMatchObject({
      code: 'INVALID_PERMISSIONS',
      httpCode: 403,
    });
    expect(await sdkError(aliasesOf(publicSdk).delete(shopStore, key))).toMatchObject({
      code: 'INVALID_PERMISSIONS',
    });
  });
});
