// The hosted checkout's server side over HTTP (docs/hosted-checkout.md): the link page and its
// refusals, its headers (CSP, framing), the link's own credentials (POST /tokens and the link's
// payment, nothing else, from the gateway's own Origin only), the widget's frame (framable only by
// the token's domains) and its POST /tokens. The browser itself is test/hosted-checkout.browser.e2e-spec.ts.
// The real gateway in-process, Postgres and Redis; charges stay pending (no charge-service here).
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  bearer,
  createCheckoutForm,
  createCheckoutLink,
  linkAuth,
  linkPage,
  listenLocally,
  requestJson,
  useSuite,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

let form: any;
let otherForm: any;
const SHOP_ORIGIN = 'https://shop.example';
const suite = useSuite({
  gateway: createGatewayApp,
  merchants: {
    // not PCI DSS compliant: only the hosted checkout may send its customers' cards
    shop: { label: 'hosted-shop', domains: [SHOP_ORIGIN, '127.0.0.1:4999'] },
    other: {},
  },
});

const createLink = (extra: Record<string, unknown> = {}, who = suite.merchants.shop, formId = form.id) =>
  createCheckoutLink(suite.url, who, formId, extra);

const page = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${suite.url}${path}`, { headers }).then(async (r) => ({
    status: r.status,
    headers: r.headers,
    html: await r.text(),
  }));
const CARD = {
  payment_type: 'card',
  type: 'one_time',
  email: 'buyer@example.test',
  data: {
    cardholder: 'HANAKO YAMADA',
    card_number: '4242424242424242',
    exp_month: 12,
    exp_year: new Date().getFullYear() + 3,
    cvv: '123',
  },
};

beforeAll(async () => {
  // a domain no token can be given any more (libs/accounts' domain rule), kept by a row from before
  // the rule: the frame's CSP must leave it out all the same
  await suite.env.prisma.appToken.update({
    where: { id: suite.merchants.shop.storeToken.id },
    data: { domains: [SHOP_ORIGIN, '127.0.0.1:4999', 'bad domain;script-src *'] },
  });
  form = await createCheckoutForm(suite, suite.merchants.shop, 'Hosted', {
    title: 'Pay <Hosted> Shop',
    supported_payment_methods: ['card', 'online'],
  });
  otherForm = await createCheckoutForm(suite, suite.merchants.other, 'Other');
}, 60_000);

describe('the link page', () => {
  it("shows the link's store and amount, with a strict CSP, not framable, no inline script", async () => {
    const link = await createLink();
    const res = await page(`/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}&lang=en`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.html).toContain('¥1,500');
    expect(res.html).toContain('hosted-shop Store');
    // the form's title is text, never markup
    expect(res.html).toContain('Pay &lt;Hosted&gt; Shop');
    expect(res.html).not.toContain('<Hosted>');
    // every <script> is either the served file or a JSON data block
    const scripts = [...res.html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts).toEqual([
      ' type="application/json" id="checkout-config"',
      ' src="/checkout/assets/checkout.js"',
    ]);
    // the inputs have no name: a native submission would carry no card data
    expect(res.html).not.toMatch(/<input[^>]*id="card-number"[^>]*name=/);
    // QR operators the store accepts are offered
    expect(res.html).toContain('value="pay_pay_online"');
  });

  it('speaks Japanese when asked, by ?lang= or Accept-Language', async () => {
    const link = await createLink();
    const path = `/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}`;
    const ja = await page(path, { 'accept-language': 'ja-JP,ja;q=0.9' });
    expect(ja.html).toContain('<html lang="ja">');
    expect(ja.html).toContain('カード番号');
    expect(ja.html).toContain('￥1,500');
    const en = await page(`${path}&lang=en`, { 'accept-language': 'ja' });
    expect(en.html).toContain('<html lang="en">');
    expect(en.html).toContain('Card number');
  });

  it('refuses a wrong secret, an unknown link, an altered URL, a disabled and an expired link, with a page that says why', async () => {
    const link = await createLink();
    const secret = encodeURIComponent(link.secret);
    const wrong = await page(`/checkout/pay/${link.id}?secret=x${secret}&lang=en`);
    expect(wrong.status).toBe(404);
    expect(wrong.html).toContain('This payment link is not valid');
    expect(wrong.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await page(`/checkout/pay/${link.id}?lang=en`)).status).toBe(404);
    expect((await page(`/checkout/pay/not-a-uuid?secret=${secret}`)).status).toBe(404);
    const tampered = await page(`/checkout/pay/${link.id}?secret=${secret}&amount=1&lang=en`);
    expect(tampered.status).toBe(400);
    expect(tampered.html).toContain('This payment link was altered');
    expect(tampered.html).not.toContain('¥1');

    const disabled = await createLink({ enabled: false });
    const off = await page(
      `/checkout/pay/${disabled.id}?secret=${encodeURIComponent(disabled.secret)}&lang=en`,
    );
    expect(off.status).toBe(410);
    expect(off.html).toContain('disabled by the shop');

    const expiring = await createLink({ expiry: new Date(Date.now() + 60_000).toISOString() });
    await suite.env.prisma.checkoutLink.update({
      where: { id: expiring.id },
      data: { expiry: new Date(Date.now() - 1000) },
    });
    const old = await page(
      `/checkout/pay/${expiring.id}?secret=${encodeURIComponent(expiring.secret)}&lang=ja`,
    );
    expect(old.status).toBe(410);
    expect(old.html).toContain('有効期限が切れています');
  });

  it('serves its script and style as files, and the widget', async () => {
    for (const [path, type] of [
      ['/checkout/assets/checkout.js', 'text/javascript'],
      ['/checkout/assets/checkout.css', 'text/css'],
      ['/checkout/widget.js', 'text/javascript'],
    ]) {
      const res = await page(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await page('/checkout/assets/..%2Fhosted-pages.ts')).status).toBe(404);
    expect((await page('/checkout/assets/other.js')).status).toBe(404);
  });
});

describe("the link's own credentials", () => {
  it('make a card token of the link’s type from the gateway’s own Origin, for a merchant that is not PCI DSS compliant', async () => {
    const link = await createLink();
    const res = await linkPage(suite.url, link).token(CARD);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      store_id: suite.merchants.shop.store.id,
      type: 'one_time',
      payment_type: 'card',
    });
    // the merchant's own secret may not
    const direct = await requestJson(suite.url, '/tokens', {
      method: 'POST',
      auth: bearer(suite.merchants.shop.storeToken),
      json: CARD,
    });
    expect(direct.body.code).toBe('DIRECT_CARD_TOKEN_CREATION_DISABLED');
  });

  it('are refused from a foreign Origin or none, for another token type, and on every other route', async () => {
    const link = await createLink();
    const post = (origin: string | null, json: unknown = CARD) =>
      linkPage(suite.url, link, origin).token(json);
    expect((await post('https://evil.example')).body).toMatchObject({
      code: 'INVALID_DOMAIN',
      status: 'error',
    });
    expect((await post(SHOP_ORIGIN)).status).toBe(401);
    expect((await post(null)).body.code).toBe('INVALID_DOMAIN');
    const recurring = await post(suite.url, { ...CARD, type: 'recurring' });
    expect(recurring.status).toBe(400);
    expect(recurring.body.errors).toEqual([{ field: 'type', reason: 'INVALID_TOKEN_TYPE' }]);
    // a scanned QR code is the shop counter's, never a link page's
    const scanned = await post(suite.url, {
      payment_type: 'qr_scan',
      type: 'one_time',
      data: { scanned_qr: '280000000000000001' },
    });
    expect(scanned.body.errors).toEqual([{ field: 'payment_type', reason: 'PAYMENT_TYPE_NOT_SUPPORTED' }]);
    for (const [method, path] of [
      ['GET', `/checkout/links/${link.id}`],
      ['GET', '/charges'],
      ['POST', '/charges'],
      ['GET', `/checkout/forms/${form.id}`],
    ]) {
      const res = await requestJson(suite.url, path, {
        method,
        auth: linkAuth(link),
        origin: suite.url,
        json: method === 'POST' ? {} : undefined,
      });
      expect([path, res.status, res.body.code]).toEqual([path, 401, 'INVALID_APP_TOKEN']);
    }
    // a secret that is not the link's
    const other = await createLink();
    const mixed = await requestJson(suite.url, '/tokens', {
      method: 'POST',
      auth: `Bearer ${other.secret}.${link.jwt}`,
      origin: suite.url,
      json: CARD,
    });
    expect(mixed.body.code).toBe('INVALID_CREDENTIALS');
  });

  it('stop working when the link is disabled or expires', async () => {
    const link = await createLink();
    await suite.env.prisma.checkoutLink.update({ where: { id: link.id }, data: { enabled: false } });
    const res = await linkPage(suite.url, link).token(CARD);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'NOT_ACTIVE',
      errors: [{ field: null, reason: 'LINK_DISABLED' }],
    });
  });

  it('pay exactly the link: its amount and currency, whatever the browser adds; read back its own payments only', async () => {
    const link = await createLink({ amount: 2500, metadata: { order: 'A-7' } });
    const buyer = linkPage(suite.url, link);
    const token = await buyer.token(CARD);
    const tampered = await buyer.pay(token.body.id, { extra: { amount: 1 } });
    expect(tampered.status).toBe(400);
    expect(tampered.body.errors).toEqual([{ field: 'amount', reason: 'FORBIDDEN_PARAMETER' }]);

    const paid = await buyer.pay(token.body.id, { key: 'pay-1' });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ kind: 'charge', status: 'pending', next_action: null });
    const charge: any = await suite.sdk.shop.charges.get(suite.merchants.shop.store.id, paid.body.id);
    expect(charge).toMatchObject({
      requestedAmount: 2500,
      requestedCurrency: 'JPY',
      transactionTokenId: token.body.id,
      metadata: { order: 'A-7', checkout_link_id: link.id },
    });
    // a replay under the same key is the same payment
    const again = await buyer.pay(token.body.id, { key: 'pay-1' });
    expect(again.body.id).toBe(paid.body.id);

    // the link is paid (pending here): another card cannot pay it again
    const second = await buyer.token(CARD);
    const twice = await buyer.pay(second.body.id);
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      code: 'TRANSACTION_ALREADY_PROCESSED',
      errors: [{ field: null, reason: 'LINK_ALREADY_PAID' }],
    });

    const read = await requestJson(suite.url, `/checkout/links/${link.id}/payments/charge/${paid.body.id}`, {
      auth: linkAuth(link),
    });
    expect(read.body).toMatchObject({ kind: 'charge', id: paid.body.id, status: 'pending' });
    // another link's credentials see nothing of it, nor of another link's path
    const sibling = await createLink();
    const foreignRead = await requestJson(
      suite.url,
      `/checkout/links/${sibling.id}/payments/charge/${paid.body.id}`,
      {
        auth: linkAuth(sibling),
      },
    );
    expect(foreignRead.status).toBe(404);
    const wrongPath = await requestJson(
      suite.url,
      `/checkout/links/${link.id}/payments/charge/${paid.body.id}`,
      {
        auth: linkAuth(sibling),
      },
    );
    expect(wrongPath.status).toBe(404);
  });

  it('pay a link once when two payments race, and again after a refused one', async () => {
    const link = await createLink();
    const buyer = linkPage(suite.url, link);
    const tokens = await Promise.all([1, 2, 3].map(() => buyer.token(CARD)));
    // a token that does not exist is refused before anything is written: the link stays payable
    expect((await buyer.pay('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const answers = await Promise.all(tokens.map((t) => buyer.pay(t.body.id)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    const charges = await suite.env.prisma.charge.count({
      where: {
        storeId: suite.merchants.shop.store.id,
        metadata: { path: ['checkout_link_id'], equals: link.id },
      },
    });
    expect(charges).toBe(1);
    // once that charge failed, the consumer may pay again
    const winner = answers.find((a) => a.status === 201)?.body.id;
    await suite.env.prisma.charge.update({ where: { id: winner }, data: { status: 'failed' } });
    const fresh = await buyer.token(CARD);
    expect((await buyer.pay(fresh.body.id)).status).toBe(201);
  });

  it('make a token only for a token-only link: the merchant charges it, the page pays nothing', async () => {
    const link = await createLink({ tokenOnly: true, tokenType: 'recurring' });
    const shown = await page(`/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}&lang=en`);
    expect(shown.html).toContain('Save card');
    expect(shown.html).not.toContain('pay_pay_online');
    const token = await linkPage(suite.url, link).token({
      ...CARD,
      type: 'recurring',
      metadata: { checkout_link_id: 'forged', note: 'x' },
    });
    expect(token.status).toBe(201);
    // the token names its link (the browser cannot say otherwise)
    expect(token.body.metadata).toEqual({ note: 'x', checkout_link_id: link.id });
    const pay = await linkPage(suite.url, link).pay(token.body.id);
    expect(pay.status).toBe(403);
    expect(pay.body).toMatchObject({
      code: 'FORBIDDEN',
      errors: [{ field: null, reason: 'TOKEN_ONLY_LINK' }],
    });
  });

  it('authorize only for an authorization link, captured as the link says', async () => {
    const link = await createLink({ chargeAuth: true, chargeCaptureIn: 'P2D' });
    const token = await linkPage(suite.url, link).token(CARD);
    const before = Date.now();
    const paid = await linkPage(suite.url, link).pay(token.body.id);
    expect(paid.status).toBe(201);
    const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: paid.body.id } });
    expect(row.capture).toBe(false);
    // two days from the moment the payment was made: between the request's start and its answer
    const twoDays = 2 * 86_400_000;
    expect(row.captureAt?.getTime()).toBeGreaterThanOrEqual(before + twoDays);
    expect(row.captureAt?.getTime()).toBeLessThanOrEqual(Date.now() + twoDays);
  });

  it("do not pay with another store's token", async () => {
    const link = await createLink();
    const otherLink = await createLink({}, suite.merchants.other, otherForm.id);
    const token = await linkPage(suite.url, otherLink).token(CARD);
    expect(token.body.store_id).toBe(suite.merchants.other.store.id);
    const res = await linkPage(suite.url, link).pay(token.body.id);
    expect(res.status).toBe(404);
  });
});

describe('behind PUBLIC_BASE_URL (a TLS proxy in front of the gateway)', () => {
  // production requires PUBLIC_BASE_URL (libs/config): the pages' own Origin and the URL a 3-D
  // Secure page sends the consumer back to come from it, never from the request's Host or Origin
  const PUBLIC = 'https://pay.example.com';
  let proxied: NestFastifyApplication;
  let proxiedUrl: string;
  beforeAll(async () => {
    proxied = await createGatewayApp({ ...suite.env.config, PUBLIC_BASE_URL: PUBLIC });
    proxiedUrl = await listenLocally(proxied);
  });
  afterAll(() => proxied?.close());

  it("accept the link's credentials only from the configured origin, and send the consumer back there", async () => {
    const link = await createLink();
    const tokenFrom = (origin: string) => linkPage(proxiedUrl, link, origin).token(CARD);
    // an Origin equal to the Host the request came in on is no longer the gateway's own: a client
    // (or a proxy passing Host through) could name any host there
    expect((await tokenFrom(proxiedUrl)).body.code).toBe('INVALID_DOMAIN');
    const token = await tokenFrom(PUBLIC);
    expect(token.status).toBe(201);
    const forged = await linkPage(proxiedUrl, link, proxiedUrl).pay(token.body.id);
    expect(forged.body.code).toBe('INVALID_DOMAIN');
    const paid = await linkPage(proxiedUrl, link, PUBLIC).pay(token.body.id);
    expect(paid.status).toBe(201);
    const charge = await requestJson(
      proxiedUrl,
      `/stores/${suite.merchants.shop.store.id}/charges/${paid.body.id}`,
      {
        auth: bearer(suite.merchants.shop.storeToken),
      },
    );
    for (const endpoint of [charge.body.three_ds.redirect_endpoint, charge.body.redirect.endpoint])
      expect(endpoint).toMatch(new RegExp(`^${PUBLIC}/checkout/pay/${link.id}\\?secret=.+&resume=charge$`));
  });
});

describe("the widget's frame", () => {
  it("is framable by the token's domains only (a malformed domain left out)", async () => {
    const res = await page(`/checkout/frame?app_id=${suite.merchants.shop.storeToken.jwt}&lang=en`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-ancestors https:\/\/shop\.example 127\.0\.0\.1:4999(;|$)/);
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.html).toContain('Save card');
  });

  it('is refused for a token without domains, a bad token, a secret-bearing credential, or an unknown parameter', async () => {
    expect((await page(`/checkout/frame?app_id=${suite.merchants.other.storeToken.jwt}`)).status).toBe(403);
    expect((await page('/checkout/frame?app_id=a.b.c')).status).toBe(401);
    expect(
      (
        await page(
          `/checkout/frame?app_id=${suite.merchants.shop.storeToken.secret}.${suite.merchants.shop.storeToken.jwt}`,
        )
      ).status,
    ).toBe(401);
    expect(
      (await page(`/checkout/frame?app_id=${suite.merchants.shop.storeToken.jwt}&amount=1`)).status,
    ).toBe(400);
    const refused = await page('/checkout/frame?app_id=a.b.c&lang=en');
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it("tokenises from the frame (the gateway's Origin) only for an embedding page in the token's domains", async () => {
    const post = (embedder: string | undefined, origin = suite.url) =>
      requestJson(suite.url, '/tokens', {
        method: 'POST',
        auth: `Bearer ${suite.merchants.shop.storeToken.jwt}`,
        origin,
        headers: embedder ? { 'x-kessai-embedder': embedder } : {},
        json: CARD,
      });
    expect((await post(SHOP_ORIGIN)).status).toBe(201);
    expect((await post('https://evil.example')).body.code).toBe('INVALID_DOMAIN');
    expect((await post(undefined)).body.code).toBe('INVALID_DOMAIN');
    // the embedder header counts from the gateway's own frame only
    expect((await post(SHOP_ORIGIN, 'https://evil.example')).body.code).toBe('INVALID_DOMAIN');
    // the page itself, from an allowed Origin, as before
    expect((await post(undefined, SHOP_ORIGIN)).status).toBe(201);
  });
});
