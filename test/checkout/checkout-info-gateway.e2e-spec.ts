// checkoutInfo.gateway through the official univapay-node SDK (decision 0058): the Alipay+ wallets
// in test mode, each a brand an online token takes; WeChat's in-browser gateway, live mode and
// other brands refused in the error envelope with the SDK's codes.
import SDK, {
  AlipayPlusOnlineBrand,
  OnlineBrand,
  OnlineCallMethod,
  PaymentType,
  TransactionTokenType,
  type AlipayPlusOnlineCheckoutInfoBrandItem,
} from 'univapay-node';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOP_ORIGIN = 'https://shop.gateway.test';
const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { domains: ['shop.gateway.test'] }, closed: {} },
});

const payload = { amount: 1000, currency: 'JPY', callMethod: OnlineCallMethod.HTTP_GET };

describe('checkoutInfo.gateway', () => {
  it("lists the Alipay+ wallets, each one a brand the store's online tokens take", async () => {
    const page = new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.shop.storeToken.jwt,
      origin: SHOP_ORIGIN,
    });
    const gateway = (await page.checkoutInfo.gateway(
      OnlineBrand.ALIPAY_PLUS_ONLINE,
      payload,
    )) as AlipayPlusOnlineCheckoutInfoBrandItem;
    expect(gateway.service).toBe('alipay_plus_online');
    expect(gateway.serviceName).toBe('Alipay+');
    expect(gateway.brands.map((b) => b.brandName).sort()).toEqual(
      Object.values(AlipayPlusOnlineBrand).sort(),
    );
    for (const brand of gateway.brands) {
      expect(brand).toEqual({
        brandName: expect.any(String),
        brandDisplayName: expect.any(String),
        extras: {},
      });
    }

    const chosen = gateway.brands.find((b) => b.brandName === 'tinaba')!;
    const token = await page.transactionTokens.create({
      paymentType: PaymentType.ONLINE,
      type: TransactionTokenType.ONE_TIME,
      email: 'buyer@example.test',
      data: { brand: chosen.brandName as OnlineBrand },
    });
    expect(token.data).toMatchObject({ brand: 'tinaba' });
  });

  it('refuses WeChat’s in-browser gateway, other brands and live mode: 400 NOT_SUPPORTED_BY_PROCESSOR', async () => {
    const shop = suite.sdk.shop;
    for (const brand of [OnlineBrand.WE_CHAT_ONLINE, OnlineBrand.PAY_PAY_ONLINE]) {
      expect(
        await sdkError(
          shop.checkoutInfo.gateway(brand, {
            ...payload,
            callMethod: OnlineCallMethod.WEB,
            authorizationCode: 'code-1',
          }),
        ),
      ).toMatchObject({
        code: 'NOT_SUPPORTED_BY_PROCESSOR',
        httpCode: 400,
        errors: [{ field: 'brand', reason: 'NOT_SUPPORTED_BY_PROCESSOR' }],
      });
    }
    const live = sdkFor(suite.url, await suite.env.liveStoreToken(suite.merchants.shop));
    expect(await sdkError(live.checkoutInfo.gateway(OnlineBrand.ALIPAY_PLUS_ONLINE, payload))).toMatchObject({
      code: 'NOT_SUPPORTED_BY_PROCESSOR',
    });
  });

  it('refuses bad input, and a store whose online payments are off', async () => {
    const shop = suite.sdk.shop;
    expect(
      await sdkError(
        shop.checkoutInfo.gateway(OnlineBrand.ALIPAY_PLUS_ONLINE, {
          ...payload,
          callMethod: OnlineCallMethod.APP,
        }),
      ),
    ).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'os_type', reason: 'REQUIRED_VALUE' }] });
    expect(
      await sdkError(shop.checkoutInfo.gateway(OnlineBrand.ALIPAY_PLUS_ONLINE, { ...payload, amount: 0 })),
    ).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'amount', reason: 'CHARGE_AMOUNT_TOO_LOW' }],
    });

    const closed = suite.sdk.closed;
    await closed.stores.update(suite.merchants.closed.store.id, {
      configuration: { onlineConfiguration: { enabled: false } },
    });
    expect(
      await sdkError(closed.checkoutInfo.gateway(OnlineBrand.ALIPAY_PLUS_ONLINE, payload)),
    ).toMatchObject({
      code: 'ONLINE_PROCESSING_DISABLED',
      errors: [{ field: 'brand', reason: 'ONLINE_PROCESSING_DISABLED' }],
    });
  });
});
