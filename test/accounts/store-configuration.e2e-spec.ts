// Store and merchant configuration (docs/configuration.md) through the official SDK and raw HTTP:
// defaults presented, changed with PATCH /stores/{id} as sdk.stores.update sends it, obeyed by
// POST /charges; the customer UUID; GET /checkout_info for a secret-less token. The gateway runs
// in-process; no charge-service: charges are refused or left pending, which is all this suite reads.
import SDK, { CardBrand, PaymentType, TransactionTokenType } from 'univapay-node';
import { bearer, cardData, type GatewayClient, sdkError, useSuite } from '@kessai/testing';
import { DEFAULT_CONFIGURATION, presentConfiguration } from '@kessai/store-configuration';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOP_ORIGIN = 'https://shop.example.test';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, domains: ['shop.example.test'] }, foreign: { pci: true } },
});

const sdk = () => suite.sdk.shop;
/** The store's configuration as sdk.stores.update sends it (the SDK snake_cases every key). */
const configure = (configuration: Record<string, unknown>) =>
  sdk().stores.update(suite.merchants.shop.store.id, { configuration });
/** Back to the merchant's settings: null removes every key the tests set on the store. */
const resetStore = () =>
  suite.env.prisma.store.update({
    where: { id: suite.merchants.shop.store.id },
    data: { configuration: {} },
  });

afterEach(resetStore);

describe('configuration presented', () => {
  it('shows the defaults on GET /stores/{id}, in lists and on GET /me', async () => {
    const raw = await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}`);
    expect(raw.status).toBe(200);
    // the shop is PCI DSS compliant: it may send card data with its secret
    expect(raw.body.configuration).toEqual(
      presentConfiguration(DEFAULT_CONFIGURATION, { directCardTokens: true }),
    );
    expect(raw.body.configuration).toMatchObject({
      card_configuration: { enabled: true, forbidden_card_brands: [] },
      subscription_configuration: { failed_charges_to_cancel: 3 },
      percent_fee: 0,
      country: 'JP',
      display_time_zone: 'Asia/Tokyo',
    });
    const store = await sdk().stores.get(suite.merchants.shop.store.id);
    expect(store.configuration.cardConfiguration.enabled).toBe(true);
    expect(store.configuration.recurringTokenConfiguration.recurringType).toBe('infinite');
    expect((await sdk().stores.list()).items[0]?.configuration.minimumChargeAmounts).toEqual([]);
    const me = await sdk().merchants.me();
    expect(me.configuration.subscriptionConfiguration).toEqual({
      enabled: true,
      failedChargesToCancel: 3,
      suspendOnCancel: true,
      allowMerchantAmountPatch: false,
      allowMerchantDueDatePatch: false,
    });
  });

  it('shows the blocks and nested keys the SDK requires, with the values Kessai applies (issue 30, gap 2)', async () => {
    const applied = {
      cardConfiguration: {
        debitEnabled: true,
        debitAuthorizationEnabled: true,
        prepaidEnabled: true,
        prepaidAuthorizationEnabled: true,
        foreignCardsAllowed: true,
        failOnNewEmail: false,
        allowedCountriesByIp: [],
        allowEmptyCvv: false,
        onlyDirectCurrency: false,
        allowDirectTokenCreation: true,
      },
      bankTransferConfiguration: {
        remindNotificationEnabled: false,
        chargeRequestNotificationEnabled: false,
        depositReceivedNotificationEnabled: false,
        depositInsufficientNotificationEnabled: false,
        depositExceededNotificationEnabled: false,
        extensionNotificationEnabled: false,
        // no reminder is sent; virtual accounts are given out one per charge, no pool is kept
        remindNotificationPeriod: 'P0D',
        virtualBankAccountsThreshold: 0,
        virtualBankAccountsFetchCount: 1,
      },
    };
    const blocks = {
      securityConfiguration: { refundPercentLimit: 100 },
      // a setting (enforced by subscription creation: test/subscriptions/subscriptions-sdk.e2e-spec.ts)
      installmentsConfiguration: { enabled: true, onlyWithProcessor: false },
      checkoutConfiguration: { ecEmail: { enabled: true }, ecProducts: { enabled: true } },
      // settings (test/charges/paidy.e2e-spec.ts, test/charges/qr-merchant.e2e-spec.ts), on by default
      paidyConfiguration: { enabled: true },
      qrMerchantConfiguration: { enabled: true },
    };
    const store = await sdk().stores.get(suite.merchants.shop.store.id);
    expect(store.configuration).toMatchObject({ ...applied, ...blocks });
    expect((await sdk().merchants.me()).configuration).toMatchObject({ ...applied, ...blocks });
    expect((await sdk().stores.list()).items[0]?.configuration).toMatchObject({ ...applied, ...blocks });
    // checkout_info shows the same card and bank transfer keys (its own blocks are its type's)
    const info = await new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.shop.storeToken.jwt,
      origin: SHOP_ORIGIN,
    }).checkoutInfo.get();
    expect(info).toMatchObject(applied);
    // a merchant that is not PCI DSS compliant may not send card data with its secret: shown so
    await suite.env.prisma.merchant.update({
      where: { id: suite.merchants.shop.merchant.id },
      data: { pciDssCompliant: false },
    });
    try {
      const direct = (await sdk().stores.get(suite.merchants.shop.store.id)).configuration.cardConfiguration;
      expect(direct.allowDirectTokenCreation).toBe(false);
    } finally {
      await suite.env.prisma.merchant.update({
        where: { id: suite.merchants.shop.merchant.id },
        data: { pciDssCompliant: true },
      });
    }
  });

  it("merges the store's settings over its merchant's, key by key inside the nested objects", async () => {
    await suite.env.admin.configureMerchant(suite.merchants.shop.merchant.id, {
      card_configuration: { forbidden_card_brands: ['jcb'] },
      language: 'en_us',
    });
    try {
      const store = await configure({ cardConfiguration: { enabled: false } });
      // the merged settings (beside them the keys Kessai only shows: "Shown, not set")
      expect(store.configuration.cardConfiguration).toMatchObject({
        enabled: false,
        forbiddenCardBrands: ['jcb'],
      });
      expect(store.configuration.language).toBe('EN_US');
      expect((await sdk().merchants.me()).configuration.cardConfiguration).toMatchObject({
        enabled: true,
        forbiddenCardBrands: ['jcb'],
      });
      // null returns a key to the merchant's setting
      const back = await configure({ cardConfiguration: { enabled: null } });
      expect(back.configuration.cardConfiguration.enabled).toBe(true);
      expect(
        await suite.env.prisma.store.findUniqueOrThrow({ where: { id: suite.merchants.shop.store.id } }),
      ).toMatchObject({
        configuration: {},
      });
    } finally {
      await suite.env.prisma.merchant.update({
        where: { id: suite.merchants.shop.merchant.id },
        data: { configuration: {} },
      });
    }
  });
});

describe('PATCH /stores/{id} configuration', () => {
  it('changes what the SDK sends and keeps what it does not', async () => {
    await configure({ minimumChargeAmounts: [{ amount: 500, currency: 'jpy' }] });
    const updated = await configure({
      cardConfiguration: { forbiddenCardBrands: [CardBrand.JCB] },
      qrScanConfiguration: { enabled: false },
      subscriptionConfiguration: { failedChargesToCancel: 5, suspendOnCancel: true },
    });
    expect(updated.configuration).toMatchObject({
      minimumChargeAmounts: [{ amount: 500, currency: 'JPY' }],
      cardConfiguration: { enabled: true, forbiddenCardBrands: ['jcb'] },
      qrScanConfiguration: { enabled: false, forbiddenQrScanGateways: [] },
      subscriptionConfiguration: { enabled: true, failedChargesToCancel: 5, suspendOnCancel: true },
    });
    expect((await sdk().stores.get(suite.merchants.shop.store.id)).configuration).toEqual(
      updated.configuration,
    );
  });

  it.each([
    [
      { minimum_charge_amounts: [{ amount: 0, currency: 'JPY' }] },
      'configuration.minimum_charge_amounts.0.amount',
      'NOT_WITHIN_BOUNDS',
    ],
    [
      { card_configuration: { forbidden_card_brands: ['amex'] } },
      'configuration.card_configuration.forbidden_card_brands.0',
      'INVALID_FORMAT',
    ],
    [
      { recurring_token_configuration: { recurring_type: 'sometimes' } },
      'configuration.recurring_token_configuration.recurring_type',
      'INVALID_FORMAT',
    ],
    [{ display_time_zone: 'Mars/Olympus' }, 'configuration.display_time_zone', 'INVALID_TIME_ZONE'],
    [
      { card_configuration: { debit_enabled: true } },
      'configuration.card_configuration.debit_enabled',
      'FORBIDDEN_PARAMETER',
    ],
    // fees are the operator's terms (admin CLI), not the merchant's to set
    [{ percent_fee: 0 }, 'configuration.percent_fee', 'FORBIDDEN_PARAMETER'],
    [{ flat_fees: [] }, 'configuration.flat_fees', 'FORBIDDEN_PARAMETER'],
  ])('refuses %j with 400 naming %s', async (configuration, field, reason) => {
    const res = await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}`, {
      method: 'PATCH',
      json: { configuration },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', code: 'VALIDATION_ERROR', errors: [{ field, reason }] });
    expect(
      (await suite.env.prisma.store.findUniqueOrThrow({ where: { id: suite.merchants.shop.store.id } }))
        .configuration,
    ).toEqual({});
  });

  it("refuses a minimum above the maximum of a currency, its merchant's maximum included", async () => {
    await suite.env.admin.configureMerchant(suite.merchants.shop.merchant.id, {
      maximum_charge_amounts: [{ amount: 1000, currency: 'JPY' }],
    });
    try {
      const res = await suite.api.shop.request(`/stores/${suite.merchants.shop.store.id}`, {
        method: 'PATCH',
        json: { configuration: { minimum_charge_amounts: [{ amount: 1001, currency: 'JPY' }] } },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { field: 'configuration.minimum_charge_amounts', reason: 'NOT_WITHIN_BOUNDS' },
      ]);
      // lifting the merchant's maximum in the same change is fine
      const lifted = await configure({
        minimumChargeAmounts: [{ amount: 1001, currency: 'JPY' }],
        maximumChargeAmounts: [],
      });
      expect(lifted.configuration.maximumChargeAmounts).toEqual([]);
    } finally {
      await suite.env.prisma.merchant.update({
        where: { id: suite.merchants.shop.merchant.id },
        data: { configuration: {} },
      });
    }
  });

  it('answers the SDK its error envelope', async () => {
    const error = await sdkError(configure({ maximumChargeAmounts: [{ amount: -1, currency: 'JPY' }] }));
    expect(error).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
      errors: [{ field: 'configuration.maximum_charge_amounts.0.amount', reason: 'NOT_WITHIN_BOUNDS' }],
    });
  });

  it("is 404 on another merchant's store, which stays as it was", async () => {
    const error = await sdkError(
      sdk().stores.update(suite.merchants.foreign.store.id, {
        configuration: { cardConfiguration: { enabled: false } },
      }),
    );
    expect(error).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
    expect(
      (await suite.env.prisma.store.findUniqueOrThrow({ where: { id: suite.merchants.foreign.store.id } }))
        .configuration,
    ).toEqual({});
    expect((await sdkError(sdk().stores.get(suite.merchants.foreign.store.id))).code).toBe('NOT_FOUND');
  });
});

describe('POST /charges obeys the configuration', () => {
  const refusal = (code: string, field = 'transaction_token_id') => ({
    status: 'error',
    code,
    errors: [{ field, reason: code }],
  });
  /** POST /tokens refused for a payment type the store switched off: the charge's code, on payment_type */
  const typeRefusal = (code: string) => refusal(code, 'payment_type');
  const CARD_DATA = cardData();
  const tokenRefusal = async (json: unknown) => {
    const res = await suite.api.shop.request('/tokens', { method: 'POST', json });
    expect(res.status).toBe(400);
    return res.body;
  };

  it('refuses a charge below the minimum or above the maximum of its currency, and takes one within', async () => {
    await configure({
      minimumChargeAmounts: [{ amount: 1000, currency: 'JPY' }],
      maximumChargeAmounts: [{ amount: 5000, currency: 'JPY' }],
    });
    const low = await suite.api.shop.postCharge({
      transaction_token_id: await suite.api.shop.cardToken(),
      amount: 999,
      currency: 'JPY',
    });
    expect(low.status).toBe(400);
    expect(low.body).toEqual(refusal('CHARGE_AMOUNT_TOO_LOW', 'amount'));
    const high = await suite.api.shop.postCharge({
      transaction_token_id: await suite.api.shop.cardToken(),
      amount: 5001,
      currency: 'JPY',
    });
    expect(high.body).toEqual(refusal('CHARGE_AMOUNT_TOO_HIGH', 'amount'));
    // limits are per currency: USD has none
    expect(
      (await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount: 1, currency: 'USD' })).status,
    ).toBe('pending');
    const within = await suite.api.shop.charge(await suite.api.shop.cardToken(), { amount: 1000 });
    expect(within.status).toBe('pending');
    // a refused charge writes nothing, and its one_time token stays usable
    expect(
      await suite.env.prisma.charge.count({
        where: { storeId: suite.merchants.shop.store.id, requestedAmount: { in: [999n, 5001n] } },
      }),
    ).toBe(0);
  });

  it('refuses a forbidden card brand and a disabled card payment', async () => {
    const jcb = await suite.api.shop.cardToken({ cardNumber: '3530111333300000' });
    await configure({ cardConfiguration: { forbiddenCardBrands: [CardBrand.JCB] } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: jcb, amount: 1200, currency: 'JPY' })).body,
    ).toEqual(refusal('CARD_BRAND_NOT_SUPPORTED'));
    expect((await suite.api.shop.charge(await suite.api.shop.cardToken())).status).toBe('pending'); // visa still taken
    // a token made while cards were on, charged after they were switched off
    const visaToken = await suite.api.shop.cardToken();
    await configure({ cardConfiguration: { enabled: false } });
    const visa = await suite.api.shop.postCharge({
      transaction_token_id: visaToken,
      amount: 1200,
      currency: 'JPY',
    });
    expect(visa.body).toEqual(refusal('CARD_PROCESSING_DISABLED'));
    // and a new card token is refused when it is made, with the same code
    expect(await tokenRefusal({ payment_type: 'card', type: 'one_time', data: CARD_DATA })).toEqual(
      typeRefusal('CARD_PROCESSING_DISABLED'),
    );
    // the brand's token is still good once the store allows it again
    await configure({ cardConfiguration: { enabled: true, forbiddenCardBrands: [] } });
    expect((await suite.api.shop.charge(jcb)).status).toBe('pending');
  });

  it('refuses QR when disabled or its operator forbidden, and online when disabled', async () => {
    const qr = () =>
      suite.api.shop.request('/tokens', {
        method: 'POST',
        json: { payment_type: 'qr_scan', type: 'one_time', data: { scanned_qr: '280000000000000001' } },
      });
    const qrToken = (await qr()).body.id as string;
    await configure({ qrScanConfiguration: { enabled: false } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: qrToken, amount: 1200, currency: 'JPY' }))
        .body,
    ).toEqual(refusal('QR_PROCESSING_DISABLED'));
    expect((await qr()).body).toEqual(typeRefusal('QR_PROCESSING_DISABLED'));
    await configure({ qrScanConfiguration: { enabled: true, forbiddenQrScanGateways: ['alipay'] } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: qrToken, amount: 1200, currency: 'JPY' }))
        .body,
    ).toEqual(refusal('FORBIDDEN_QR_GATEWAY'));
    await configure({ qrScanConfiguration: { forbiddenQrScanGateways: ['we_chat'] } });
    expect((await suite.api.shop.charge(qrToken)).status).toBe('pending');

    const online = await suite.api.shop.onlineToken();
    await configure({ onlineConfiguration: { enabled: false } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: online, amount: 1200, currency: 'JPY' })).body,
    ).toEqual(refusal('ONLINE_PROCESSING_DISABLED'));
    expect(
      await tokenRefusal({ payment_type: 'online', type: 'one_time', data: { brand: 'pay_pay_online' } }),
    ).toEqual(typeRefusal('ONLINE_PROCESSING_DISABLED'));
  });

  it('refuses a recurring token when the store takes none, and an unbounded one when bounded', async () => {
    const recurring = await suite.api.shop.cardToken({ type: 'recurring' });
    await configure({ recurringTokenConfiguration: { recurringType: 'none' } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: recurring, amount: 1200, currency: 'JPY' }))
        .body,
    ).toEqual(refusal('RECURRING_TOKEN_DISABLED'));
    await configure({ recurringTokenConfiguration: { recurringType: 'bounded' } });
    expect(
      (await suite.api.shop.postCharge({ transaction_token_id: recurring, amount: 1200, currency: 'JPY' }))
        .body,
    ).toEqual(refusal('RECURRING_USAGE_LIMIT_REQUIRED'));
    // and token creation follows the same setting
    const created = await sdkError(
      sdk().transactionTokens.create({
        paymentType: PaymentType.CARD,
        type: TransactionTokenType.RECURRING,
        data: {
          cardholder: 'Taro Yamada',
          cardNumber: '4000056655665556',
          expMonth: 12,
          expYear: 2099,
          cvv: '123',
        },
      }),
    );
    expect(created.code).toBe('RECURRING_USAGE_LIMIT_REQUIRED');
  });

  it('records the fee terms of the configuration on the charge (the fee itself comes with the outcome)', async () => {
    await suite.env.admin.configureStore(suite.merchants.shop.store.id, {
      percent_fee: 3.6,
      card_brand_percent_fees: { mastercard: 2.95 },
      flat_fees: [{ amount: 30, currency: 'JPY' }],
    });
    const visa = await suite.api.shop.charge(await suite.api.shop.cardToken());
    const mastercard = await suite.api.shop.charge(
      await suite.api.shop.cardToken({ cardNumber: '5555555555554444' }),
      {
        amount: 100,
        currency: 'USD',
      },
    );
    expect(visa).toMatchObject({ fee_amount: null, fee_currency: null, fee_amount_formatted: null });
    const rows = await suite.env.prisma.charge.findMany({ where: { id: { in: [visa.id, mastercard.id] } } });
    expect(rows.find((r) => r.id === visa.id)).toMatchObject({
      feeRatePpm: 36_000,
      feeFlatAmount: 30n,
      feeAmount: null,
    });
    expect(rows.find((r) => r.id === mastercard.id)).toMatchObject({ feeRatePpm: 29_500, feeFlatAmount: 0n });
  });
});

describe('POST /stores/{id}/create_customer_id', () => {
  const customerId = (who: GatewayClient, storeId: string, body: unknown) =>
    who.request(`/stores/${storeId}/create_customer_id`, { method: 'POST', json: body });

  it('answers the same UUID for the same local id, another for another id or store, storing nothing', async () => {
    const first = await customerId(suite.api.shop, suite.merchants.shop.store.id, {
      customer_id: 'customer-42',
    });
    expect(first.status).toBe(200);
    expect(first.body.customer_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(
      (await customerId(suite.api.shop, suite.merchants.shop.store.id, { customer_id: 'customer-42' })).body,
    ).toEqual(first.body);
    expect(
      (await customerId(suite.api.shop, suite.merchants.shop.store.id, { customer_id: 'customer-43' })).body
        .customer_id,
    ).not.toBe(first.body.customer_id);
    const merchantToken = await suite.env.merchantToken(suite.merchants.shop);
    const other = await suite.env.admin.createStore({
      merchantId: suite.merchants.shop.merchant.id,
      name: 'Second Store',
    });
    const asMerchant = suite.api.shop.as(merchantToken);
    expect(
      (await customerId(asMerchant, suite.merchants.shop.store.id, { customer_id: 'customer-42' })).body,
    ).toEqual(first.body);
    expect(
      (await customerId(asMerchant, other.id, { customer_id: 'customer-42' })).body.customer_id,
    ).not.toBe(first.body.customer_id);
  });

  it("is 404 for another merchant's store or another store of a store token, 400 without an id, 403 without the secret", async () => {
    expect(
      (await customerId(suite.api.shop, suite.merchants.foreign.store.id, { customer_id: 'c' })).status,
    ).toBe(404);
    const other = await suite.env.admin.createStore({
      merchantId: suite.merchants.shop.merchant.id,
      name: 'Third Store',
    });
    expect((await customerId(suite.api.shop, other.id, { customer_id: 'c' })).status).toBe(404);
    expect((await customerId(suite.api.shop, 'not-a-uuid', { customer_id: 'c' })).status).toBe(404);
    const missing = await customerId(suite.api.shop, suite.merchants.shop.store.id, {});
    expect(missing.body).toEqual({
      status: 'error',
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'customer_id', reason: 'REQUIRED_VALUE' }],
    });
    const secretless = await suite.api.shop.request(
      `/stores/${suite.merchants.shop.store.id}/create_customer_id`,
      {
        method: 'POST',
        json: { customer_id: 'c' },
        auth: `Bearer ${suite.merchants.shop.storeToken.jwt}`,
        origin: SHOP_ORIGIN,
      },
    );
    expect(secretless.status).toBe(403);
  });
});

describe('GET /checkout_info', () => {
  const publicSdk = (origin: string) =>
    new SDK({ endpoint: suite.url, jwt: suite.merchants.shop.storeToken.jwt, origin });

  it('answers a secret-less token from an allowed Origin with what the store accepts', async () => {
    await configure({
      cardConfiguration: { forbiddenCardBrands: [CardBrand.AMEX] },
      qrScanConfiguration: { forbiddenQrScanGateways: ['we_chat'] },
      recurringTokenConfiguration: { recurringType: 'bounded' },
    });
    const info = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    expect(info).toMatchObject({
      mode: 'test',
      name: suite.merchants.shop.store.name,
      recurringTokenPrivilege: 'bounded',
      cardConfiguration: { enabled: true, forbiddenCardBrands: ['american_express'] },
      qrScanConfiguration: { enabled: true, forbiddenQrScanGateways: ['we_chat'] },
      onlineConfiguration: { enabled: true },
      installmentsConfiguration: { enabled: true, onlyWithProcessor: false },
      theme: { colors: expect.objectContaining({ mainBackground: expect.stringMatching(/^#/) }) },
    });
    const byType = (type: string) =>
      info.supportedBrands.filter((b) => String(b.paymentType) === type).map((b) => b.brand);
    expect(byType('card')).toEqual(
      expect.arrayContaining(['visa', 'mastercard', 'jcb', 'diners_club', 'discover', 'unionpay', 'maestro']),
    );
    expect(byType('card')).not.toContain('american_express');
    // scanned QR codes are one entry (the SDK's brand type holds no QR operator, decision 0070);
    // the operators refused are qr_scan_configuration's
    expect(byType('qr_scan')).toEqual(['qr_scan']);
    expect(byType('online')).toContain('pay_pay_online');
    const visa = info.supportedBrands.find((b) => String(b.brand) === 'visa');
    expect(visa).toMatchObject({ supportAuthCapture: true, requiresCvv: true, cardBrand: 'visa' });
    expect(visa?.supportedCurrencies).toEqual(expect.arrayContaining(['JPY', 'USD']));
  });

  it('offers no qr_scan entry once every QR operator Kessai recognises is forbidden', async () => {
    await configure({ qrScanConfiguration: { forbiddenQrScanGateways: ['alipay', 'we_chat'] } });
    const info = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    expect(info.qrScanConfiguration).toMatchObject({ enabled: true });
    expect(info.supportedBrands.filter((b) => String(b.paymentType) === 'qr_scan')).toEqual([]);
  });

  it('offers no brand of a payment type the store switched off', async () => {
    await configure({ cardConfiguration: { enabled: false }, onlineConfiguration: { enabled: false } });
    const info = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    // Apple Pay is a card payment: off with cards
    expect(new Set(info.supportedBrands.map((b) => b.paymentType))).toEqual(
      new Set(['qr_scan', 'bank_transfer', 'konbini', 'paidy', 'qr_merchant']),
    );
  });

  it('offers Apple Pay, Paidy and merchant-presented QR as brands of their own in test mode, each while the store takes it', async () => {
    const info = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    const entry = (type: string) => info.supportedBrands.filter((b) => String(b.paymentType) === type);
    expect(entry('apple_pay')).toEqual([
      expect.objectContaining({
        brand: 'apple_pay',
        supportAuthCapture: true,
        supportDynamicDescriptor: true,
        requiresCvv: false,
      }),
    ]);
    expect(entry('paidy')).toEqual([
      expect.objectContaining({ brand: 'paidy', supportAuthCapture: true, supportDynamicDescriptor: false }),
    ]);
    expect(entry('qr_merchant')).toEqual([
      expect.objectContaining({ brand: 'qr_merchant', supportAuthCapture: false, requiresCvv: false }),
    ]);

    await configure({ paidyConfiguration: { enabled: false }, qrMerchantConfiguration: { enabled: false } });
    const off = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    const types = off.supportedBrands.map((b) => String(b.paymentType));
    expect(types).toContain('apple_pay');
    expect(types).not.toContain('paidy');
    expect(types).not.toContain('qr_merchant');
  });

  it('offers none of them in live mode, which refuses their tokens', async () => {
    const live = await suite.env.admin.issueAppToken({
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      mode: 'live',
      domains: ['shop.example.test'],
    });
    // live mode answers a verified merchant only (decision 0049)
    await suite.env.admin.setVerified(suite.merchants.shop.merchant.id, true);
    try {
      const info = await new SDK({
        endpoint: suite.url,
        jwt: live.jwt,
        origin: SHOP_ORIGIN,
      }).checkoutInfo.get();
      expect(info.mode).toBe('live');
      const types = info.supportedBrands.map((b) => String(b.paymentType));
      expect(types).toContain('card');
      for (const type of ['apple_pay', 'paidy', 'qr_merchant']) expect(types).not.toContain(type);
    } finally {
      await suite.env.admin.setVerified(suite.merchants.shop.merchant.id, false);
    }
  });

  it('shows bank transfer and konbini enabled where the configuration enables them, with their banks and stores', async () => {
    await configure({ bankTransferConfiguration: { matchAmount: 'minimum' } });
    const on = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    expect(on.bankTransferConfiguration).toMatchObject({
      enabled: true,
      matchAmount: 'minimum',
      expiration: 'P7D',
    });
    expect(on.convenienceConfiguration).toMatchObject({ enabled: true, expiration: 'P7D' });
    const byType = (info: typeof on, type: string) =>
      info.supportedBrands.filter((b) => String(b.paymentType) === type);
    expect(byType(on, 'bank_transfer').map((b) => b.brand)).toEqual(['aozora_bank', 'bank_test_brand']);
    expect(byType(on, 'konbini').map((b) => b.brand)).toContain('seven_eleven');
    expect(byType(on, 'konbini')[0]).toMatchObject({
      supportedCurrencies: ['JPY'],
      supportAuthCapture: false,
    });

    await configure({
      bankTransferConfiguration: { enabled: false },
      convenienceConfiguration: { enabled: false },
    });
    const off = await publicSdk(SHOP_ORIGIN).checkoutInfo.get();
    expect(off.bankTransferConfiguration).toMatchObject({ enabled: false });
    expect(off.convenienceConfiguration).toMatchObject({ enabled: false });
    expect(byType(off, 'bank_transfer')).toEqual([]);
    expect(byType(off, 'konbini')).toEqual([]);
  });

  it('refuses a wrong Origin, no Origin, and a merchant-wide token', async () => {
    expect(await sdkError(publicSdk('https://evil.example.test').checkoutInfo.get())).toMatchObject({
      code: 'INVALID_DOMAIN',
      httpCode: 401,
    });
    const noOrigin = await suite.api.shop.request('/checkout_info', {
      auth: `Bearer ${suite.merchants.shop.storeToken.jwt}`,
    });
    expect(noOrigin.status).toBe(401);
    const merchantToken = await suite.env.merchantToken(suite.merchants.shop);
    const merchantWide = await suite.api.shop.request('/checkout_info', { auth: bearer(merchantToken) });
    expect(merchantWide.status).toBe(403);
    // with the secret the server may ask too
    expect((await suite.api.shop.request('/checkout_info')).status).toBe(200);
  });
});
