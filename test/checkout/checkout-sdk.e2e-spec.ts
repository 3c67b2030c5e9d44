// The hosted checkout resources through the official SDK (ecForms.get, ecFormLinks.createTemporary/
// get, ecLinksProducts.list, ecInfo.get, emails.get, products.get/getByCode) and raw HTTP: forms and
// products made with the admin CLI, links made by the merchant's server, who may read what, and the
// refusals (bad input, expired or disabled links, wrong secrets, another merchant's ids). The real
// gateway in-process, Postgres and Redis. docs/hosted-checkout.md.
import { randomUUID } from 'node:crypto';
import SDK, { SubscriptionPeriod, TransactionTokenType } from 'univapay-node';
import { checkoutLinkSecret, verifyCheckoutLink } from '@kessai/auth';
import {
  createCheckoutForm,
  createCheckoutProduct,
  sdkError,
  sdkFor,
  useSuite,
  type SeededMerchant,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let form: any;
let foreignForm: any;
let tshirt: any;
let shipping: any;

const SHOP_ORIGIN = 'https://shop.example';
const suite = useSuite({
  gateway: createGatewayApp,
  // not PCI DSS compliant: the hosted checkout is how such a merchant takes payments
  merchants: { shop: { domains: [SHOP_ORIGIN] }, foreign: {} },
});
const sdk = (who: SeededMerchant = suite.merchants.shop): SDK => sdkFor(suite.url, who.storeToken);
/** No credentials at all: what a consumer's browser holds with a link's id and secret. */
const anonymous = () => new SDK({ endpoint: suite.url });
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

function createLink(
  extra: Record<string, unknown> = {},
  who: SeededMerchant = suite.merchants.shop,
): Promise<any> {
  return sdk(who).ecFormLinks.createTemporary({
    formId: form.id,
    amount: 1500,
    currency: 'JPY',
    tokenType: TransactionTokenType.ONE_TIME,
    ...extra,
  } as any);
}

beforeAll(async () => {
  form = await createCheckoutForm(suite, suite.merchants.shop, 'Spring sale', {
    title: 'Pay Spring Shop',
    header_color: '#112233',
    require_name: true,
    supported_payment_methods: ['card', 'online'],
    custom_fields: { en_us: [{ key: 'gift_note', label: 'Gift note', type: 'string' }] },
    order_summary_titles: { ja_jp: 'ご注文', en_us: 'Your order' },
    success_redirect_url: 'https://shop.example/thanks',
    metadata: { campaign: 'spring' },
  });
  foreignForm = await createCheckoutForm(suite, suite.merchants.foreign, 'Other');
  tshirt = await createCheckoutProduct(suite, suite.merchants.shop, {
    name: 'T-shirt',
    amount: 2000,
    currency: 'JPY',
    code: 'TS-1',
  });
  shipping = await createCheckoutProduct(suite, suite.merchants.shop, {
    name: 'Mug',
    amount: 800,
    currency: 'jpy',
    settings: { shipping_fees: 300, description: 'Ceramic' },
  });
}, 60_000);

describe('checkout forms (admin CLI, ecForms.get)', () => {
  it('are made by the operator and read through the SDK with the fields of its ECFormItem', async () => {
    expect(form).toMatchObject({
      store_id: suite.merchants.shop.store.id,
      app_id: suite.merchants.shop.storeToken.id,
      mode: 'test',
    });
    const read: any = await sdk().ecForms.get(form.id);
    expect(read).toMatchObject({
      id: form.id,
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      name: 'Spring sale',
      mode: 'test',
      appId: suite.merchants.shop.storeToken.id,
      checkout: 'payment',
      tokenType: 'one_time',
      capture: true,
      supportedPaymentMethods: ['card', 'online'],
      title: 'Pay Spring Shop',
      headerColor: '#112233',
      requireName: true,
      requireEmail: true,
      showCvv: true,
      dark: false,
      univapayCustomerId: null,
      successRedirectUrl: 'https://shop.example/thanks',
      failureRedirectUrl: null,
      customFieldsTitles: null,
      metadata: { campaign: 'spring' },
    });
    // the SDK keeps the language keys as they are
    expect(read.customFields).toEqual({ en_us: [{ key: 'gift_note', label: 'Gift note', type: 'string' }] });
    expect(read.orderSummaryTitles).toEqual({ ja_jp: 'ご注文', en_us: 'Your order' });
  });

  it('are changed by the operator, field by field', async () => {
    const other = await suite.cli(
      'checkout:form:create',
      '--store',
      suite.merchants.shop.store.id,
      '--app-token',
      suite.merchants.shop.storeToken.id,
      '--name',
      'Dark one',
    );
    await suite.cli(
      'checkout:form:update',
      '--id',
      other.id,
      '--set',
      JSON.stringify({ dark: true, title: 'Night' }),
    );
    expect(await sdk().ecForms.get(other.id)).toMatchObject({ name: 'Dark one', dark: true, title: 'Night' });
    await suite.cli('checkout:form:update', '--id', other.id, '--set', JSON.stringify({ title: null }));
    expect(await sdk().ecForms.get(other.id)).toMatchObject({ dark: true, title: null });
    const listed = await suite.cli('checkout:form:list', '--store', suite.merchants.shop.store.id);
    expect(listed.map((f: any) => f.id)).toEqual(expect.arrayContaining([form.id, other.id]));
  });

  it('refuses a design the operator got wrong, and an app token of another store', async () => {
    await expect(
      suite.cli(
        'checkout:form:create',
        '--store',
        suite.merchants.shop.store.id,
        '--app-token',
        suite.merchants.shop.storeToken.id,
        '--name',
        'Bad',
        '--set',
        JSON.stringify({ header_color: 'red', surprise: 1 }),
      ),
    ).rejects.toThrow(/header_color.*surprise|surprise.*header_color/s);
    await expect(
      suite.cli(
        'checkout:form:create',
        '--store',
        suite.merchants.shop.store.id,
        '--app-token',
        suite.merchants.foreign.storeToken.id,
        '--name',
        'Stolen token',
      ),
    ).rejects.toThrow(/no active app token/);
  });

  it('are read by the widget with the store token alone, from an Origin in its domains only', async () => {
    const browser = (origin: string) =>
      new SDK({ endpoint: suite.url, jwt: suite.merchants.shop.storeToken.jwt, origin });
    expect(await browser(SHOP_ORIGIN).ecForms.get(form.id)).toMatchObject({ id: form.id });
    expect(await sdkError(browser('https://evil.example').ecForms.get(form.id))).toMatchObject({
      code: 'INVALID_DOMAIN',
      httpCode: 401,
    });
  });

  it("are another merchant's secret: its form, a random id and a malformed one answer alike", async () => {
    for (const id of [foreignForm.id, randomUUID(), 'nope']) {
      expect(await sdkError(sdk().ecForms.get(id))).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
    }
    expect(await sdk(suite.merchants.foreign).ecForms.get(foreignForm.id)).toMatchObject({
      id: foreignForm.id,
    });
  });
});

describe('products (admin CLI, products.get / getByCode)', () => {
  it('are read by id and by code within the store', async () => {
    expect(await sdk().products.get(tshirt.id)).toMatchObject({
      id: tshirt.id,
      storeId: suite.merchants.shop.store.id,
      name: 'T-shirt',
      code: 'TS-1',
      amount: 2000,
      currency: 'JPY',
      tokenType: 'one_time',
      active: true,
    });
    expect(await sdk().products.getByCode('TS-1')).toMatchObject({ id: tshirt.id });
    expect(await sdkError(sdk(suite.merchants.foreign).products.get(tshirt.id))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await sdkError(sdk(suite.merchants.foreign).products.getByCode('TS-1'))).toMatchObject({
      code: 'NOT_FOUND',
    });
    const nul = await suite.api.shop.request('/checkout/products/code/TS%00');
    expect(nul.status).toBe(404);
    await expect(
      suite.cli(
        'checkout:product:create',
        '--store',
        suite.merchants.shop.store.id,
        '--name',
        'Dup',
        '--amount',
        '1',
        '--currency',
        'JPY',
        '--code',
        'TS-1',
      ),
    ).rejects.toThrow(/already has the code TS-1/);
  });
});

describe('ecFormLinks.createTemporary and ecFormLinks.get', () => {
  it("creates a link on the merchant's server with its own jwt and secret, and reads it back", async () => {
    const expiry = inAnHour();
    const link: any = await createLink({ expiry, description: 'Order A-1', metadata: { orderId: 'A-1' } });
    expect(link).toMatchObject({
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      formId: form.id,
      mode: 'test',
      description: 'Order A-1',
      enabled: true,
      active: true,
      expiry: new Date(expiry).toISOString(),
      amount: 1500,
      amountFormatted: '1500',
      currency: 'JPY',
      tokenType: 'one_time',
      tokenOnly: false,
      allowCardInstallments: false,
      metadata: { orderId: 'A-1' },
    });
    expect(link.subscriptionPeriod).toBeUndefined();
    expect(link.secret).toBe(checkoutLinkSecret(link.id, suite.env.config.JWT_SIGNING_KEY));
    expect(verifyCheckoutLink(link.jwt, suite.env.config.JWT_SIGNING_KEY)).toMatchObject({
      sub: 'checkout_link',
      jti: link.id,
      store_id: suite.merchants.shop.store.id,
      form_id: form.id,
      exp: Math.floor(new Date(expiry).getTime() / 1000),
    });
    const row = await suite.env.prisma.checkoutLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(row).toMatchObject({ amount: 1500n, currency: 'JPY', storeId: suite.merchants.shop.store.id });
    // nothing secret is stored: the row has no column that holds the secret or the jwt
    expect(JSON.stringify(row, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(
      link.secret,
    );

    expect(await sdk().ecFormLinks.get(link.id)).toEqual(link);
  });

  it('creates a subscription link with its schedule fields', async () => {
    const startOn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const link: any = await createLink({
      tokenType: TransactionTokenType.SUBSCRIPTION,
      amount: 3000,
      subscriptionPeriod: SubscriptionPeriod.MONTHLY,
      subscriptionCycles: 12,
      subscriptionInitialAmount: 500,
      subscriptionStartOn: startOn,
      subscriptionPreserveEndOfMonth: true,
      subscriptionRetryInterval: 'P2D',
    });
    expect(link).toMatchObject({
      tokenType: 'subscription',
      amount: 3000,
      subscriptionPeriod: 'monthly',
      subscriptionCycles: 12,
      subscriptionInitialAmount: 500,
      subscriptionStartOn: startOn,
      subscriptionPreserveEndOfMonth: true,
      subscriptionRetryInterval: 'P2D',
      allowCardInstallments: null,
    });
    expect(await sdk().ecFormLinks.get(link.id)).toMatchObject({ subscriptionStartOn: startOn });
  });

  it('needs the secret: a browser token may not create or read a link, nor may the link jwt call the API', async () => {
    const browser = new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.shop.storeToken.jwt,
      origin: SHOP_ORIGIN,
    });
    const link: any = await createLink();
    expect(await sdkError(browser.ecFormLinks.get(link.id))).toMatchObject({
      code: 'INVALID_PERMISSIONS',
      httpCode: 403,
    });
    expect(
      await sdkError(
        browser.ecFormLinks.createTemporary({
          formId: form.id,
          amount: 1,
          currency: 'JPY',
          tokenType: 'one_time',
        } as any),
      ),
    ).toMatchObject({ code: 'INVALID_PERMISSIONS', httpCode: 403 });
    const asLink = new SDK({ endpoint: suite.url, jwt: link.jwt, secret: link.secret });
    expect(await sdkError(asLink.ecForms.get(form.id))).toMatchObject({
      code: 'INVALID_APP_TOKEN',
      httpCode: 401,
    });
  });

  it("keeps each merchant's links to itself", async () => {
    const link: any = await createLink();
    expect(await sdkError(sdk(suite.merchants.foreign).ecFormLinks.get(link.id))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    expect(await sdkError(sdk(suite.merchants.foreign).ecLinksProducts.list(link.id))).toMatchObject({
      code: 'NOT_FOUND',
    });
    // nor may one use another's form or store
    expect(await sdkError(createLink({ formId: foreignForm.id }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await sdkError(createLink({ storeId: suite.merchants.foreign.store.id }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await sdkError(createLink({ merchantId: suite.merchants.foreign.merchant.id }))).toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await sdkError(createLink({}, suite.merchants.foreign))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a form of the other mode', async () => {
    const live = await suite.env.liveStoreToken(suite.merchants.shop);
    const liveSdk = sdkFor(suite.url, live);
    expect(
      await sdkError(
        liveSdk.ecFormLinks.createTemporary({
          formId: form.id,
          amount: 1500,
          currency: 'JPY',
          tokenType: 'one_time',
        } as any),
      ),
    ).toMatchObject({ code: 'PROCESSING_MODE_MISMATCH', httpCode: 400 });
  });

  it.each([
    ['a missing amount', { amount: undefined }, 'amount', 'REQUIRED_VALUE'],
    ['an amount as text', { amount: '1500' }, 'amount', 'INVALID_FORMAT'],
    ['a zero amount', { amount: 0 }, 'amount', 'CHARGE_AMOUNT_TOO_LOW'],
    ['an unknown currency', { currency: 'XXZ' }, 'currency', 'UNSUPPORTED_CURRENCY'],
    ['a malformed form id', { formId: 'nope' }, 'form_id', 'INVALID_FORMAT_UUID'],
    ['an unknown token type', { tokenType: 'forever' }, 'token_type', 'INVALID_FORMAT'],
    ['an expiry already past', { expiry: '2020-01-01T00:00:00Z' }, 'expiry', 'MUST_BE_FUTURE_TIME'],
    ['an expiry that is no date', { expiry: 'tomorrow' }, 'expiry', 'INVALID_FORMAT_DATE'],
    ['a field it does not know', { surprise: true }, 'surprise', 'FORBIDDEN_PARAMETER'],
    ['metadata that is no object', { metadata: '[1]' }, 'metadata', 'INVALID_FORMAT_OBJECT'],
    [
      'subscription fields on a one-time link',
      { subscriptionPeriod: 'monthly' },
      'subscription_period',
      'FORBIDDEN_PARAMETER',
    ],
    [
      'a subscription without a period',
      { tokenType: 'subscription' },
      'subscription_period',
      'REQUIRED_VALUE',
    ],
    [
      'an unknown subscription period',
      { tokenType: 'subscription', subscriptionPeriod: 'hourly' },
      'subscription_period',
      'INVALID_SUBSCRIPTION_PERIOD',
    ],
    [
      'zero subscription cycles',
      { tokenType: 'subscription', subscriptionPeriod: 'monthly', subscriptionCycles: 0 },
      'subscription_cycles',
      'INVALID_SUBSCRIPTION_CYCLES',
    ],
    [
      'a negative initial amount',
      { tokenType: 'subscription', subscriptionPeriod: 'monthly', subscriptionInitialAmount: -1 },
      'subscription_initial_amount',
      'INVALID_SUBSCRIPTION_INITIAL_AMOUNT',
    ],
    [
      'a subscription starting in the past',
      { tokenType: 'subscription', subscriptionPeriod: 'monthly', subscriptionStartOn: '2020-01-01' },
      'subscription_start_on',
      'INVALID_SUBSCRIPTION_START_ON',
    ],
    [
      'a retry interval that is no duration',
      { tokenType: 'subscription', subscriptionPeriod: 'monthly', subscriptionRetryInterval: 'soon' },
      'subscription_retry_interval',
      'INVALID_DURATION',
    ],
    [
      'a start in months without its day',
      { tokenType: 'subscription', subscriptionPeriod: 'monthly', subscriptionStartInMonths: 1 },
      'subscription_start_in_months',
      'PEER_SUBSCRIPTION_START_DAY_OF_MONTH_REQUIRED',
    ],
  ])('refuses %s with VALIDATION_ERROR naming the field', async (_what, extra, field, reason) => {
    const error = await sdkError(createLink(extra));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', httpCode: 400 });
    expect(error.errors).toContainEqual({ field, reason });
  });

  it('refuses a body that is no JSON object, and a merchant token that names no store', async () => {
    const api = suite.api.shop;
    const notObject = await api.request('/checkout/links/temporary', { method: 'POST', json: [1, 2] });
    expect(notObject.status).toBe(400);
    expect(notObject.body).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    const merchantToken = await suite.env.merchantToken(suite.merchants.shop);
    const noStore = await sdkError(
      sdkFor(suite.url, merchantToken).ecFormLinks.createTemporary({
        formId: form.id,
        amount: 1500,
        currency: 'JPY',
        tokenType: 'one_time',
      } as any),
    );
    expect(noStore).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'store_id', reason: 'REQUIRED_VALUE' }],
    });
    // with the store named, a merchant token may
    const named: any = await sdkFor(suite.url, merchantToken).ecFormLinks.createTemporary({
      formId: form.id,
      storeId: suite.merchants.shop.store.id,
      amount: 1500,
      currency: 'JPY',
      tokenType: 'one_time',
    } as any);
    expect(named).toMatchObject({ storeId: suite.merchants.shop.store.id });
  });
});

describe('a repeated creation', () => {
  it('with the same Idempotency-Key answers the same link and makes one row', async () => {
    const key = `link-${randomUUID()}`;
    const body = {
      formId: form.id,
      amount: 990,
      currency: 'JPY',
      tokenType: 'one_time',
      metadata: { key },
    } as any;
    const [first, second] = await Promise.all([
      sdk().ecFormLinks.createTemporary(body, { idempotentKey: key }),
      sdk()
        .ecFormLinks.createTemporary(body, { idempotentKey: key })
        .catch((error: unknown) => error),
    ]);
    const again: any = await sdk().ecFormLinks.createTemporary(body, { idempotentKey: key });
    expect(again.id).toBe((first as any).id);
    // the request in flight together is replayed or told to retry, never a second link
    if (!(second instanceof Error)) expect((second as any).id).toBe((first as any).id);
    const rows = await suite.env.prisma.checkoutLink.findMany({
      where: { storeId: suite.merchants.shop.store.id, amount: 990n },
    });
    expect(rows.filter((row) => (row.metadata as any)?.key === key)).toHaveLength(1);
  });
});

describe('ecLinksProducts.list', () => {
  it("lists what the link sells, in the link's order, with quantities; the amount must be their total", async () => {
    // 2 × 2,000 + 1 × 800 + 300 shipping
    const link: any = await createLink({
      amount: 5100,
      products: [
        { productId: tshirt.id, quantity: 2 },
        { productId: shipping.id, quantity: 1 },
      ],
    });
    const listed: any = await sdk().ecLinksProducts.list(link.id);
    expect(listed.hasMore).toBe(false);
    expect(listed.items).toHaveLength(2);
    expect(listed.items[0]).toMatchObject({
      id: tshirt.id,
      name: 'T-shirt',
      code: 'TS-1',
      amount: 2000,
      quantity: 2,
    });
    expect(listed.items[1]).toMatchObject({ id: shipping.id, amount: 800, shippingFees: 300, quantity: 1 });
    const browser = new SDK({
      endpoint: suite.url,
      jwt: suite.merchants.shop.storeToken.jwt,
      origin: SHOP_ORIGIN,
    });
    expect(((await browser.ecLinksProducts.list(link.id)) as any).items).toHaveLength(2);

    const plain: any = await createLink();
    expect(await sdk().ecLinksProducts.list(plain.id)).toEqual({ items: [], hasMore: false });

    const wrongTotal = await sdkError(
      createLink({ amount: 5000, products: [{ productId: tshirt.id, quantity: 2 }] }),
    );
    expect(wrongTotal).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'amount', reason: 'INVALID_AMOUNT' }],
    });
    expect(
      await sdkError(createLink({ products: [{ productId: randomUUID(), quantity: 1 }] })),
    ).toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('does not sell a product the operator turned off', async () => {
    const cap = await createCheckoutProduct(suite, suite.merchants.shop, {
      name: 'Cap',
      amount: 1500,
      currency: 'JPY',
    });
    await suite.cli('checkout:product:update', '--id', cap.id, '--set', JSON.stringify({ active: false }));
    expect(await sdkError(createLink({ products: [{ productId: cap.id, quantity: 1 }] }))).toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});

describe('ecInfo.get (public, with the link secret)', () => {
  it('gives whoever holds the secret the form, the link and its products, without any app token', async () => {
    const link: any = await createLink({
      amount: 2000,
      products: [{ productId: tshirt.id, quantity: 1 }],
      expiry: inAnHour(),
    });
    const info: any = await anonymous().ecInfo.get(link.id, { secret: link.secret });
    expect(info.form).toMatchObject({
      id: form.id,
      title: 'Pay Spring Shop',
      metadata: { campaign: 'spring' },
    });
    expect(info.form.customFields).toEqual({
      en_us: [{ key: 'gift_note', label: 'Gift note', type: 'string' }],
    });
    expect(info.link).toEqual(await sdk().ecFormLinks.get(link.id));
    expect(info.products).toHaveLength(1);
    expect(info.products[0]).toMatchObject({ id: tshirt.id, quantity: 1 });
  });

  it('answers a wrong secret, an unknown link and a malformed id alike, and a missing secret with VALIDATION_ERROR', async () => {
    const link: any = await createLink();
    const other: any = await createLink();
    for (const [id, secret] of [
      [link.id, other.secret],
      [link.id, `${link.secret}x`],
      [randomUUID(), link.secret],
      ['nope', link.secret],
    ]) {
      expect(await sdkError(anonymous().ecInfo.get(id, { secret }))).toMatchObject({
        code: 'NOT_FOUND',
        httpCode: 404,
      });
    }
    const missing = await sdkError(anonymous().ecInfo.get(link.id));
    expect(missing).toMatchObject({ code: 'VALIDATION_ERROR', httpCode: 400 });
    expect(missing.errors).toContainEqual({ field: 'secret', reason: 'REQUIRED_VALUE' });
  });

  it('refuses a disabled link and an expired one with NOT_ACTIVE', async () => {
    const disabled: any = await createLink({ enabled: false });
    expect(disabled).toMatchObject({ enabled: false, active: false });
    expect(await sdkError(anonymous().ecInfo.get(disabled.id, { secret: disabled.secret }))).toMatchObject({
      code: 'NOT_ACTIVE',
      httpCode: 400,
      errors: [{ field: null, reason: 'LINK_DISABLED' }],
    });

    const expiring: any = await createLink({ expiry: inAnHour() });
    // the hour passes
    await suite.env.prisma.checkoutLink.update({
      where: { id: expiring.id },
      data: { expiry: new Date(Date.now() - 1000) },
    });
    expect(await sdkError(anonymous().ecInfo.get(expiring.id, { secret: expiring.secret }))).toMatchObject({
      code: 'NOT_ACTIVE',
      httpCode: 400,
      errors: [{ field: null, reason: 'LINK_EXPIRED' }],
    });
    // its merchant still reads it, inactive
    expect(await sdk().ecFormLinks.get(expiring.id)).toMatchObject({ active: false, enabled: true });
  });
});

describe('emails.get', () => {
  it('reads an email recorded for a link, within the merchant only', async () => {
    const link: any = await createLink();
    const api = suite.api.shop;
    const created = await api.request(`/checkout/links/${link.id}/emails`, {
      method: 'POST',
      json: { email: 'buyer@example.test', customer_name: 'Taro Yamada', lang: 'en_us' },
    });
    expect(created.status).toBe(201);
    const email: any = await sdk().emails.get(created.body.id);
    expect(email).toMatchObject({
      id: created.body.id,
      merchantId: suite.merchants.shop.merchant.id,
      storeId: suite.merchants.shop.store.id,
      formId: form.id,
      linkId: link.id,
      email: 'buyer@example.test',
      customerName: 'Taro Yamada',
      lang: 'en_us',
      status: 'pending',
    });
    expect(await sdkError(sdk(suite.merchants.foreign).emails.get(email.id))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    expect(await sdkError(sdk().emails.get(randomUUID()))).toMatchObject({ code: 'NOT_FOUND' });

    const bad = await api.request(`/checkout/links/${link.id}/emails`, {
      method: 'POST',
      json: { email: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toContainEqual({ field: 'email', reason: 'INVALID_FORMAT_EMAIL' });
    const foreignLink = await suite.gateway
      .as(suite.merchants.foreign)
      .request(`/checkout/links/${link.id}/emails`, { method: 'POST', json: { email: 'a@example.test' } });
    expect(foreignLink.status).toBe(404);
  });
});
