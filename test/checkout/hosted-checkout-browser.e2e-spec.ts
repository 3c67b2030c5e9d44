// The hosted checkout in a real browser (docs/hosted-checkout.md): Debian's chromium, headless,
// driven by playwright-core, against the real gateway, charge-service, subscription-service and
// webhook-service and the processor simulator (the outside world: issuer and operator pages). A
// consumer pays links (success, decline then retry, 3-D Secure, a QR operator, a subscription), the
// merchant's receiver gets the webhook, a tampered link and a foreign Origin are refused, the
// widget works on a page of an allowed origin only, and a store's own colours and logo are shown. axe-core checks every page; each step leaves a
// screenshot in test-results/checkout/.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { WebHookTrigger } from 'univapay-node';
import {
  axeViolations,
  CapturedLog,
  createCheckoutForm,
  createCheckoutLink,
  launchChromium,
  luhnValidRuns,
  requestJson,
  sdkFor,
  solidPng,
  useSuite,
  WebhookReceiver,
  type SeededMerchant,
} from '@kessai/testing';
import { startProcessorSimulator } from '../../apps/processor-simulator/src/start-simulator';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOTS = join(__dirname, '..', '..', 'test-results', 'checkout');
const EXPIRY = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, '0')}`;
const STEP_MS = 20_000;
// a few steps each, each awaited; a loaded CI machine gets room
jest.setTimeout(60_000);
/** the card numbers the consumer typed, none of which may reach a URL or a log */
const TYPED_CARDS = [
  '4242424242424242',
  '4242424242424241',
  '378282246310005',
  '4111111111111111',
  '5555555555554444',
  '4000000000003220',
];
const log = new CapturedLog();
/** every URL the browser asked for, over all tests */
const requested: string[] = [];

const suite = useSuite({
  variables: { SUBSCRIPTION_SCHEDULER_IDLE_MS: '50', CHARGE_SWEEP_INTERVAL_MS: '200' },
  simulator: (callbackSecret) =>
    startProcessorSimulator({ latencyMs: 0, callbackSecret, callbackRetryBaseDelayMs: 50 }),
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway', 'trace') }),
  workers: ['charge-service', 'subscription-service', 'webhook-service'],
  callbacks: true,
});
let receiver: WebhookReceiver;
let browser: Browser;
let context: BrowserContext;
let shop: SeededMerchant;
let form: any;
/** The merchant's site, on two origins: its own (in the token's domains) and a foreign one. */
let merchantSite: Server;
let foreignSite: Server;
let merchantOrigin: string;
let foreignOrigin: string;

function shopPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body><main>${body}</main></body></html>`;
}

/** The merchant's pages: its return page (showing the outcome it was sent) and its widget pages. */
function merchantHandler(
  request: import('node:http').IncomingMessage,
  response: import('node:http').ServerResponse,
) {
  const url = new URL(request.url ?? '/', 'http://merchant');
  response.setHeader('content-type', 'text/html; charset=utf-8');
  if (url.pathname === '/return') {
    const status = url.searchParams.get('status') ?? '';
    response.end(
      shopPage('Order', `<h1>Thank you</h1><p id="outcome">Payment ${status.replace(/[^a-z_]/g, '')}</p>`),
    );
    return;
  }
  if (url.pathname === '/widget' || url.pathname === '/inline') {
    const jwt = shop.storeToken.jwt;
    const trigger =
      url.pathname === '/widget'
        ? `<button type="button" id="open" data-kessai-checkout data-app-id="${jwt}" data-lang="en">Pay by card</button>`
        : `<div id="inline" data-kessai-inline data-app-id="${jwt}" data-lang="en"></div>`;
    response.end(
      shopPage(
        'Shop',
        `<h1>Acme shop</h1>${trigger}<p id="token" aria-live="polite"></p>
<script src="${suite.url}/checkout/widget.js"></script>
<script src="/shop.js"></script>`,
      ),
    );
    return;
  }
  if (url.pathname === '/shop.js') {
    // what the merchant's page does with the token: hands its id to its server (here: shows it)
    response.setHeader('content-type', 'text/javascript');
    response.end(
      `document.addEventListener('kessai:token', function (e) { document.getElementById('token').textContent = 'token ' + e.detail.id; });`,
    );
    return;
  }
  response.statusCode = 404;
  response.end('not found');
}

async function listen(server: Server, host: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

const createLink = (extra: Record<string, unknown> = {}) =>
  createCheckoutLink(suite.url, shop, form.id, extra);
const linkUrl = (link: any, extra = '') =>
  `${suite.url}/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}&lang=en${extra}`;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** axe-core in the page or frame (evaluated by the browser's debugger: the page's CSP does not apply). */
async function expectAccessible(target: Page | Frame, exclude: string[] = []): Promise<void> {
  const violations = await axeViolations(target, exclude);
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

async function fillCard(page: Page | Frame, number: string, cvv = '123') {
  await page.getByLabel('Name on card').fill('HANAKO YAMADA');
  await page.getByLabel('Card number').fill('');
  await page.getByLabel('Card number').pressSequentially(number);
  await page.getByLabel('Expiry date (MM/YY)').fill(EXPIRY);
  await page.getByLabel('Security code (CVV)').fill(cvv);
  const email = page.getByLabel('Email');
  if ((await email.count()) > 0 && !(await email.inputValue())) await email.fill('hanako@example.test');
}

async function outcomeAtMerchant(page: Page): Promise<URL> {
  await page.waitForURL(`${merchantOrigin}/return?**`, { timeout: STEP_MS });
  return new URL(page.url());
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  merchantSite = createServer(merchantHandler);
  foreignSite = createServer(merchantHandler);
  merchantOrigin = await listen(merchantSite, '127.0.0.1');
  suite.cleanup(() => new Promise((resolve) => merchantSite.close(resolve)));
  foreignOrigin = await listen(foreignSite, 'localhost');
  suite.cleanup(() => new Promise((resolve) => foreignSite.close(resolve)));
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());

  // not PCI DSS compliant: the hosted checkout is how it takes cards
  shop = await suite.env.seedMerchant('browser-shop', { domains: [new URL(merchantOrigin).host] });
  form = await createCheckoutForm(suite, shop, 'Browser', {
    title: 'Acme order',
    supported_payment_methods: ['card', 'online'],
    success_redirect_url: `${merchantOrigin}/return`,
    failure_redirect_url: `${merchantOrigin}/return`,
  });
  await sdkFor(suite.url, shop.storeToken).webHooks.create(
    { triggers: [WebHookTrigger.CHARGE_FINISHED], url: `${receiver.url}/kessai` },
    undefined,
    shop.store.id,
  );

  browser = await launchChromium();
  suite.cleanup(() => browser.close());
}, 60_000);

beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US' });
  context.setDefaultTimeout(STEP_MS);
  context.on('request', (request) => requested.push(request.url()));
});

afterEach(async () => {
  await context?.close();
});

describe('the link page in a browser', () => {
  it('pays with a success card and ends on the merchant’s return URL; the merchant’s receiver gets charge_finished', async () => {
    const page = await context.newPage();
    const link = await createLink();
    await page.goto(linkUrl(link));
    await page.getByRole('heading', { name: 'Acme order' }).waitFor();
    expect(await page.locator('#amount').textContent()).toBe('¥1,500');
    await expectAccessible(page);
    await shot(page, '01-link-page');

    // errors by field as the consumer types: a Luhn failure, a past expiry, a short CVV
    await page.getByLabel('Card number').pressSequentially('4242424242424241');
    await page.locator('#card-number-error', { hasText: 'Enter a valid card number.' }).waitFor();
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Expiry date (MM/YY)').pressSequentially('0120');
    await page.locator('#expiry-error', { hasText: 'This card has expired.' }).waitFor();
    await page.getByLabel('Card number').fill('');
    await page.getByLabel('Card number').pressSequentially('378282246310005');
    await page.getByLabel('Security code (CVV)').fill('123');
    await page.getByLabel('Security code (CVV)').blur();
    await page.locator('#cvv-error', { hasText: 'Enter the 4-digit security code.' }).waitFor();
    await expectAccessible(page);
    await shot(page, '02-field-errors');

    await fillCard(page, '4242424242424242');
    expect(await page.locator('#card-number').inputValue()).toBe('4242 4242 4242 4242');
    // keyboard only: Enter in a field submits
    await page.getByLabel('Security code (CVV)').press('Enter');
    const outcome = await outcomeAtMerchant(page);
    expect(outcome.searchParams.get('status')).toBe('successful');
    expect(outcome.searchParams.get('checkout_link_id')).toBe(link.id);
    const chargeId = outcome.searchParams.get('charge_id') ?? '';
    await shot(page, '03-paid-at-merchant');

    // the merchant's server learns it from the webhook (and the API), never from the browser alone
    const [delivery] = await receiver.waitFor('/kessai', 'charge_finished', chargeId);
    expect(JSON.parse(delivery.body).data).toMatchObject({ status: 'successful', charged_amount: 1500 });
    // no card number in any URL the browser visited
    expect(page.url()).not.toContain('4242');
  });

  it('shows a declined card’s error and lets the consumer retry with another card', async () => {
    const page = await context.newPage();
    await page.goto(linkUrl(await createLink()));
    await fillCard(page, '4111111111111111');
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.locator('#form-error:has-text("declined")').waitFor();
    expect(await page.getByRole('button', { name: /Pay/ }).isEnabled()).toBe(true);
    await expectAccessible(page);
    await shot(page, '04-declined');

    await fillCard(page, '5555555555554444');
    await page.getByRole('button', { name: /Pay/ }).click();
    expect((await outcomeAtMerchant(page)).searchParams.get('status')).toBe('successful');
  });

  it('goes through 3-D Secure at the issuer and back', async () => {
    const page = await context.newPage();
    await page.goto(linkUrl(await createLink()));
    await fillCard(page, '4000000000003220');
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(`${suite.simulator.url}/3ds/**`);
    await shot(page, '05-three-ds-issuer');
    await page.getByRole('button', { name: 'Authenticate' }).click();
    expect((await outcomeAtMerchant(page)).searchParams.get('status')).toBe('successful');
    await shot(page, '06-three-ds-done');
  });

  it('pays with a QR operator on its page and back', async () => {
    const page = await context.newPage();
    await page.goto(linkUrl(await createLink()));
    await page.getByRole('radio', { name: 'PayPay' }).check();
    expect(await page.getByLabel('Card number').isVisible()).toBe(false);
    await page.getByLabel('Email').fill('hanako@example.test');
    await shot(page, '07-qr-operator-chosen');
    await expectAccessible(page);
    await page.getByRole('button', { name: /Pay/ }).click();
    await page.waitForURL(`${suite.simulator.url}/operator/pay/**`);
    await shot(page, '08-operator-page');
    await page.getByRole('button', { name: 'Pay' }).click();
    expect((await outcomeAtMerchant(page)).searchParams.get('status')).toBe('successful');
  });

  it('starts a subscription from a subscription link', async () => {
    const page = await context.newPage();
    const link = await createLink({ tokenType: 'subscription', subscriptionPeriod: 'monthly', amount: 980 });
    await page.goto(linkUrl(link));
    // a subscription is paid by card: no operator is offered
    expect(await page.getByRole('radio').count()).toBe(0);
    await fillCard(page, '4242424242424242');
    await page.getByRole('button', { name: /Pay/ }).click();
    const outcome = await outcomeAtMerchant(page);
    expect(outcome.searchParams.get('status')).toBe('successful');
    const subscription: any = await sdkFor(suite.url, shop.storeToken).subscriptions.get(
      shop.store.id,
      outcome.searchParams.get('subscription_id') ?? '',
    );
    expect(subscription).toMatchObject({ status: 'current', amount: 980, period: 'monthly' });
    expect(subscription.metadata).toMatchObject({ checkout_link_id: link.id });
    await shot(page, '09-subscribed');
  });

  it('refuses a link whose amount was tampered with, in Japanese too', async () => {
    const page = await context.newPage();
    const link = await createLink();
    const response = await page.goto(linkUrl(link, '&amount=1'));
    expect(response?.status()).toBe(400);
    await page.getByText('This payment link was altered').waitFor();
    expect(await page.locator('#pay-form').count()).toBe(0);
    await expectAccessible(page);
    await shot(page, '10-tampered-refused');
    await page.goto(
      `${suite.url}/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}x&lang=ja`,
    );
    await page.getByText('この支払いリンクは無効です').waitFor();
    await shot(page, '11-wrong-secret-ja');

    // and the page's own calls cannot change what the link pays
    await page.goto(linkUrl(link));
    const tampered: any = await page.evaluate(async (id) => {
      const config = JSON.parse(
        (globalThis as any).document.getElementById('checkout-config')?.textContent ?? '{}',
      );
      const response = await fetch(`/checkout/links/${id}/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${config.credential}`, 'content-type': 'application/json' },
        body: JSON.stringify({ transaction_token_id: '00000000-0000-4000-8000-000000000000', amount: 1 }),
      });
      return { status: response.status, body: await response.json() };
    }, link.id);
    expect(tampered.status).toBe(400);
    expect(tampered.body.errors).toContainEqual({ field: 'amount', reason: 'FORBIDDEN_PARAMETER' });
  });

  it('is Japanese for a Japanese browser, and fits a phone', async () => {
    const ja = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: 'ja-JP' });
    try {
      const page = await ja.newPage();
      const [link, sibling] = await Promise.all([createLink(), createLink()]);
      // another link's secret: refused
      await page.goto(`${suite.url}/checkout/pay/${link.id}?secret=${encodeURIComponent(sibling.secret)}`);
      await page.getByText('この支払いリンクは無効です').waitFor();
      await page.goto(`${suite.url}/checkout/pay/${link.id}?secret=${encodeURIComponent(link.secret)}`);
      await page.getByLabel('カード番号').waitFor();
      expect(await page.locator('#amount').textContent()).toBe('￥1,500');
      const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
      expect(overflow).toBe(false);
      await expectAccessible(page);
      await shot(page, '12-link-page-ja-phone');
    } finally {
      await ja.close();
    }
  });
});

describe('the widget and the inline form', () => {
  it('opens over a page of an allowed origin and hands it the token (never the card)', async () => {
    const page = await context.newPage();
    await page.goto(`${merchantOrigin}/widget`);
    await page.getByRole('button', { name: 'Pay by card' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const frame = page.frameLocator('iframe');
    await frame.getByLabel('Card number').waitFor();
    // a modal: the page behind is out of reach while it is open
    expect(await page.locator('main').getAttribute('inert')).toBe('');
    await shot(page, '13-widget-open');
    const inner = page.frames().find((f) => f.url().startsWith(`${suite.url}/checkout/frame`));
    if (!inner) throw new Error('no checkout frame');
    await expectAccessible(inner);
    await expectAccessible(page, ['iframe']);
    await fillCard(inner, '4242424242424242');
    await inner.getByRole('button', { name: 'Save card' }).click();
    await page.locator('#token:has-text("token ")').waitFor();
    const tokenId = ((await page.locator('#token').textContent()) ?? '').replace('token ', '');
    expect(await dialog.count()).toBe(0);
    expect(await page.locator('main').getAttribute('inert')).toBeNull();
    // focus is back on the button that opened it
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('open');
    await shot(page, '14-widget-token');
    // the merchant's server charges it with its secret
    const charge: any = await sdkFor(suite.url, shop.storeToken).charges.create({
      transactionTokenId: tokenId,
      amount: 3000,
      currency: 'JPY',
    });
    const done: any = await sdkFor(suite.url, shop.storeToken).charges.poll(shop.store.id, charge.id);
    expect(done.status).toBe('successful');
  });

  it('renders inline in a page of an allowed origin', async () => {
    const page = await context.newPage();
    await page.goto(`${merchantOrigin}/inline`);
    const frame = page.frameLocator('#inline iframe');
    await frame.getByLabel('Card number').waitFor();
    const inner = page.frames().find((f) => f.url().startsWith(`${suite.url}/checkout/frame`));
    if (!inner) throw new Error('no checkout frame');
    await fillCard(inner, '4242424242424242');
    await inner.getByLabel('Security code (CVV)').press('Enter');
    await page.locator('#token:has-text("token ")').waitFor();
    await shot(page, '15-inline-token');
  });

  it('does not load on a page of another origin, whose Origin is refused by POST /tokens', async () => {
    const page = await context.newPage();
    await page.goto(`${foreignOrigin}/inline`);
    // the browser refuses to frame the form (frame-ancestors), and the widget says it could not load
    await page.getByRole('alert').waitFor({ timeout: STEP_MS });
    expect(await page.getByRole('alert').textContent()).toBe('The payment form could not be loaded.');
    const inner = page.frames().find((f) => f.url().startsWith(`${suite.url}/checkout/frame`));
    expect(inner ? await inner.locator('#card-number').count() : 0).toBe(0);
    await shot(page, '16-foreign-origin-refused');

    // the token's own Origin check, as the gateway sees a request from that page, or from our frame on it
    const card = {
      payment_type: 'card',
      type: 'one_time',
      email: 'x@example.test',
      data: { cardholder: 'X', card_number: '4242424242424242', exp_month: 12, exp_year: 2030, cvv: '123' },
    };
    const fromForeign = await requestJson(suite.url, '/tokens', {
      method: 'POST',
      auth: `Bearer ${shop.storeToken.jwt}`,
      origin: foreignOrigin,
      json: card,
    });
    expect(fromForeign).toMatchObject({ status: 401, body: { code: 'INVALID_DOMAIN' } });
    const framedByForeign = await requestJson(suite.url, '/tokens', {
      method: 'POST',
      auth: `Bearer ${shop.storeToken.jwt}`,
      origin: suite.url,
      headers: { 'x-kessai-embedder': foreignOrigin },
      json: card,
    });
    expect(framedByForeign).toMatchObject({ status: 401, body: { code: 'INVALID_DOMAIN' } });
  });
});

describe('a store’s own colours and logo', () => {
  it('are what the link page shows, readable and accessible', async () => {
    const themed = await suite.env.seedMerchant('browser-themed', {
      domains: [new URL(merchantOrigin).host],
    });
    const themedForm = await createCheckoutForm(suite, themed, 'Themed', { title: 'Green tea, 1 kg' });
    // a Kessai key the SDK's type does not list: it sends it snake_cased like any other
    const configuration: Record<string, unknown> = {
      checkoutColors: { mainColor: '#0b6e4f', mainText: '#ffffff', bodyBackground: '#e8f5e9' },
    };
    await sdkFor(suite.url, themed.storeToken).stores.update(themed.store.id, { configuration });
    const logoFile = join(mkdtempSync(join(tmpdir(), 'kessai-logo-')), 'logo.png');
    writeFileSync(logoFile, solidPng(160, 48, [11, 110, 79]));
    await suite.cli('store:logo', '--store', themed.store.id, '--file', logoFile);
    const link = await createCheckoutLink(suite.url, themed, themedForm.id, { amount: 2400 });

    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) refused.push(message.text());
    });
    await page.goto(linkUrl(link));
    await page.getByRole('heading', { name: 'Green tea, 1 kg' }).waitFor();
    const logo = page.getByRole('img', { name: themed.store.name });
    await logo.waitFor();
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('img.logo')?.complete === true,
    );
    expect(await logo.evaluate((img: any) => img.naturalWidth)).toBe(160);
    const computed = await page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as any;
      return {
        page: getComputedStyle(document.documentElement).backgroundColor,
        button: getComputedStyle(document.getElementById('pay-button')).backgroundColor,
        buttonText: getComputedStyle(document.getElementById('pay-button')).color,
      };
    });
    expect(computed).toEqual({
      page: 'rgb(232, 245, 233)',
      button: 'rgb(11, 110, 79)',
      buttonText: 'rgb(255, 255, 255)',
    });
    // the theme's <style> block ran under the CSP: nothing was refused
    expect(refused).toEqual([]);
    await expectAccessible(page);
    await shot(page, '17-store-colours-and-logo');
  });
});

// last: what the runs above left behind
describe('card data', () => {
  it('is in no URL the browser asked for, and in no log line of the gateway or the workers', () => {
    expect(requested.length).toBeGreaterThan(20);
    const urls = requested.join('\n');
    const logs = [log.text, ...suite.workers.map(({ app }) => app.lines.join('\n'))].join('\n');
    expect(log.lines.length).toBeGreaterThan(10);
    for (const text of [urls, logs]) {
      expect(luhnValidRuns(text)).toEqual([]);
      for (const pan of TYPED_CARDS) expect(text).not.toContain(pan);
    }
  });
});
