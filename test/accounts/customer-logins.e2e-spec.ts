// Customers' self-service logins through the official univapay-node SDK (refers.sendCode and
// refers.authorize, decision 0058): a code mailed (the mail drop) to a customer of the store, stored
// hashed, expiring and limited in tries; the customer token it buys may change the card of, or cancel,
// that customer's own subscriptions, and every other route refuses it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SDK, { SubscriptionPeriod } from 'univapay-node';
import { CustomerLoginsService } from '@kessai/accounts';
import { signCustomerToken } from '@kessai/auth';
import { eventually, requestJson, sdkCardToken, sdkError, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';
import { GATEWAY_CONTROLLERS } from '../../apps/gateway/src/app.module';
import { credentialRoutes } from '../../apps/gateway/src/auth/credential-check';

const mailDir = mkdtempSync(join(tmpdir(), 'kessai-customer-mail-'));
const SHOP_ORIGIN = 'https://shop.customers.test';
const suite = useSuite({
  variables: { MAIL_DROP_DIR: mailDir },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, domains: ['shop.customers.test'] }, other: { pci: true } },
});

const HANAKO = 'hanako@example.test';
const JIRO = 'jiro@example.test';

let shop: SDK;
let shopStore: string;
/** the shop's page, with its public token: how a customer reaches the login */
let page: SDK;

beforeAll(() => {
  shop = suite.sdk.shop;
  shopStore = suite.merchants.shop.store.id;
  page = new SDK({ endpoint: suite.url, jwt: suite.merchants.shop.storeToken.jwt, origin: SHOP_ORIGIN });
});

interface CustomerMail {
  kind: string;
  to: string;
  code_id: string;
  code: string;
  expires_on: string;
}

const seenMails = new Set<string>();
const mails = (): CustomerMail[] =>
  readdirSync(mailDir)
    .filter((file) => file.startsWith('customer-login-'))
    .map((file) => JSON.parse(readFileSync(join(mailDir, file), 'utf8')) as CustomerMail);

/** The next code mailed to `to` (one not read before). */
async function nextCode(to: string): Promise<CustomerMail> {
  const mail = await eventually(() => mails().find((m) => m.to === to && !seenMails.has(m.code_id)), {
    what: `a login code for ${to}`,
  });
  seenMails.add(mail.code_id);
  return mail;
}

/** A subscription of the shop charged to a token made for `email`. */
async function subscriptionOf(email: string, sdk: SDK = shop): Promise<{ id: string }> {
  const token = await sdkCardToken(sdk, { type: 'subscription', email });
  return sdk.subscriptions.create({
    transactionTokenId: token.id,
    amount: 1000,
    currency: 'JPY',
    period: SubscriptionPeriod.MONTHLY,
  });
}

/** A customer's login the whole way: a code asked for, read from the mail, traded for a token. */
async function customerToken(email: string): Promise<string> {
  await page.refers.sendCode(shopStore, { email });
  const { code } = await nextCode(email);
  return (await page.refers.authorize(shopStore, { email, otp: code })).jwt;
}

const asCustomer = (jwt: string) => new SDK({ endpoint: suite.url, jwt });

describe('refers.sendCode and refers.authorize', () => {
  let hanakosSubscription: { id: string };

  beforeAll(async () => {
    hanakosSubscription = await subscriptionOf(HANAKO);
  });

  it('mails a code to a customer of the store, kept only as a hash, and trades it for a customer token', async () => {
    expect(await page.refers.sendCode(shopStore, { email: ' Hanako@Example.test ' })).toEqual({});
    const mail = await nextCode(HANAKO);
    expect(mail.code).toMatch(/^\d{6}$/);
    const row = await suite.env.prisma.customerLoginCode.findUniqueOrThrow({ where: { id: mail.code_id } });
    expect(row).toMatchObject({ storeId: shopStore, mode: 'test', email: HANAKO, attempts: 0, usedOn: null });
    expect(row.codeHash).not.toContain(mail.code);
    expect(row.expiresOn.getTime() - row.createdOn.getTime()).toBe(10 * 60_000);

    const { jwt } = await page.refers.authorize(shopStore, { email: HANAKO, otp: mail.code });
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({
      email: HANAKO,
      roles: ['subscription_update_token', 'subscription_delete'],
      store_id: shopStore,
      name: suite.merchants.shop.store.name,
      lang: expect.any(String),
      logo_uri: expect.any(String),
      ip_address: expect.any(String),
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(30 * 60);
    // the code is spent
    expect(await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: mail.code }))).toMatchObject(
      {
        code: 'EXPIRED_OTP_TOKEN',
        httpCode: 400,
        errors: [{ field: 'otp', reason: 'EXPIRED_OTP_TOKEN' }],
      },
    );
  });

  it('answers an address that is no customer of the store the same, and mails it nothing', async () => {
    const stranger = `stranger-${randomUUID()}@example.test`;
    expect(await page.refers.sendCode(shopStore, { email: stranger })).toEqual({});
    await suite.app.get(CustomerLoginsService).settled();
    expect(mails().filter((m) => m.to === stranger)).toEqual([]);
    expect(
      await sdkError(page.refers.authorize(shopStore, { email: stranger, otp: '123456' })),
    ).toMatchObject({
      code: 'EXPIRED_OTP_TOKEN',
    });
  });

  it("compares the address as a whole: one that matches a customer's only as a LIKE pattern is mailed nothing", async () => {
    // hanako@example.test is a customer; `_` is a character of an address, never a wildcard
    const lookalikes = ['hanak_@example.test', 'h_nako@example.test', '_anako@example.test'];
    for (const email of lookalikes) expect(await page.refers.sendCode(shopStore, { email })).toEqual({});
    await suite.app.get(CustomerLoginsService).settled();
    expect(mails().filter((m) => lookalikes.includes(m.to))).toEqual([]);
  });

  it('takes five tries of a code, counting the right one, then wants a new code', async () => {
    await page.refers.sendCode(shopStore, { email: HANAKO });
    const { code } = await nextCode(HANAKO);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) {
      expect(await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: wrong }))).toMatchObject({
        code: 'WRONG_CONFIRMATION_CODE',
        errors: [{ field: 'otp', reason: 'WRONG_CONFIRMATION_CODE' }],
      });
    }
    expect(await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: code }))).toMatchObject({
      code: 'EXPIRED_OTP_TOKEN',
    });
  });

  it('counts tries sent side by side: twenty at once try a code five times', async () => {
    await page.refers.sendCode(shopStore, { email: HANAKO });
    const { code, code_id } = await nextCode(HANAKO);
    const wrong = code === '000000' ? '000001' : '000000';
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: wrong })),
      ),
    );
    expect(answers.filter((a) => String(a.code) === 'WRONG_CONFIRMATION_CODE')).toHaveLength(5);
    expect(answers.filter((a) => String(a.code) === 'EXPIRED_OTP_TOKEN')).toHaveLength(15);
    expect(
      (await suite.env.prisma.customerLoginCode.findUniqueOrThrow({ where: { id: code_id } })).attempts,
    ).toBe(5);
  });

  it('refuses an expired code, and an earlier code once a new one is sent', async () => {
    await page.refers.sendCode(shopStore, { email: HANAKO });
    const first = await nextCode(HANAKO);
    await page.refers.sendCode(shopStore, { email: HANAKO });
    const second = await nextCode(HANAKO);
    expect(
      await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: first.code })),
    ).toMatchObject({
      code: first.code === second.code ? 'EXPIRED_OTP_TOKEN' : 'WRONG_CONFIRMATION_CODE',
    });
    await suite.env.prisma.customerLoginCode.update({
      where: { id: second.code_id },
      data: { expiresOn: new Date(Date.now() - 1000) },
    });
    expect(
      await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: second.code })),
    ).toMatchObject({
      code: 'EXPIRED_OTP_TOKEN',
    });
  });

  it('refuses bad input in the error envelope: a malformed email, another merchant’s store', async () => {
    expect(await sdkError(page.refers.sendCode(shopStore, { email: 'not-an-address' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      httpCode: 400,
      errors: [{ field: 'email', reason: 'INVALID_FORMAT_EMAIL' }],
    });
    expect(
      await sdkError(page.refers.sendCode(suite.merchants.other.store.id, { email: HANAKO })),
    ).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
  });

  describe('the customer token', () => {
    let jwt: string;

    beforeAll(async () => {
      jwt = await customerToken(HANAKO);
    });

    it("changes its own subscription's card, to a card of its own", async () => {
      const card = await sdkCardToken(shop, { type: 'subscription', email: HANAKO });
      const updated = await asCustomer(jwt).subscriptions.updateToken(shopStore, hanakosSubscription.id, {
        transactionTokenId: card.id,
      });
      expect(updated.transactionTokenId).toBe(card.id);
      expect((await shop.subscriptions.get(shopStore, hanakosSubscription.id)).transactionTokenId).toBe(
        card.id,
      );

      // someone else's card is no card of its own
      const jirosCard = await sdkCardToken(shop, { type: 'subscription', email: JIRO });
      expect(
        await sdkError(
          asCustomer(jwt).subscriptions.updateToken(shopStore, hanakosSubscription.id, {
            transactionTokenId: jirosCard.id,
          }),
        ),
      ).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
    });

    it('cancels its own subscription', async () => {
      const another = await subscriptionOf(HANAKO);
      await asCustomer(jwt).subscriptions.delete(shopStore, another.id);
      expect((await shop.subscriptions.get(shopStore, another.id)).status).toBe('canceled');
    });

    it("reaches no other customer's subscription, and no other store's", async () => {
      const jiros = await subscriptionOf(JIRO);
      const card = await sdkCardToken(shop, { type: 'subscription', email: HANAKO });
      expect(await sdkError(asCustomer(jwt).subscriptions.delete(shopStore, jiros.id))).toMatchObject({
        code: 'NOT_FOUND',
        httpCode: 404,
      });
      expect(
        await sdkError(
          asCustomer(jwt).subscriptions.updateToken(shopStore, jiros.id, { transactionTokenId: card.id }),
        ),
      ).toMatchObject({ code: 'NOT_FOUND' });
      expect((await shop.subscriptions.get(shopStore, jiros.id)).status).not.toBe('canceled');

      // the other merchant's subscription of the same address
      const otherStore = suite.merchants.other.store.id;
      const elsewhere = await subscriptionOf(HANAKO, suite.sdk.other);
      expect(await sdkError(asCustomer(jwt).subscriptions.delete(otherStore, elsewhere.id))).toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await sdkError(asCustomer(jwt).subscriptions.delete(shopStore, elsewhere.id))).toMatchObject({
        code: 'NOT_FOUND',
      });
      expect((await suite.sdk.other.subscriptions.get(otherStore, elsewhere.id)).status).not.toBe('canceled');
    });

    it('is refused by every other route of the gateway', async () => {
      const allowed = new Set([
        'DELETE /stores/:storeId/subscriptions/:id',
        'PATCH /stores/:storeId/subscriptions/:id/token',
      ]);
      const routes = [...credentialRoutes(GATEWAY_CONTROLLERS)]
        .filter(([route, needsCredentials]) => needsCredentials && !allowed.has(route))
        .map(([route]) => route);
      expect(routes.length).toBeGreaterThan(80);
      const answers: string[] = [];
      for (const route of routes) {
        const [method, pattern] = route.split(' ');
        const path = pattern
          .replace(':storeId', shopStore)
          .replace(':id', hanakosSubscription.id)
          .replace(/:[A-Za-z]+/g, () => randomUUID());
        const res = await requestJson(suite.url, path, {
          method,
          auth: `Bearer ${jwt}`,
          ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }),
        });
        answers.push(`${route} ${res.status} ${String(res.body?.code)}`);
      }
      expect(answers.filter((a) => !a.endsWith(' 403 INVALID_PERMISSIONS'))).toEqual([]);
      // and the subscription it could cancel is untouched by all of that
      expect((await shop.subscriptions.get(shopStore, hanakosSubscription.id)).status).not.toBe('canceled');
    });

    it('expires: a token past its time is refused with 401 EXPIRED_LOGIN_TOKEN', async () => {
      const issued = new Date(Date.now() - 31 * 60_000);
      const stale = signCustomerToken(
        {
          id: randomUUID(),
          merchantId: suite.merchants.shop.merchant.id,
          storeId: shopStore,
          mode: 'test',
          email: HANAKO,
          storeName: 'shop',
          lang: 'JA_JP',
          logoUri: '',
          ipAddress: '127.0.0.1',
          expiresOn: new Date(issued.getTime() + 30 * 60_000),
        },
        suite.env.config.JWT_SIGNING_KEY,
        issued,
      );
      const another = await subscriptionOf(HANAKO);
      expect(await sdkError(asCustomer(stale).subscriptions.delete(shopStore, another.id))).toMatchObject({
        code: 'EXPIRED_LOGIN_TOKEN',
        httpCode: 401,
      });
    });
  });
});

describe("the store's customer-login switch (customer_management_configuration.enabled, decision 0070)", () => {
  const switchLogins = (enabled: boolean | null) =>
    shop.stores.update(shopStore, {
      configuration: { customerManagementConfiguration: { enabled } as { enabled: boolean } },
    });

  afterAll(async () => {
    await switchLogins(null);
  });

  it('is on by default and shown with the roles a customer token carries', async () => {
    expect((await shop.stores.get(shopStore)).configuration.customerManagementConfiguration).toEqual({
      enabled: true,
      defaultRoles: ['subscription_update_token', 'subscription_delete'],
    });
  });

  it('off: no code is mailed or traded and issued customer tokens are refused, until it is on again', async () => {
    const subscription = await subscriptionOf(HANAKO);
    const jwt = await customerToken(HANAKO);
    // a code mailed while logins were on, not traded yet
    await page.refers.sendCode(shopStore, { email: HANAKO });
    const pending = await nextCode(HANAKO);

    const off = await switchLogins(false);
    expect(off.configuration.customerManagementConfiguration).toMatchObject({ enabled: false });

    const notEnabled = {
      code: 'CUSTOMER_LOGIN_NOT_ENABLED',
      httpCode: 403,
      errors: [{ field: null, reason: 'CUSTOMER_LOGIN_NOT_ENABLED' }],
    };
    expect(await sdkError(page.refers.sendCode(shopStore, { email: JIRO }))).toEqual({
      status: 'error',
      ...notEnabled,
    });
    await suite.app.get(CustomerLoginsService).settled();
    expect(mails().filter((m) => m.to === JIRO && !seenMails.has(m.code_id))).toEqual([]);

    expect(
      await sdkError(page.refers.authorize(shopStore, { email: HANAKO, otp: pending.code })),
    ).toMatchObject(notEnabled);
    // the code was not tried: it is neither spent nor counted
    expect(
      await suite.env.prisma.customerLoginCode.findUniqueOrThrow({ where: { id: pending.code_id } }),
    ).toMatchObject({ attempts: 0, usedOn: null });

    expect(await sdkError(asCustomer(jwt).subscriptions.delete(shopStore, subscription.id))).toMatchObject(
      notEnabled,
    );
    expect((await shop.subscriptions.get(shopStore, subscription.id)).status).not.toBe('canceled');

    // on again: the pending code buys a token, and the token issued before acts again
    await switchLogins(true);
    const { jwt: fresh } = await page.refers.authorize(shopStore, { email: HANAKO, otp: pending.code });
    expect(fresh).toEqual(expect.any(String));
    await asCustomer(jwt).subscriptions.delete(shopStore, subscription.id);
    expect((await shop.subscriptions.get(shopStore, subscription.id)).status).toBe('canceled');
  });

  it("follows the merchant's layer: a merchant switching logins off closes its stores' logins", async () => {
    await switchLogins(null);
    const merchantId = suite.merchants.shop.merchant.id;
    const before = await suite.env.prisma.merchant.findUniqueOrThrow({ where: { id: merchantId } });
    const layer = (before.configuration ?? {}) as Record<string, string | number | boolean | object>;
    await suite.env.prisma.merchant.update({
      where: { id: merchantId },
      data: { configuration: { ...layer, customer_management_configuration: { enabled: false } } },
    });
    try {
      expect(await sdkError(page.refers.sendCode(shopStore, { email: HANAKO }))).toMatchObject({
        code: 'CUSTOMER_LOGIN_NOT_ENABLED',
        httpCode: 403,
      });
      // the store's own layer wins over its merchant's
      await switchLogins(true);
      expect(await page.refers.sendCode(shopStore, { email: HANAKO })).toEqual({});
      await nextCode(HANAKO);
    } finally {
      await suite.env.prisma.merchant.update({
        where: { id: merchantId },
        data: { configuration: layer },
      });
    }
  });
});
