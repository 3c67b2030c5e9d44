// The console's overview and test clocks (docs/console.md, "Overview", "Test clocks") in a real
// browser: Debian's chromium through playwright-core against the console and the gateway in this
// process, charge-service, refund-cancel-service, subscription-service and ledger-service as
// processes and the processor simulator (the outside world). Charges and a refund made through the
// API show up on the overview per day of the merchant's time zone, with the success rate and the
// ledger's balance; another merchant's never count; an empty range and a bad one. A test clock an
// admin creates and advances moves the real engine, which charges the subscription's due payment.
// axe-core checks every page; screenshots go to test-results/console/.
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  axeViolations,
  eventually,
  insertCardToken,
  insertSubscription,
  launchChromium,
  paymentsOf,
  testClockIsReady,
  type SeededMerchant,
} from '@kessai/testing';
import * as harness from './console-harness';
import { CONSOLE_SHOTS as SHOTS, csrfOf, useConsoleSuite } from './console-harness';

jest.setTimeout(120_000);

const DECLINED_CARD = '4111111111111111';
const TIME_ZONE = 'Asia/Tokyo';

const suite = useConsoleSuite(
  ['charge-service', 'refund-cancel-service', 'subscription-service', 'ledger-service'],
  { LEDGER_POST_INTERVAL_MS: '100', SUBSCRIPTION_SCHEDULER_IDLE_MS: '50' },
);

let browser: Browser;
let consoleUrl: string;
let shop: SeededMerchant;
const password = `pw-${randomBytes(6).toString('hex')}`;
const users: Record<'admin' | 'viewer' | 'other', string> = {
  admin: `admin-${randomBytes(3).toString('hex')}@example.test`,
  viewer: `viewer-${randomBytes(3).toString('hex')}@example.test`,
  other: `other-${randomBytes(3).toString('hex')}@example.test`,
};

const newContext = () => harness.newContext(suite, browser);
const signIn = (context: BrowserContext, email: string) =>
  harness.signIn(context, consoleUrl, email, password);

async function accessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

/** The calendar day of an instant in the merchant's time zone (its display_time_zone). */
const localDay = (at: Date) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);

/** A card charge through the API, awaited to its final status. */
async function charge(
  merchant: 'shop' | 'other',
  amount: number,
  options: { currency?: string; card?: string; status?: string } = {},
) {
  const api = suite.api[merchant];
  const created = await api.charge(await api.cardToken({ cardNumber: options.card }), {
    amount,
    currency: options.currency ?? 'JPY',
  });
  const wanted = options.status ?? 'successful';
  return eventually(
    async () => {
      const row = await suite.env.prisma.charge.findUniqueOrThrow({ where: { id: created.id as string } });
      return row.status === wanted ? row : null;
    },
    { timeoutMs: 30_000, what: `charge ${created.id} ${wanted}` },
  );
}

/** The cells of a table's row whose data-day is `day`. */
const dayCells = (page: Page, table: string, day: string) =>
  page.locator(`#${table} tr[data-day="${day}"] td`).allTextContents();

beforeAll(async () => {
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
  mkdirSync(SHOTS, { recursive: true });
  shop = suite.merchants.shop;
  await suite.env.admin.createUser({
    merchantId: shop.merchant.id,
    email: users.admin,
    password,
    role: 'admin',
  });
  await suite.env.admin.createUser({
    merchantId: shop.merchant.id,
    email: users.viewer,
    password,
    role: 'viewer',
  });
  // the other merchant's admin: whatever its role, it reaches its own merchant only
  await suite.env.admin.createUser({
    merchantId: suite.merchants.other.merchant.id,
    email: users.other,
    password,
    role: 'admin',
  });
  consoleUrl = await harness.startConsole(suite);
}, 90_000);

describe('the overview', () => {
  let today: string;
  let days: Map<string, { count: number; amount: bigint; refunds: number; refunded: bigint }>;
  let owedPending: bigint;
  let refundAmount: bigint;

  beforeAll(async () => {
    // the shop: two JPY sales, one USD sale, one decline; 400 JPY refunded of the first sale
    const first = await charge('shop', 1000);
    const second = await charge('shop', 2500);
    const dollars = await charge('shop', 1250, { currency: 'USD' });
    const declined = await charge('shop', 700, { card: DECLINED_CARD, status: 'failed' });
    // the other merchant's sale, which the shop's overview never counts
    await charge('other', 9000);
    const refund = await suite.api.shop.request(`/stores/${shop.store.id}/charges/${first.id}/refunds`, {
      method: 'POST',
      json: { amount: 400, currency: 'JPY' },
    });
    expect(refund.status).toBe(201);
    const refundId = (refund.body as { id: string }).id;
    const refunded = await eventually(
      async () => {
        const row = await suite.env.prisma.refund.findUniqueOrThrow({ where: { id: refundId } });
        return row.status === 'successful' ? row : null;
      },
      { timeoutMs: 30_000, what: 'the refund to succeed' },
    );
    refundAmount = refunded.amount;
    // what the ledger posted for the JPY sales (gross less the fee) and the refund
    const postings = await eventually(
      async () => {
        const rows = await suite.env.prisma.ledgerTransaction.findMany({
          where: { sourceId: { in: [first.id, second.id, refundId] } },
        });
        return rows.length === 3 ? rows : null;
      },
      { timeoutMs: 30_000, what: 'the sales and the refund to be posted' },
    );
    owedPending = postings
      .filter((posting) => posting.kind === 'sale')
      .reduce((sum, posting) => sum + posting.amount - posting.feeAmount, 0n);
    today = localDay(new Date());
    days = new Map();
    for (const row of [first, second]) {
      const day = localDay(row.createdOn);
      const total = days.get(day) ?? { count: 0, amount: 0n, refunds: 0, refunded: 0n };
      total.count += 1;
      total.amount += row.chargedAmount!;
      days.set(day, total);
    }
    const refundDay = days.get(localDay(refunded.createdOn)) ?? {
      count: 0,
      amount: 0n,
      refunds: 0,
      refunded: 0n,
    };
    refundDay.refunds += 1;
    refundDay.refunded += refunded.amount;
    days.set(localDay(refunded.createdOn), refundDay);
    expect(declined.status).toBe('failed');
    expect(dollars.chargedCurrency).toBe('USD');
  }, 120_000);

  it('lands on the overview after sign-in: the last 30 days per day, the success rate, refunds and the balance', async () => {
    const page = await signIn(await newContext(), users.viewer);
    expect(new URL(page.url()).pathname).toBe('/overview');
    expect(await page.locator('#time-zone').textContent()).toBe(TIME_ZONE);
    expect(await page.locator('#to').inputValue()).toBe(today);
    // the totals per currency: JPY and USD apart, never added
    expect(await page.locator('#totals tr[data-currency="JPY"] td').allTextContents()).toEqual([
      'JPY',
      '2',
      '3500 JPY',
      '1',
      `${refundAmount} JPY`,
    ]);
    expect(await page.locator('#totals tr[data-currency="USD"] td').allTextContents()).toEqual([
      'USD',
      '1',
      '12.50 USD',
      '0',
      '0.00 USD',
    ]);
    // each day's numbers, in the merchant's time zone
    for (const [day, total] of days) {
      expect(await dayCells(page, 'days-JPY', day)).toEqual([
        day,
        String(total.count),
        `${total.amount} JPY`,
        String(total.refunds),
        `${total.refunded} JPY`,
      ]);
    }
    // three of four finished payments succeeded (the other merchant's sale is not one of them)
    expect(await page.locator('#success-rate').textContent()).toBe('75.0 %');
    // the charts: one per currency for volume and refunds, each an image with its title
    for (const chart of [
      'chart-count',
      'chart-rate',
      'chart-volume-JPY',
      'chart-volume-USD',
      'chart-refunds-JPY',
    ])
      expect(await page.locator(`svg#${chart}`).getAttribute('role')).toBe('img');
    expect(await page.locator('svg#chart-refunds-USD').count()).toBe(0);
    expect(await page.locator('svg#chart-volume-JPY title').first().textContent()).toContain('Volume in JPY');
    // the ledger's balance rows: the sales pending, the refund taken from what is available
    expect(await page.locator('#balances tr[data-currency="JPY"] td').allTextContents()).toEqual([
      'JPY',
      `${owedPending} JPY`,
      `${-refundAmount} JPY`,
    ]);
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'overview.png'), fullPage: true });
  });

  it('another merchant’s overview counts its own payments only', async () => {
    const page = await signIn(await newContext(), users.other);
    expect(await page.locator('#totals tr[data-currency="JPY"] td').allTextContents()).toEqual([
      'JPY',
      '1',
      '9000 JPY',
      '0',
      '0 JPY',
    ]);
    expect(await page.locator('#totals tr[data-currency="USD"]').count()).toBe(0);
    expect(await page.locator('#success-rate').textContent()).toBe('100.0 %');
  });

  it('an empty range shows an empty state; live mode shows none of the test data', async () => {
    const page = await signIn(await newContext(), users.viewer);
    const answer = await page.goto(`${consoleUrl}/overview?from=2020-01-01&to=2020-01-31`);
    expect(answer!.status()).toBe(200);
    await page.locator('#overview-empty').waitFor();
    expect(await page.locator('svg.chart').count()).toBe(0);
    // the balance is today's, whatever the range
    expect(await page.locator('#balances tr[data-currency="JPY"]').count()).toBe(1);
    await accessible(page);
    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    await page.goto(`${consoleUrl}/overview`);
    expect(await page.locator('#mode').textContent()).toBe('Live mode');
    await page.locator('#overview-empty').waitFor();
    await page.locator('#no-balance').waitFor();
  });

  it('speaks Japanese, the charts’ titles and descriptions included', async () => {
    const page = await signIn(await newContext(), users.viewer);
    await page.getByRole('link', { name: '日本語' }).click();
    await page.getByRole('heading', { name: '概要', level: 1 }).waitFor();
    expect(await page.locator('#chart-volume-JPY-title').textContent()).toBe('JPYの取扱高');
    expect(await page.locator('#chart-rate-desc').textContent()).toContain('成功した割合');
    await accessible(page);
  });

  it('a bad range in the URL is the page again, 400, naming it', async () => {
    const page = await signIn(await newContext(), users.viewer);
    for (const [query, named] of [
      ['from=2026-13-01', 'from'],
      ['from=yesterday', 'from'],
      ['from=2026-02-01&to=2026-01-01', 'to'],
      ['from=2020-01-01&to=2026-01-01', 'from'],
      ['from=2026-01-01&from=2026-01-02', 'from'],
    ]) {
      const answer = await page.goto(`${consoleUrl}/overview?${query}`);
      expect([query, answer!.status()]).toEqual([query, 400]);
      expect(await page.locator('#range-error').textContent()).toContain(named);
      expect(await page.locator('svg.chart').count()).toBe(0);
    }
    await accessible(page);
  });
});

describe('test clocks', () => {
  const FROZEN = '2025-01-31T03:00:00.000Z';
  let clockId: string;
  let subscriptionId: string;

  const clockRow = () => suite.env.prisma.testClock.findUniqueOrThrow({ where: { id: clockId } });
  const auditOf = () =>
    suite.env.prisma.consoleAuditEvent.findMany({
      where: { targetId: clockId },
      orderBy: { createdOn: 'asc' },
    });

  it('an admin creates a clock; its subscription’s first payment is charged at the clock’s time', async () => {
    const page = await signIn(await newContext(), users.admin);
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('link', { name: 'Test clocks' }).click();
    await page.getByRole('heading', { name: 'Test clocks', level: 1 }).waitFor();
    await accessible(page);
    await page.getByLabel('Clock time').fill(FROZEN);
    await page.getByLabel('Name (optional)').fill('January');
    await page.getByRole('button', { name: 'Create the test clock' }).click();
    await page.locator('#notice').waitFor();
    clockId = new URL(page.url()).pathname.split('/').pop()!;
    expect(await page.locator('#frozen-time-value').textContent()).toBe(FROZEN);
    expect(await clockRow()).toMatchObject({ merchantId: shop.merchant.id, name: 'January' });
    const token = await insertCardToken(suite.env, shop, {
      cardNumber: '4242424242424242',
      type: 'recurring',
    });
    subscriptionId = await insertSubscription(suite.env, shop, token, {
      amount: 1500,
      createdAt: new Date(FROZEN),
      testClockId: clockId,
    });
    await eventually(
      async () =>
        (await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).status ===
        'current',
      { timeoutMs: 60_000, what: 'the first payment on the clock to be paid' },
    );
    await page.goto(`${consoleUrl}/subscriptions/${subscriptionId}`);
    expect(await page.locator('#subscription-test-clock').textContent()).toBe(clockId);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks`);
    expect(
      await page
        .locator('#test-clocks tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-test-clock-id'))),
    ).toContain(clockId);
    await page.screenshot({ path: join(SHOTS, 'test-clocks.png'), fullPage: true });
  });

  it('an admin advances the clock: the engine charges the payment that fell due; each write has its audit row', async () => {
    const page = await signIn(await newContext(), users.admin);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`);
    // an earlier time is the use case's refusal: nothing moves, no audit row
    await page.getByLabel('Advance to').fill('2025-01-01T00:00:00Z');
    await page.getByRole('button', { name: 'Advance the clock' }).click();
    expect(await page.locator('#action-error').textContent()).toContain('MUST_BE_FUTURE_TIME');
    expect((await clockRow()).frozenTime.toISOString()).toBe(FROZEN);
    await page.getByLabel('Advance to').fill('2025-03-15T00:30:00Z');
    await page.getByRole('button', { name: 'Advance the clock' }).click();
    await page.locator('#notice').waitFor();
    expect((await clockRow()).frozenTime.toISOString()).toBe('2025-03-15T00:30:00.000Z');
    await eventually(() => testClockIsReady(suite.env, clockId), {
      timeoutMs: 60_000,
      what: 'the engine to charge what fell due on the clock',
    });
    const [first, second, third] = await paymentsOf(suite.env, subscriptionId);
    expect(first).toMatchObject({ status: 'paid' });
    expect(second).toMatchObject({ status: 'paid', amount: 1500n });
    expect(second.charges.map((c) => c.status)).toEqual(['successful']);
    expect(third).toMatchObject({ status: 'pending' });
    await page.reload();
    expect(await page.locator('#clock-status').textContent()).toBe('ready');
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'test-clock.png'), fullPage: true });
    const audit = await auditOf();
    expect(audit.map((a) => [a.action, a.targetType, a.mode, a.detail])).toEqual([
      ['test_clock.create', 'test_clock', 'test', { frozen_time: FROZEN, name: 'January' }],
      ['test_clock.advance', 'test_clock', 'test', { from: FROZEN, to: '2025-03-15T00:30:00.000Z' }],
    ]);
    const admin = await suite.env.prisma.merchantUser.findFirstOrThrow({ where: { email: users.admin } });
    expect(audit.every((a) => a.userId === admin.id && a.merchantId === shop.merchant.id)).toBe(true);
  });

  it('a viewer reads the clocks but is refused every write; a CSRF-less POST is refused', async () => {
    const context = await newContext();
    const page = await signIn(context, users.viewer);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks`);
    expect(await page.locator('form[action="/subscriptions/test-clocks"]').count()).toBe(0);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`);
    expect(await page.locator('#clock-status').textContent()).toBe('ready');
    expect(await page.locator('#advance-button').count()).toBe(0);
    const csrf = await csrfOf(page);
    const clocksBefore = await suite.env.prisma.testClock.count({ where: { merchantId: shop.merchant.id } });
    const created = await context.request.post(`${consoleUrl}/subscriptions/test-clocks`, {
      form: { _csrf: csrf, frozen_time: FROZEN },
      maxRedirects: 0,
    });
    expect(created.status()).toBe(403);
    const advanced = await context.request.post(
      `${consoleUrl}/subscriptions/test-clocks/${clockId}/advance`,
      {
        form: { _csrf: csrf, frozen_time: '2026-01-01T00:00:00Z' },
        maxRedirects: 0,
      },
    );
    expect(advanced.status()).toBe(403);
    const adminContext = await newContext();
    await signIn(adminContext, users.admin);
    const noToken = await adminContext.request.post(
      `${consoleUrl}/subscriptions/test-clocks/${clockId}/advance`,
      {
        form: { frozen_time: '2026-01-01T00:00:00Z' },
        maxRedirects: 0,
      },
    );
    expect(noToken.status()).toBe(403);
    expect(await suite.env.prisma.testClock.count({ where: { merchantId: shop.merchant.id } })).toBe(
      clocksBefore,
    );
    expect((await clockRow()).frozenTime.toISOString()).toBe('2025-03-15T00:30:00.000Z');
    expect(await auditOf()).toHaveLength(2);
  });

  it('another merchant’s clock is a missing page, for reading and advancing', async () => {
    const context = await newContext();
    const page = await signIn(context, users.other);
    expect((await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`))!.status()).toBe(404);
    expect((await page.goto(`${consoleUrl}/subscriptions/test-clocks/not-an-id`))!.status()).toBe(404);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks`);
    expect(await page.locator(`tr[data-test-clock-id="${clockId}"]`).count()).toBe(0);
    const missing = await context.request.post(`${consoleUrl}/subscriptions/test-clocks/${clockId}/advance`, {
      form: { _csrf: await csrfOf(page), frozen_time: '2026-01-01T00:00:00Z' },
      maxRedirects: 0,
    });
    expect(missing.status()).toBe(404);
    expect((await clockRow()).frozenTime.toISOString()).toBe('2025-03-15T00:30:00.000Z');
  });

  it('live mode shows no clock, and refuses a clock’s creation', async () => {
    const context = await newContext();
    const page = await signIn(context, users.admin);
    await page.getByRole('button', { name: 'Switch to live mode' }).click();
    await page.goto(`${consoleUrl}/subscriptions`);
    expect(await page.locator('#test-clocks-link').count()).toBe(0);
    await page.goto(`${consoleUrl}/subscriptions/test-clocks`);
    await page.locator('#test-clocks-live').waitFor();
    await accessible(page);
    expect(await page.locator('#test-clocks, form[action="/subscriptions/test-clocks"]').count()).toBe(0);
    expect((await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`))!.status()).toBe(404);
    const clocksBefore = await suite.env.prisma.testClock.count({ where: { merchantId: shop.merchant.id } });
    const refused = await context.request.post(`${consoleUrl}/subscriptions/test-clocks`, {
      form: { _csrf: await csrfOf(page), frozen_time: FROZEN },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await suite.env.prisma.testClock.count({ where: { merchantId: shop.merchant.id } })).toBe(
      clocksBefore,
    );
    const deleteInLive = await context.request.post(
      `${consoleUrl}/subscriptions/test-clocks/${clockId}/delete`,
      {
        form: { _csrf: await csrfOf(page) },
        maxRedirects: 0,
      },
    );
    expect(deleteInLive.status()).toBe(403);
    expect((await clockRow()).deletedOn).toBeNull();
  });

  it('deleting a clock: refused to a viewer, without CSRF and to another merchant; an admin’s cancels its subscription, with its audit row', async () => {
    const deleteFrom = (context: BrowserContext, csrf?: string) =>
      context.request.post(`${consoleUrl}/subscriptions/test-clocks/${clockId}/delete`, {
        form: csrf === undefined ? {} : { _csrf: csrf },
        maxRedirects: 0,
      });
    const viewerContext = await newContext();
    const viewer = await signIn(viewerContext, users.viewer);
    await viewer.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`);
    expect(await viewer.locator('#delete-clock-button').count()).toBe(0);
    expect((await deleteFrom(viewerContext, await csrfOf(viewer))).status()).toBe(403);
    const otherContext = await newContext();
    const other = await signIn(otherContext, users.other);
    expect((await deleteFrom(otherContext, await csrfOf(other))).status()).toBe(404);
    const adminContext = await newContext();
    const page = await signIn(adminContext, users.admin);
    expect((await deleteFrom(adminContext)).status()).toBe(403);
    expect((await clockRow()).deletedOn).toBeNull();
    expect(await auditOf()).toHaveLength(2);

    await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`);
    await page.getByRole('button', { name: 'Delete the clock' }).click();
    await page.locator('#notice').waitFor();
    expect(new URL(page.url()).pathname).toBe('/subscriptions/test-clocks');
    await accessible(page);
    expect(await page.locator(`tr[data-test-clock-id="${clockId}"]`).count()).toBe(0);
    expect((await clockRow()).deletedOn).toBeInstanceOf(Date);
    expect(
      (await suite.env.prisma.subscription.findUniqueOrThrow({ where: { id: subscriptionId } })).status,
    ).toBe('canceled');
    const audit = await auditOf();
    expect(audit.map((a) => [a.action, a.mode, a.detail])).toEqual([
      expect.anything(),
      expect.anything(),
      [
        'test_clock.delete',
        'test',
        { name: 'January', frozen_time: '2025-03-15T00:30:00.000Z', canceled: 1 },
      ],
    ]);
    // gone: its page and a second delete are the missing page, writing nothing
    expect((await page.goto(`${consoleUrl}/subscriptions/test-clocks/${clockId}`))!.status()).toBe(404);
    expect((await deleteFrom(adminContext, await csrfOf(page))).status()).toBe(404);
    expect(await auditOf()).toHaveLength(3);
  });
});
