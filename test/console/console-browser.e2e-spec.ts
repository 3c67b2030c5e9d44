// The merchant console (docs/console.md) in a real browser: Debian's chromium, headless, driven by
// playwright-core, against the console and the gateway in this process, charge-service,
// refund-cancel-service and webhook-service as processes and the processor simulator (the outside
// world). Sign-in (a bad password refused, then throttled), CSRF, roles (a viewer cannot refund), an
// admin's refund through the API's use case with its audit row and webhook, filters and pages in the
// URL, sign-out everywhere. axe-core checks every page; screenshots go to test-results/console/.
import { mkdirSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WebHookTrigger } from 'univapay-node';
import {
  axeViolations,
  eventually,
  insertCardToken,
  insertSubscription,
  launchChromium,
  sdkFor,
  WebhookReceiver,
  type SeededMerchant,
} from '@kessai/testing';
import * as harness from './console-harness';
import { CONSOLE_SHOTS as SHOTS, csrfOf, useConsoleSuite } from './console-harness';

/** merchant-controlled text that would run if a page did not escape it */
const MARKUP = '<script>document.title="owned"</script><img src=x onerror=alert(1)>';
jest.setTimeout(90_000);

const suite = useConsoleSuite(['charge-service', 'refund-cancel-service', 'webhook-service']);

let browser: Browser;
let consoleUrl: string;
let throttledUrl: string;
let receiver: WebhookReceiver;
let shop: SeededMerchant;
const password = `pw-${randomBytes(6).toString('hex')}`;
const users: Record<'owner' | 'admin' | 'viewer' | 'other', string> = {
  owner: `owner-${randomBytes(3).toString('hex')}@example.test`,
  admin: `admin-${randomBytes(3).toString('hex')}@example.test`,
  viewer: `viewer-${randomBytes(3).toString('hex')}@example.test`,
  other: `other-${randomBytes(3).toString('hex')}@example.test`,
};

const startConsole = (variables: Record<string, string> = {}) => harness.startConsole(suite, variables);

async function successfulCharge(
  merchant: 'shop' | 'other',
  amount = 1200,
  email = 'buyer@example.test',
  metadata: Record<string, string> = {},
): Promise<string> {
  return cardCharge(merchant, { amount, email, metadata });
}

/** A card charge, captured at once (successful) or only authorized (`capture: false`). */
async function cardCharge(
  merchant: 'shop' | 'other',
  {
    amount = 1200,
    email = 'buyer@example.test',
    metadata = {},
    capture = true,
  }: { amount?: number; email?: string; metadata?: Record<string, string>; capture?: boolean },
): Promise<string> {
  const wanted = capture ? 'successful' : 'authorized';
  const api = suite.api[merchant];
  const token = await api.request('/tokens', {
    method: 'POST',
    json: {
      payment_type: 'card',
      type: 'one_time',
      email,
      data: {
        cardholder: 'HANAKO YAMADA',
        card_number: '4242424242424242',
        exp_month: '12',
        exp_year: String(new Date().getFullYear() + 3),
        cvv: '123',
      },
    },
  });
  expect(token.status).toBe(201);
  const charge = await api.charge((token.body as { id: string }).id, { amount, metadata, capture });
  await eventually(
    async () =>
      (await suite.env.prisma.charge.findUnique({ where: { id: charge.id } }))?.status === wanted || null,
    { timeoutMs: 20_000, what: `charge ${charge.id} ${wanted}` },
  );
  return charge.id as string;
}

async function accessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

const newContext = () => harness.newContext(suite, browser);
const signIn = (context: BrowserContext, email: string, base = consoleUrl) =>
  harness.signIn(context, base, email, password);

beforeAll(async () => {
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
  mkdirSync(SHOTS, { recursive: true });
  shop = suite.merchants.shop;
  for (const [role, email] of Object.entries(users)) {
    const merchantId = role === 'other' ? suite.merchants.other.merchant.id : shop.merchant.id;
    const consoleRole = role === 'admin' || role === 'viewer' ? role : 'owner';
    await suite.env.admin.createUser({ merchantId, email, password, role: consoleRole });
  }
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
  await sdkFor(suite.url, shop.storeToken).webHooks.create(
    { triggers: [WebHookTrigger.REFUND_FINISHED], url: `${receiver.url}/kessai` },
    undefined,
    shop.store.id,
  );
  consoleUrl = await startConsole();
  // a console of its own Redis prefix, so its sign-in buckets are this test's alone: 3 sign-ins,
  // then refused until they refill (here: never within the test)
  throttledUrl = await startConsole({
    REDIS_PREFIX: `${suite.env.variables.REDIS_PREFIX}_throttle`,
    RATE_LIMIT_EXACT_BURST: '3',
    RATE_LIMIT_EXACT_PER_MINUTE: '3',
    RATE_LIMIT_EXACT_REFILL_PER_MS: '0.000001',
  });
}, 90_000);

describe('sign-in', () => {
  it('refuses a bad password, then throttles the address like POST /authenticate, the right password included', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${throttledUrl}/sign-in`);
    await accessible(page);
    for (let attempt = 0; attempt < 3; attempt++) {
      await page.getByLabel('Email').fill(users.owner);
      await page.getByLabel('Password').fill('not-the-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('#sign-in-error').waitFor();
      expect(await page.locator('#sign-in-error').textContent()).toBe('The email or password is not right.');
    }
    await page.getByLabel('Email').fill(users.owner);
    await page.getByLabel('Password').fill(password);
    const answer = page.waitForResponse(
      (r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await answer).status()).toBe(429);
    expect(await page.locator('#sign-in-error').textContent()).toContain('Too many sign-in attempts');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('kessai_console_session');
    await page.screenshot({ path: join(SHOTS, 'sign-in-throttled.png'), fullPage: true });
  });

  it('signs in with an HttpOnly, SameSite=Lax, Secure session cookie and strict headers', async () => {
    const context = await newContext();
    const page = await signIn(context, users.owner);
    const cookie = (await context.cookies()).find((c) => c.name === 'kessai_console_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: true });
    const response = await page.reload();
    const headers = response!.headers();
    expect(headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(headers['cache-control']).toBe('no-store');
    expect(await page.locator('#user-role').textContent()).toBe('owner');
    expect(await page.locator('#mode').textContent()).toBe('Test mode');
    await accessible(page);
  });

  it('a page without a session sends to the sign-in page', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(`${consoleUrl}/payments`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });
});

describe('payments', () => {
  let chargeId: string;
  beforeAll(async () => {
    chargeId = await successfulCharge('shop', 5000, 'refund-me@example.test', { note: MARKUP });
  }, 60_000);

  it('refuses a POST without its CSRF token (403), and one with another session’s: nothing written', async () => {
    const context = await newContext();
    const page = await signIn(context, users.admin);
    const refused = await context.request.post(`${consoleUrl}/payments/${chargeId}/refunds`, {
      form: { refund_id: crypto.randomUUID(), amount: '100' },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('This form is no longer valid');
    const otherSession = await signIn(await newContext(), users.admin);
    const foreign = await context.request.post(`${consoleUrl}/payments/${chargeId}/refunds`, {
      form: { _csrf: await csrfOf(otherSession), refund_id: crypto.randomUUID(), amount: '100' },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(403);
    expect(await suite.env.prisma.refund.count({ where: { chargeId } })).toBe(0);
    expect(await page.title()).toContain('Overview');
  });

  it('a viewer sees the payment without a refund form and is refused the refund (403, nothing written)', async () => {
    const context = await newContext();
    const page = await signIn(context, users.viewer);
    await page.goto(`${consoleUrl}/payments/${chargeId}`);
    expect(await page.locator('#charge-status').textContent()).toBe('successful');
    expect(await page.locator('form.refund').count()).toBe(0);
    const refused = await context.request.post(`${consoleUrl}/payments/${chargeId}/refunds`, {
      form: { _csrf: await csrfOf(page), refund_id: crypto.randomUUID(), amount: '100' },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('Your role may not do this.');
    expect(await suite.env.prisma.refund.count({ where: { chargeId } })).toBe(0);
    expect(await suite.env.prisma.consoleAuditEvent.count({ where: { merchantId: shop.merchant.id } })).toBe(
      0,
    );
  });

  it('another merchant’s payment is a missing page', async () => {
    const page = await signIn(await newContext(), users.other);
    const response = await page.goto(`${consoleUrl}/payments/${chargeId}`);
    expect(response!.status()).toBe(404);
  });

  it('an admin refunds part of a payment: the refund, its audit row and its webhook, as from the API', async () => {
    const context = await newContext();
    const page = await signIn(context, users.admin);
    await page.goto(`${consoleUrl}/payments?email=refund-me@example.test`);
    await page.getByRole('link', { name: chargeId }).click();
    expect(await page.locator('#refundable').textContent()).toBe('5000 JPY');
    // the charge's metadata shows as the text it is
    expect(await page.locator('.metadata dd').first().textContent()).toBe(MARKUP);
    expect(await page.locator('main script, main img').count()).toBe(0);
    await accessible(page);
    await page.getByLabel('Amount to refund (JPY)').fill('1500');
    await page.getByLabel('Reason').selectOption('customer_request');
    await page.getByRole('button', { name: 'Refund' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#refundable').textContent()).toBe('3500 JPY');
    await page.screenshot({ path: join(SHOTS, 'payment-refunded.png'), fullPage: true });

    const refunds = await suite.env.prisma.refund.findMany({ where: { chargeId } });
    expect(refunds).toHaveLength(1);
    const refund = refunds[0];
    expect(refund).toMatchObject({ amount: 1500n, currency: 'JPY', reason: 'customer_request' });
    const admin = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email: users.admin } });
    const audit = await suite.env.prisma.consoleAuditEvent.findMany({
      where: { merchantId: shop.merchant.id },
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      userId: admin.id,
      action: 'refund.create',
      targetType: 'refund',
      targetId: refund.id,
      mode: 'test',
      ip: '127.0.0.1',
      detail: { amount: '1500', currency: 'JPY', reason: 'customer_request', charge_id: chargeId },
    });
    expect(audit[0].userAgent).toContain('Chrome');
    // the API's refund of another charge, for its events and webhook to compare with
    const apiCharge = await successfulCharge('shop', 5000);
    const viaApi = await suite.api.shop.request(`/stores/${shop.store.id}/charges/${apiCharge}/refunds`, {
      method: 'POST',
      json: { amount: 1500, currency: 'JPY', reason: 'customer_request' },
    });
    expect(viaApi.status).toBe(201);
    const apiRefundId = (viaApi.body as { id: string }).id;
    const [fromConsole, fromApi] = await Promise.all(
      [refund.id, apiRefundId].map((id) => receiver.waitFor('/kessai', 'refund_finished', id)),
    );
    const shape = (body: string) => {
      const { data, event } = JSON.parse(body) as { event: string; data: Record<string, unknown> };
      return {
        event,
        keys: Object.keys(data).sort(),
        status: data.status,
        amount: data.amount,
        reason: data.reason,
      };
    };
    expect(shape(fromConsole[0].body)).toEqual(shape(fromApi[0].body));
    const eventTypes = async (id: string) =>
      (
        await suite.env.prisma.outboxEvent.findMany({
          where: { aggregateId: id },
          orderBy: { sequence: 'asc' },
        })
      ).map((e) => e.eventType);
    expect(await eventTypes(refund.id)).toEqual(await eventTypes(apiRefundId));
    // the timeline shows the refund's events and their webhook
    await page.reload();
    await page.locator('#events li[data-event-type="refund_finished"] .delivery').first().waitFor();
  });

  it('a resubmitted refund form refunds once', async () => {
    const charge = await successfulCharge('shop', 3000);
    const context = await newContext();
    const page = await signIn(context, users.owner);
    await page.goto(`${consoleUrl}/payments/${charge}`);
    const form = {
      _csrf: await csrfOf(page),
      refund_id: await page.locator('input[name="refund_id"]').inputValue(),
      amount: '1000',
    };
    for (let i = 0; i < 2; i++) {
      const answer = await context.request.post(`${consoleUrl}/payments/${charge}/refunds`, {
        form,
        maxRedirects: 0,
      });
      expect(answer.status()).toBe(303);
    }
    expect(await suite.env.prisma.refund.count({ where: { chargeId: charge } })).toBe(1);
    expect(await suite.env.prisma.consoleAuditEvent.count({ where: { targetId: form.refund_id } })).toBe(1);
  });

  it('keeps filters and pages in the URL (keyset pages, next and back)', async () => {
    const email = `pages-${randomBytes(3).toString('hex')}@example.test`;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await successfulCharge('shop', 700 + i, email));
    const page = await signIn(await newContext(), users.viewer);
    await page.goto(`${consoleUrl}/payments`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Amount at least').fill('702');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#payments').waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('email')).toBe(email);
    expect(url.searchParams.get('amount_from')).toBe('702');
    const shown = () =>
      page
        .locator('#payments tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-charge-id')));
    // newest first: 711 … 702 are ten charges, one page; nothing after
    const wanted = ids.slice(2).reverse();
    expect(await shown()).toEqual(wanted);
    expect(await page.locator('#next-page').count()).toBe(0);
    await page.goto(`${consoleUrl}/payments?email=${encodeURIComponent(email)}`);
    expect(await shown()).toEqual(ids.slice(2).reverse());
    await page.locator('#next-page').click();
    expect(await shown()).toEqual(ids.slice(0, 2).reverse());
    expect(new URL(page.url()).searchParams.get('email')).toBe(email);
    await page.locator('#previous-page').click();
    expect(await shown()).toEqual(ids.slice(2).reverse());
    await page.goto(
      `${consoleUrl}/payments?email=${encodeURIComponent(email)}&last_four=4242&status=successful&payment_type=card`,
    );
    expect(await shown()).toHaveLength(10);
    await page.goto(`${consoleUrl}/payments?email=${encodeURIComponent(email)}&last_four=1111`);
    await page.locator('#no-payments').waitFor();
    const bad = await page.goto(`${consoleUrl}/payments?amount_from=lots`);
    expect(bad!.status()).toBe(400);
    await accessible(page);
  }, 120_000);
});

describe('payments list: metadata and store filters, CSV export', () => {
  const order = `order-${randomBytes(3).toString('hex')}`;
  let wanted: string[];
  let others: string[];
  beforeAll(async () => {
    wanted = [
      await successfulCharge('shop', 1100, 'csv@example.test', { order, note: MARKUP }),
      await successfulCharge('shop', 1200, 'csv@example.test', { order, note: '=HYPERLINK("http://x")' }),
    ];
    others = [
      await successfulCharge('shop', 1300, 'csv@example.test', { order: `${order}-not` }),
      await successfulCharge('other', 1100, 'csv@example.test', { order }),
    ];
  }, 60_000);

  const shown = (page: Page) =>
    page
      .locator('#payments tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-charge-id')));

  it('filters by a metadata entry and by store, in the URL; another merchant’s store is a missing page', async () => {
    const page = await signIn(await newContext(), users.viewer);
    await page.goto(`${consoleUrl}/payments`);
    await page.getByLabel('Metadata key').fill('order');
    await page.getByLabel('Metadata value').fill(order);
    await page.getByLabel('Store').selectOption(shop.store.id);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#payments').waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('metadata_key')).toBe('order');
    expect(url.searchParams.get('metadata_value')).toBe(order);
    expect(url.searchParams.get('store')).toBe(shop.store.id);
    expect(await shown(page)).toEqual([...wanted].reverse());
    // the store's name shows as text, the option selected
    expect(await page.locator('#store option:checked').textContent()).toBe(shop.store.name);
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'payments-filtered.png'), fullPage: true });
    // a key without its value is a bad filter
    const half = await page.goto(`${consoleUrl}/payments?metadata_key=order`);
    expect(half!.status()).toBe(400);
    expect(await page.locator('#filter-error').textContent()).toContain('metadata_value');
    const foreign = await page.goto(`${consoleUrl}/payments?store=${suite.merchants.other.store.id}`);
    expect(foreign!.status()).toBe(404);
    const unknown = await page.goto(`${consoleUrl}/payments?store=${crypto.randomUUID()}`);
    expect(unknown!.status()).toBe(404);
  });

  it('exports the current filter as CSV from the browser: its rows only, merchant text as data', async () => {
    const page = await signIn(await newContext(), users.viewer);
    await page.goto(
      `${consoleUrl}/payments?metadata_key=order&metadata_value=${encodeURIComponent(order)}&email=csv@example.test`,
    );
    const download = page.waitForEvent('download');
    await page.locator('#export-csv').click();
    const file = await (await download).path();
    const records: Record<string, string>[] = parse(readFileSync(file, 'utf8'), { columns: true });
    expect(records.map((r) => r.id)).toEqual([...wanted].reverse());
    expect(records[1]).toMatchObject({
      status: 'successful',
      mode: 'test',
      store_id: shop.store.id,
      requested_amount: '1100',
      requested_currency: 'JPY',
    });
    expect(JSON.parse(records[1].metadata)).toEqual({ order, note: MARKUP });
    // the metadata cell is JSON, its formula-looking value a string inside it
    expect(JSON.parse(records[0].metadata)).toEqual({ order, note: '=HYPERLINK("http://x")' });
  });

  it('another merchant’s export holds none of this merchant’s rows, and cannot name its store', async () => {
    const formulaStore = `=HYPERLINK("http://x") ${randomBytes(2).toString('hex')}`;
    await suite.env.prisma.store.update({
      where: { id: suite.merchants.other.store.id },
      data: { name: formulaStore },
    });
    const context = await newContext();
    await signIn(context, users.other);
    const mine = await context.request.get(
      `${consoleUrl}/payments/export.csv?metadata_key=order&metadata_value=${encodeURIComponent(order)}`,
    );
    expect(mine.status()).toBe(200);
    expect(mine.headers()['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parse<{ id: string; store_name: string }>(await mine.text(), { columns: true });
    expect(rows.map((r) => r.id)).toEqual([others[1]]);
    // a store name a spreadsheet would run as a formula is written as text
    expect(rows[0].store_name).toBe(`'${formulaStore}`);
    const foreign = await context.request.get(`${consoleUrl}/payments/export.csv?store=${shop.store.id}`);
    expect(foreign.status()).toBe(404);
    expect(await foreign.text()).not.toContain(wanted[0]);
    // and without a session there is no export at all
    const anonymous = await (
      await newContext()
    ).request.get(`${consoleUrl}/payments/export.csv`, {
      maxRedirects: 0,
    });
    expect(anonymous.status()).toBe(303);
  });
});

describe('capture and cancel', () => {
  const auditOf = (targetId: string) => suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId } });

  it('an admin captures part of an authorized payment through the API’s use case, with its audit row', async () => {
    const chargeId = await cardCharge('shop', { amount: 4000, capture: false });
    const page = await signIn(await newContext(), users.admin);
    await page.goto(`${consoleUrl}/payments/${chargeId}`);
    expect(await page.locator('#charge-status').textContent()).toBe('authorized');
    // nothing to refund yet; capture and cancel are offered
    expect(await page.locator('form.refund').count()).toBe(0);
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'payment-authorized.png'), fullPage: true });
    // more than authorized: the use case's refusal, shown on the page, nothing written
    await page.getByLabel('Amount to capture (JPY)').fill('4001');
    await page.getByRole('button', { name: 'Capture' }).click();
    expect(await page.locator('#action-error').textContent()).toBe(
      'The capture was refused: CAPTURE_AMOUNT_TOO_LARGE',
    );
    expect(await suite.env.prisma.capture.count({ where: { chargeId } })).toBe(0);
    await page.getByLabel('Amount to capture (JPY)').fill('2500');
    await page.getByRole('button', { name: 'Capture' }).click();
    await page.locator('#notice').waitFor();
    const capture = await suite.env.prisma.capture.findUniqueOrThrow({ where: { chargeId } });
    expect(capture).toMatchObject({ amount: 2500n, currency: 'JPY' });
    const admin = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email: users.admin } });
    expect(await auditOf(capture.id)).toEqual([
      expect.objectContaining({
        userId: admin.id,
        action: 'charge.capture',
        targetType: 'capture',
        mode: 'test',
        detail: { amount: '2500', currency: 'JPY', charge_id: chargeId },
      }),
    ]);
    // charge-service captures it: the charge is successful for 2500, refundable for as much
    const captured = await eventually(
      async () => {
        const row = await suite.env.prisma.charge.findUnique({ where: { id: chargeId } });
        return row?.status === 'successful' ? row : null;
      },
      { timeoutMs: 20_000, what: `charge ${chargeId} captured` },
    );
    expect(captured.chargedAmount).toBe(2500n);
    await page.reload();
    expect(await page.locator('#refundable').textContent()).toBe('2500 JPY');
    expect(await page.locator('form.capture, form.cancel').count()).toBe(0);
    // the same form sent again is refused, writing nothing more
    const again = await page.context().request.post(`${consoleUrl}/payments/${chargeId}/capture`, {
      form: { _csrf: await csrfOf(page), amount: '2500' },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(400);
    expect(await auditOf(capture.id)).toHaveLength(1);
  });

  it('an owner cancels an authorized payment once, however often the form is sent', async () => {
    const chargeId = await cardCharge('shop', { amount: 1800, capture: false });
    const context = await newContext();
    const page = await signIn(context, users.owner);
    await page.goto(`${consoleUrl}/payments/${chargeId}`);
    const form = {
      _csrf: await csrfOf(page),
      cancel_id: await page.locator('input[name="cancel_id"]').inputValue(),
    };
    for (let i = 0; i < 2; i++) {
      const answer = await context.request.post(`${consoleUrl}/payments/${chargeId}/cancel`, {
        form,
        maxRedirects: 0,
      });
      expect(answer.status()).toBe(303);
    }
    const cancels = await suite.env.prisma.cancel.findMany({ where: { chargeId } });
    expect(cancels.map((c) => c.id)).toEqual([form.cancel_id]);
    expect(await auditOf(form.cancel_id)).toEqual([
      expect.objectContaining({
        action: 'charge.cancel',
        targetType: 'cancel',
        detail: { charge_id: chargeId },
      }),
    ]);
    await eventually(
      async () =>
        (await suite.env.prisma.charge.findUnique({ where: { id: chargeId } }))?.status === 'canceled' ||
        null,
      { timeoutMs: 20_000, what: `charge ${chargeId} canceled` },
    );
    await page.reload();
    expect(await page.locator('#charge-status').textContent()).toBe('canceled');
    expect(await page.locator('form.capture, form.cancel, form.refund').count()).toBe(0);
    await page.locator('#events li[data-event-type="cancel_finished"]').waitFor();
    await accessible(page);
  });

  it('a viewer is shown neither action and refused both; another merchant’s user gets a missing page', async () => {
    const chargeId = await cardCharge('shop', { amount: 900, capture: false });
    const context = await newContext();
    const page = await signIn(context, users.viewer);
    await page.goto(`${consoleUrl}/payments/${chargeId}`);
    expect(await page.locator('form.capture, form.cancel').count()).toBe(0);
    const csrf = await csrfOf(page);
    for (const [action, form] of [
      ['capture', { _csrf: csrf, amount: '900' }],
      ['cancel', { _csrf: csrf, cancel_id: crypto.randomUUID() }],
    ] as const) {
      const refused = await context.request.post(`${consoleUrl}/payments/${chargeId}/${action}`, {
        form,
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
    }
    const otherContext = await newContext();
    const other = await signIn(otherContext, users.other);
    const otherCsrf = await csrfOf(other);
    for (const [action, form] of [
      ['capture', { _csrf: otherCsrf, amount: '900' }],
      ['cancel', { _csrf: otherCsrf, cancel_id: crypto.randomUUID() }],
    ] as const) {
      const missing = await otherContext.request.post(`${consoleUrl}/payments/${chargeId}/${action}`, {
        form,
        maxRedirects: 0,
      });
      expect(missing.status()).toBe(404);
    }
    // and a capture without its CSRF token is refused before anything runs
    const adminContext = await newContext();
    await signIn(adminContext, users.admin);
    const noToken = await adminContext.request.post(`${consoleUrl}/payments/${chargeId}/capture`, {
      form: { amount: '900' },
      maxRedirects: 0,
    });
    expect(noToken.status()).toBe(403);
    expect(await suite.env.prisma.capture.count({ where: { chargeId } })).toBe(0);
    expect(await suite.env.prisma.cancel.count({ where: { chargeId } })).toBe(0);
    expect((await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: chargeId } })).status).toBe(
      'authorized',
    );
  });
});

describe('subscriptions', () => {
  let subscriptionId: string;
  let otherSubscriptionId: string;
  beforeAll(async () => {
    const subscription = async (merchant: SeededMerchant, amount: number) => {
      const token = await insertCardToken(suite.env, merchant, {
        cardNumber: '4242424242424242',
        type: 'recurring',
      });
      const id = await insertSubscription(suite.env, merchant, token, { amount });
      // as after its first payment: current, with merchant text in its metadata
      await suite.env.prisma.subscription.update({
        where: { id },
        data: { status: 'current', metadata: { note: MARKUP } },
      });
      return id;
    };
    subscriptionId = await subscription(shop, 3300);
    otherSubscriptionId = await subscription(suite.merchants.other, 4400);
  }, 60_000);

  it('a viewer sees the list and a subscription, its text escaped, and is refused every move', async () => {
    const context = await newContext();
    const page = await signIn(context, users.viewer);
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('heading', { name: 'Subscriptions', level: 1 }).waitFor();
    await page.getByLabel('Status').selectOption('current');
    await page.getByRole('button', { name: 'Apply' }).click();
    expect(new URL(page.url()).searchParams.get('status')).toBe('current');
    const listed = await page
      .locator('#subscriptions tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-subscription-id')));
    expect(listed).toContain(subscriptionId);
    expect(listed).not.toContain(otherSubscriptionId);
    await accessible(page);
    await page.getByRole('link', { name: subscriptionId }).click();
    expect(await page.locator('#subscription-status').textContent()).toBe('current');
    expect(await page.locator('.metadata dd').first().textContent()).toBe(MARKUP);
    expect(await page.locator('main script, main img').count()).toBe(0);
    expect(await page.locator('#scheduled-payments tbody tr').count()).toBe(1);
    expect(await page.locator('form.subscription-action').count()).toBe(0);
    await accessible(page);
    const csrf = await csrfOf(page);
    for (const action of ['suspend', 'unsuspend', 'cancel']) {
      const refused = await context.request.post(`${consoleUrl}/subscriptions/${subscriptionId}/${action}`, {
        form: { _csrf: csrf },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
    }
    expect(
      (await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).status,
    ).toBe('current');
  });

  it('another merchant’s subscription is a missing page, for reading and for every move', async () => {
    const context = await newContext();
    const page = await signIn(context, users.other);
    expect((await page.goto(`${consoleUrl}/subscriptions/${subscriptionId}`))!.status()).toBe(404);
    expect((await page.goto(`${consoleUrl}/subscriptions/not-an-id`))!.status()).toBe(404);
    await page.goto(`${consoleUrl}/subscriptions`);
    const csrf = await csrfOf(page);
    for (const action of ['suspend', 'unsuspend', 'cancel']) {
      const missing = await context.request.post(`${consoleUrl}/subscriptions/${subscriptionId}/${action}`, {
        form: { _csrf: csrf },
        maxRedirects: 0,
      });
      expect(missing.status()).toBe(404);
    }
    expect(
      (await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).status,
    ).toBe('current');
  });

  it('an admin suspends, unsuspends and cancels through the API’s use cases, each with its audit row', async () => {
    const page = await signIn(await newContext(), users.admin);
    await page.goto(`${consoleUrl}/subscriptions/${subscriptionId}`);
    await page.screenshot({ path: join(SHOTS, 'subscription.png'), fullPage: true });
    const status = () => page.locator('#subscription-status').textContent();
    await page.getByRole('button', { name: 'Suspend' }).click();
    await page.locator('#notice').waitFor();
    expect(await status()).toBe('suspended');
    // suspended: suspend is no longer offered, and sent anyway it is the use case's refusal
    expect(await page.locator('#suspend-button').count()).toBe(0);
    const again = await page.context().request.post(`${consoleUrl}/subscriptions/${subscriptionId}/suspend`, {
      form: { _csrf: await csrfOf(page) },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(400);
    expect(await again.text()).toContain('The change was refused');
    await page.getByRole('button', { name: 'Resume (unsuspend)' }).click();
    await page.locator('#notice').waitFor();
    expect(await status()).toBe('unpaid');
    await page.getByRole('button', { name: 'Cancel the subscription' }).click();
    await page.locator('#notice').waitFor();
    expect(await status()).toBe('canceled');
    expect(await page.locator('form.subscription-action').count()).toBe(0);
    await accessible(page);
    const audit = await suite.env.prisma.consoleAuditEvent.findMany({
      where: { targetId: subscriptionId },
      orderBy: { createdOn: 'asc' },
    });
    expect(audit.map((a) => [a.action, a.targetType, a.detail])).toEqual([
      ['subscription.suspend', 'subscription', { from: 'current' }],
      ['subscription.unsuspend', 'subscription', { from: 'suspended' }],
      ['subscription.cancel', 'subscription', { from: 'unpaid' }],
    ]);
    // the API's events of those moves
    const events = await suite.env.prisma.outboxEvent.findMany({
      where: { aggregateId: subscriptionId },
      orderBy: { sequence: 'asc' },
    });
    expect(events.map((e) => e.eventType)).toEqual(
      expect.arrayContaining(['subscription_suspended', 'subscription_canceled']),
    );
  });
});

describe('the audit log', () => {
  it('shows the owner every console write of the merchant, who and from where; a viewer is refused; another merchant sees none', async () => {
    const page = await signIn(await newContext(), users.owner);
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const stored = await suite.env.prisma.consoleAuditEvent.findMany({
      where: { merchantId: shop.merchant.id },
    });
    expect(stored.length).toBeGreaterThan(0);
    const shown = await page
      .locator('#audit tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-target-id')));
    expect(shown.sort()).toEqual(stored.map((a) => a.targetId).sort());
    const suspend = page.locator('#audit tr[data-audit-action="subscription.suspend"]');
    expect(await suspend.locator('td').nth(1).textContent()).toBe(users.admin);
    expect(await suspend.locator('td').nth(6).textContent()).toContain('127.0.0.1');
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'audit-log.png'), fullPage: true });

    const viewer = await signIn(await newContext(), users.viewer);
    expect(await viewer.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    expect((await viewer.goto(`${consoleUrl}/settings/audit`))!.status()).toBe(403);
    const other = await signIn(await newContext(), users.other);
    await other.goto(`${consoleUrl}/settings/audit`);
    await other.locator('#no-audit').waitFor();
  });
});

describe('sessions', () => {
  it('sign-out everywhere ends the user’s other sessions', async () => {
    const first = await signIn(await newContext(), users.owner);
    const second = await signIn(await newContext(), users.owner);
    await first.getByRole('button', { name: 'Sign out everywhere' }).click();
    await first.getByRole('heading', { name: 'Sign in' }).waitFor();
    await second.goto(`${consoleUrl}/payments`);
    expect(new URL(second.url()).pathname).toBe('/sign-in');
  });

  it('sign-out ends this session only', async () => {
    const first = await signIn(await newContext(), users.viewer);
    const second = await signIn(await newContext(), users.viewer);
    await first.getByRole('button', { name: 'Sign out', exact: true }).click();
    await first.getByRole('heading', { name: 'Sign in' }).waitFor();
    await second.goto(`${consoleUrl}/payments`);
    expect(new URL(second.url()).pathname).toBe('/payments');
  });

  it('a session past its expiry is signed out', async () => {
    const context = await newContext();
    const page = await signIn(context, users.viewer);
    await suite.env.prisma.loginSession.updateMany({
      where: { user: { email: users.viewer }, revokedOn: null },
      data: { expiresOn: new Date(Date.now() - 1000) },
    });
    await page.goto(`${consoleUrl}/payments`);
    expect(new URL(page.url()).pathname).toBe('/sign-in');
  });

  it('speaks Japanese when asked', async () => {
    const page = await signIn(await newContext(), users.viewer);
    await page.getByRole('link', { name: '日本語' }).click();
    await page.getByRole('heading', { name: '概要', level: 1 }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('ja');
    await accessible(page);
  });
});
