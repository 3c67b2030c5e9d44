// The console's store settings, removing a user and the payments CSV's customer columns
// (docs/console.md) in a real browser: Debian's chromium, headless, through playwright-core, against
// the console and the gateway in this process. An admin changes a store's name, checkout colours and
// configuration (PATCH /stores/{id}'s use case and rules: the page and GET /stores/{id} show it, with
// its audit row); refused input changes nothing; a viewer and a developer read and are refused;
// script-bearing names show as text; another merchant's store is a missing page. An owner removes a
// user, whose session ends at once and who authenticates no more; never oneself, never the last
// owner; another merchant's owner gets the missing page. axe-core checks each new page.
import { mkdirSync, readFileSync } from 'node:fs';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import {
  axeViolations,
  insertCardToken,
  insertPendingCharge,
  launchChromium,
  requestJson,
  solidPng,
  updateChargeRow,
  type SeededMerchant,
} from '@kessai/testing';
import {
  CONSOLE_SHOTS as SHOTS,
  csrfOf,
  newContext,
  signIn as signInAt,
  startConsole,
  useConsoleSuite,
} from './console-harness';

/** merchant-controlled text that would run if a page did not escape it */
const MARKUP = '<script>document.title="owned"</script><img src=x onerror=alert(1)>';
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
jest.setTimeout(90_000);

const suite = useConsoleSuite([]);

let browser: Browser;
let consoleUrl: string;
let shop: SeededMerchant;
const password = `pw-${randomBytes(6).toString('hex')}`;
const tag = () => randomBytes(3).toString('hex');
const users = {
  owner: `owner-${tag()}@example.test`,
  secondOwner: `owner2-${tag()}@example.test`,
  admin: `admin-${tag()}@example.test`,
  developer: `dev-${tag()}@example.test`,
  viewer: `viewer-${tag()}@example.test`,
  other: `other-${tag()}@example.test`,
} as const;

beforeAll(async () => {
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
  mkdirSync(SHOTS, { recursive: true });
  shop = suite.merchants.shop;
  const roles = {
    owner: 'owner',
    secondOwner: 'owner',
    admin: 'admin',
    developer: 'developer',
    viewer: 'viewer',
  } as const;
  for (const [who, role] of Object.entries(roles))
    await suite.env.admin.createUser({
      merchantId: shop.merchant.id,
      email: users[who as keyof typeof roles],
      password,
      role,
    });
  const otherId = suite.merchants.other.merchant.id;
  await suite.env.admin.createUser({ merchantId: otherId, email: users.other, password, role: 'owner' });
  consoleUrl = await startConsole(suite);
}, 90_000);

async function signIn(email: string, secret = password): Promise<Page> {
  return signInAt(await newContext(suite, browser), consoleUrl, email, secret);
}

async function accessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

const storeRow = (id: string) => suite.env.prisma.store.findUniqueOrThrow({ where: { id } });
const auditRows = (targetId: string) =>
  suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId }, orderBy: { createdOn: 'asc' } });

/** The store as the API answers GET /stores/{id} to the merchant's own token. */
async function storeThroughApi(id: string) {
  const answer = await suite.api.shop.request(`/stores/${id}`);
  expect(answer.status).toBe(200);
  return answer.body as {
    name: string;
    configuration: {
      checkout_colors: Record<string, string>;
      card_configuration: { forbidden_card_brands: string[] };
      display_time_zone: string;
    };
  };
}

describe('store settings', () => {
  it("an admin changes a store's name, colours and configuration: the page and GET /stores/{id} show it, with its audit row", async () => {
    const page = await signIn(users.admin);
    await page.getByRole('link', { name: 'Stores' }).click();
    await page.getByRole('heading', { name: 'Stores', level: 1 }).waitFor();
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'settings-stores.png'), fullPage: true });
    await page.locator(`#stores tr[data-store-id="${shop.store.id}"] a`).click();
    await page.locator('#store-form-title').waitFor();
    await accessible(page);

    const name = `Renamed ${tag()}`;
    await page.getByLabel('Store name', { exact: true }).fill(name);
    await page.getByLabel('main_color').fill('#123456');
    await page
      .getByLabel('Configuration change (JSON)')
      .fill(
        '{"card_configuration": {"forbidden_card_brands": ["jcb"]}, "display_time_zone": "Europe/London"}',
      );
    await page.getByRole('button', { name: 'Save the store' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#store-name-shown').textContent()).toBe(name);
    expect(await page.getByLabel('main_color').inputValue()).toBe('#123456');
    expect(await page.locator('#store-layer').textContent()).toContain('"Europe/London"');
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'settings-store.png'), fullPage: true });

    const api = await storeThroughApi(shop.store.id);
    expect(api.name).toBe(name);
    expect(api.configuration.checkout_colors.main_color).toBe('#123456');
    expect(api.configuration.card_configuration.forbidden_card_brands).toEqual(['jcb']);
    expect(api.configuration.display_time_zone).toBe('Europe/London');
    const audits = await auditRows(shop.store.id);
    expect(audits.map((row) => row.action)).toEqual(['store.update']);
    expect(audits[0].detail).toEqual({
      name,
      configuration: expect.arrayContaining(['card_configuration', 'display_time_zone', 'checkout_colors']),
    });

    // a blank colour returns it to the merchant's (here Kessai's default)
    await page.getByLabel('main_color').fill('');
    await page.getByRole('button', { name: 'Save the store' }).click();
    await page.locator('#notice').waitFor();
    expect((await storeThroughApi(shop.store.id)).configuration.checkout_colors.main_color).toBe('#0b57d0');
  });

  it('refused input shows the form’s error and changes nothing', async () => {
    const page = await signIn(users.admin);
    await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    const before = await storeRow(shop.store.id);
    const auditsBefore = (await auditRows(shop.store.id)).length;

    // in the browser: a colour that is no colour, the page again with its field named
    await page.getByLabel('main_color').fill('#12345z');
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Save the store' }).click();
    expect((await answer).status()).toBe(400);
    expect(await page.locator('#action-error').textContent()).toContain(
      'configuration.checkout_colors.main_color',
    );
    // what was typed is shown back
    expect(await page.getByLabel('main_color').inputValue()).toBe('#12345z');
    await accessible(page);

    const csrf = await csrfOf(page);
    const what = 'The store was not saved: VALIDATION_ERROR';
    const refused: [Record<string, string>, string][] = [
      [{ name: before.name, configuration: '{not json' }, `${what}, configuration`],
      [{ name: before.name, configuration: '["a list"]' }, `${what}, configuration`],
      [{ name: before.name, configuration: '{"percent_fee": 3}' }, `${what}, configuration.percent_fee`],
      [
        { name: before.name, configuration: '{"display_time_zone": "Mars/Olympus"}' },
        `${what}, configuration.display_time_zone`,
      ],
      [
        { name: before.name, configuration: '{"checkout_colors": {"main_color": "#000000"}}' },
        `${what}, configuration.checkout_colors`,
      ],
      [
        { name: before.name, color_main_color: '#ffffff' },
        `${what}, configuration.checkout_colors.main_text INSUFFICIENT_CONTRAST`,
      ],
      [{ name: '' }, `${what}, name`],
      [{ name: 'x'.repeat(101) }, `${what}, name`],
    ];
    for (const [form, line] of refused) {
      const reply = await page.request.post(`${consoleUrl}/settings/stores/${shop.store.id}`, {
        form: { _csrf: csrf, ...form },
        maxRedirects: 0,
      });
      expect(reply.status()).toBe(400);
      expect(/id="action-error">([^<]*)</.exec(await reply.text())?.[1]).toBe(line);
    }
    const after = await storeRow(shop.store.id);
    expect(after).toEqual(before);
    expect((await auditRows(shop.store.id)).length).toBe(auditsBefore);
  });

  it('a viewer and a developer read the store, are shown no form and are refused the change', async () => {
    const before = await storeRow(shop.store.id);
    for (const email of [users.viewer, users.developer]) {
      const page = await signIn(email);
      await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
      expect(await page.locator('#store-name-shown').textContent()).toBe(before.name);
      expect(await page.locator(`form[action="/settings/stores/${shop.store.id}"]`).count()).toBe(0);
      const refused = await page.request.post(`${consoleUrl}/settings/stores/${shop.store.id}`, {
        form: { _csrf: await csrfOf(page), name: 'Taken over' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
    }
    expect(await storeRow(shop.store.id)).toEqual(before);
  });

  it('a script-bearing store name is shown as text on the list and the store’s page', async () => {
    const page = await signIn(users.owner);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    await page.getByLabel('Store name', { exact: true }).fill(MARKUP);
    await page.getByRole('button', { name: 'Save the store' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator('#store-name-shown').textContent()).toBe(MARKUP);
    expect(await page.title()).not.toBe('owned');
    await page.goto(`${consoleUrl}/settings/stores`);
    expect(await page.locator(`#stores tr[data-store-id="${shop.store.id}"] a`).textContent()).toBe(MARKUP);
    expect(await page.title()).not.toBe('owned');
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect((await storeThroughApi(shop.store.id)).name).toBe(MARKUP);
  });

  it('another merchant’s store is a missing page for reading and writing, and is never listed', async () => {
    const before = await storeRow(shop.store.id);
    const page = await signIn(users.other);
    const read = await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    expect(read!.status()).toBe(404);
    const missing = await page.request.get(`${consoleUrl}/settings/stores/${randomUUID()}`);
    expect(missing.status()).toBe(404);
    const written = await page.request.post(`${consoleUrl}/settings/stores/${shop.store.id}`, {
      form: { _csrf: await csrfOf(page), name: 'Taken over' },
      maxRedirects: 0,
    });
    expect(written.status()).toBe(404);
    await page.goto(`${consoleUrl}/settings/stores`);
    expect(await page.locator(`#stores tr[data-store-id="${shop.store.id}"]`).count()).toBe(0);
    expect(await page.locator(`#stores tr[data-store-id="${suite.merchants.other.store.id}"]`).count()).toBe(
      1,
    );
    expect(await storeRow(shop.store.id)).toEqual(before);
  });
});

describe('the checkout logo', () => {
  it('an owner removes the store’s logo: GET /stores/{id} has none, with its audit row', async () => {
    const image = solidPng(120, 40, [11, 110, 79]);
    const digest = createHash('sha256').update(image).digest('hex');
    await suite.env.prisma.storeLogo.create({
      data: { storeId: shop.store.id, contentType: 'image/png', image: new Uint8Array(image), digest },
    });
    expect(await suite.api.shop.request(`/stores/${shop.store.id}`)).toMatchObject({
      body: { configuration: { logo_url: expect.stringContaining(digest) } },
    });
    const auditsBefore = (await auditRows(shop.store.id)).length;
    const page = await signIn(users.owner);
    await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    await page.getByLabel('Remove the checkout logo').check();
    await page.getByRole('button', { name: 'Save the store' }).click();
    await page.locator('#notice').waitFor();
    expect(await page.getByLabel('Remove the checkout logo').count()).toBe(0);
    expect(await suite.env.prisma.storeLogo.findUnique({ where: { storeId: shop.store.id } })).toBeNull();
    const after = await suite.api.shop.request(`/stores/${shop.store.id}`);
    expect(after.body.configuration).not.toHaveProperty('logo_url');
    const audits = await auditRows(shop.store.id);
    expect(audits).toHaveLength(auditsBefore + 1);
    expect(audits.at(-1)?.detail).toEqual({ logo: 'removed' });
  });
});

describe('uploading the checkout logo', () => {
  const storeLogo = () => suite.env.prisma.storeLogo.findUnique({ where: { storeId: shop.store.id } });
  const upload = async (page: Page, file: { name: string; mimeType: string; buffer: Buffer }) => {
    await page.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    await page.locator('#logo-file').setInputFiles(file);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/logo')),
      page.getByRole('button', { name: 'Upload a checkout logo' }).click(),
    ]);
    await page.waitForLoadState();
    return answer;
  };

  it('an admin uploads a PNG, then a JPEG: the gateway serves each as its type with nosniff to the checkout, with audit rows', async () => {
    const page = await signIn(users.admin);
    const auditsBefore = (await auditRows(shop.store.id)).length;
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(64)]);
    for (const [image, type] of [
      [solidPng(90, 30, [20, 60, 140]), 'image/png'],
      [jpeg, 'image/jpeg'],
    ] as const) {
      const digest = createHash('sha256').update(image).digest('hex');
      // the declared type says nothing: the bytes decide
      await upload(page, { name: 'logo.bin', mimeType: 'application/octet-stream', buffer: image });
      expect(await page.locator('#notice').textContent()).toBe('The checkout logo was saved.');
      await accessible(page);
      expect(await storeLogo()).toMatchObject({ contentType: type, digest });
      const logoUrl = (await storeThroughApi(shop.store.id)).configuration as { logo_url?: string };
      expect(logoUrl.logo_url).toContain(`/checkout/logos/${shop.store.id}/${digest}`);
      // as the hosted checkout shows it: GET /checkout_info's logo_image is the same URL
      const info = await suite.api.shop.request('/checkout_info');
      expect(info.body).toMatchObject({ logo_image: logoUrl.logo_url });
      const served = await fetch(logoUrl.logo_url!);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);
      const audits = await auditRows(shop.store.id);
      expect(audits.at(-1)).toMatchObject({
        action: 'store.update',
        detail: { logo: 'uploaded', bytes: image.length, sha256: digest },
      });
    }
    expect(await auditRows(shop.store.id)).toHaveLength(auditsBefore + 2);
    // the other merchant's store has none of it
    expect(
      await suite.env.prisma.storeLogo.findUnique({ where: { storeId: suite.merchants.other.store.id } }),
    ).toBeNull();
  });

  it('refuses an SVG, HTML, a file over 256 KiB and a form without a file: the page says why, nothing written', async () => {
    const page = await signIn(users.owner);
    const before = await storeLogo();
    const auditsBefore = (await auditRows(shop.store.id)).length;
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`);
    for (const [file, reason] of [
      [{ name: `${MARKUP}.svg`, mimeType: 'image/svg+xml', buffer: svg }, 'FILE_INVALID_TYPE'],
      [{ name: 'logo.png', mimeType: 'image/png', buffer: svg }, 'FILE_INVALID_TYPE'],
      [{ name: 'page.html', mimeType: 'text/html', buffer: Buffer.from(MARKUP) }, 'FILE_INVALID_TYPE'],
      [
        {
          name: 'big.png',
          mimeType: 'image/png',
          buffer: Buffer.concat([solidPng(2, 2, [0, 0, 0]), Buffer.alloc(256 * 1024)]),
        },
        'FILE_MAX_SIZE_EXCEEDED',
      ],
    ] as const) {
      const answer = await upload(page, file);
      expect(answer.status()).toBe(400);
      expect(await page.locator('#action-error').textContent()).toContain(reason);
      // the file's name is never shown, its markup never run
      expect(await page.title()).not.toBe('owned');
      expect(await page.content()).not.toContain('<script>document.title');
    }
    // a form without its file (sent by hand: the browser's form requires one)
    const empty = await page.request.post(`${consoleUrl}/settings/stores/${shop.store.id}/logo`, {
      multipart: { _csrf: await csrfOf(page) },
    });
    expect(empty.status()).toBe(400);
    expect(await empty.text()).toContain('VALIDATION_ERROR, logo');
    // a second file or another field: the form is refused whole
    const extra = await page.request.post(`${consoleUrl}/settings/stores/${shop.store.id}/logo`, {
      multipart: {
        _csrf: await csrfOf(page),
        name: 'renamed',
        logo: { name: 'logo.png', mimeType: 'image/png', buffer: solidPng(4, 4, [1, 2, 3]) },
      },
    });
    expect(extra.status()).toBe(400);
    expect(await storeLogo()).toEqual(before);
    expect(await auditRows(shop.store.id)).toHaveLength(auditsBefore);
  });

  it('a viewer has no upload form and is refused; a CSRF-less upload is refused; another merchant’s store is missing', async () => {
    const before = await storeLogo();
    const logo = { name: 'logo.png', mimeType: 'image/png', buffer: solidPng(8, 8, [9, 9, 9]) };
    const viewer = await signIn(users.viewer);
    await viewer.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    expect(await viewer.locator('#logo-file').count()).toBe(0);
    const refused = await viewer.request.post(`${consoleUrl}/settings/stores/${shop.store.id}/logo`, {
      multipart: { _csrf: await csrfOf(viewer), logo },
    });
    expect(refused.status()).toBe(403);
    const admin = await signIn(users.admin);
    await admin.goto(`${consoleUrl}/settings/stores/${shop.store.id}`);
    const noToken = await admin.request.post(`${consoleUrl}/settings/stores/${shop.store.id}/logo`, {
      multipart: { logo },
    });
    expect(noToken.status()).toBe(403);
    const outsider = await signIn(users.other);
    await outsider.goto(`${consoleUrl}/overview`);
    const foreign = await outsider.request.post(`${consoleUrl}/settings/stores/${shop.store.id}/logo`, {
      multipart: { _csrf: await csrfOf(outsider), logo },
    });
    expect(foreign.status()).toBe(404);
    // multipart goes to the upload only
    const elsewhere = await admin.request.post(`${consoleUrl}/settings/stores/${shop.store.id}`, {
      multipart: { _csrf: await csrfOf(admin), name: 'Renamed' },
    });
    expect(elsewhere.status()).toBe(415);
    expect(await storeLogo()).toEqual(before);
  });
});

describe('removing a user', () => {
  const userByEmail = (email: string) =>
    suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email } });

  async function newUser(role: 'owner' | 'viewer' | 'admin') {
    const email = `leaver-${tag()}@example.test`;
    const user = await suite.env.admin.createUser({ merchantId: shop.merchant.id, email, password, role });
    return { ...user, email };
  }

  it('an owner removes a user: its open session goes to sign-in at once, it signs in and authenticates no more', async () => {
    const leaver = await newUser('admin');
    const leaverPage = await signIn(leaver.email);
    const login = await requestJson(suite.url, '/authenticate', {
      method: 'POST',
      json: { email: leaver.email, password },
    });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    expect((await requestJson(suite.url, '/me', { auth: `Bearer ${token}` })).status).toBe(200);
    // a console write of its own, which the audit log goes on naming it by
    await suite.env.prisma.consoleAuditEvent.create({
      data: {
        merchantId: shop.merchant.id,
        userId: leaver.id,
        sessionId: randomUUID(),
        action: 'store.update',
        targetType: 'store',
        targetId: randomUUID(),
        mode: 'test',
        ip: '127.0.0.1',
      },
    });

    const page = await signIn(users.owner);
    await page.goto(`${consoleUrl}/settings/users`);
    await page.getByRole('button', { name: `Remove ${leaver.email}` }).click();
    await page.locator('#notice').waitFor();
    expect(await page.locator(`#users tr[data-user-id="${leaver.id}"]`).count()).toBe(0);
    await accessible(page);
    await page.screenshot({ path: join(SHOTS, 'settings-users-removed.png'), fullPage: true });

    const removed = await userByEmail(leaver.email);
    expect(removed.removedOn).not.toBeNull();
    const audits = await auditRows(leaver.id);
    expect(audits.map((row) => row.action)).toEqual(['user.remove']);
    expect(audits[0].detail).toEqual({ email: leaver.email, role: 'admin' });

    // the removed user's next request is the sign-in page; it cannot sign in again
    await leaverPage.goto(`${consoleUrl}/payments`);
    expect(new URL(leaverPage.url()).pathname).toBe('/sign-in');
    await leaverPage.getByLabel('Email').fill(leaver.email);
    await leaverPage.getByLabel('Password').fill(password);
    await leaverPage.getByRole('button', { name: 'Sign in' }).click();
    await leaverPage.locator('#sign-in-error').waitFor();
    // nor through the API: its login token ends, a new one is refused
    expect((await requestJson(suite.url, '/me', { auth: `Bearer ${token}` })).status).toBe(401);
    const again = await requestJson(suite.url, '/authenticate', {
      method: 'POST',
      json: { email: leaver.email, password },
    });
    expect(again.status).toBe(401);
    // the audit log still names it
    await page.goto(`${consoleUrl}/settings/audit`);
    expect(await page.locator('#audit').textContent()).toContain(leaver.email);

    // removing it again: it is no longer there
    const twice = await page.request.post(`${consoleUrl}/settings/users/${leaver.id}/remove`, {
      form: { _csrf: await csrfOf(page) },
      maxRedirects: 0,
    });
    expect(twice.status()).toBe(404);
    expect((await auditRows(leaver.id)).length).toBe(1);
  });

  it('never oneself: OWN_USER, nothing removed', async () => {
    const self = await userByEmail(users.owner);
    const page = await signIn(users.owner);
    await page.goto(`${consoleUrl}/settings/users`);
    expect(await page.locator(`form[action="/settings/users/${self.id}/remove"]`).count()).toBe(0);
    const own = await page.request.post(`${consoleUrl}/settings/users/${self.id}/remove`, {
      form: { _csrf: await csrfOf(page) },
      maxRedirects: 0,
    });
    expect(own.status()).toBe(400);
    expect(await own.text()).toContain('OWN_USER');
    expect((await userByEmail(users.owner)).removedOn).toBeNull();
    expect((await auditRows(self.id)).filter((row) => row.action === 'user.remove')).toEqual([]);
  });

  it('never the last owner: two owners removing each other at once leave one', async () => {
    const { merchant } = await suite.env.seedMerchant(`owners-${tag()}`);
    const owners = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const email = `owner-${name}-${tag()}@example.test`;
        const user = await suite.env.admin.createUser({
          merchantId: merchant.id,
          email,
          password,
          role: 'owner',
        });
        return { ...user, page: await signIn(email) };
      }),
    );
    const [a, b] = owners;
    const remove = async (by: (typeof owners)[number], whom: (typeof owners)[number]) =>
      by.page.request.post(`${consoleUrl}/settings/users/${whom.id}/remove`, {
        form: { _csrf: await csrfOf(by.page) },
        maxRedirects: 0,
      });
    const answers = await Promise.all([remove(a, b), remove(b, a)]);
    const done = answers.filter((answer) => answer.headers()['location'] === '/settings/users?removed');
    expect(done).toHaveLength(1);
    // the other: refused LAST_OWNER, or sent to sign-in when its own removal came first
    const other = answers.find((answer) => !done.includes(answer))!;
    if (other.status() === 400) expect(await other.text()).toContain('LAST_OWNER');
    else expect(other.headers()['location']).toBe('/sign-in');
    expect(
      await suite.env.prisma.merchantUser.count({
        where: { merchantId: merchant.id, role: 'owner', removedOn: null },
      }),
    ).toBe(1);
    expect(
      await suite.env.prisma.consoleAuditEvent.count({
        where: { merchantId: merchant.id, action: 'user.remove' },
      }),
    ).toBe(1);
  });

  it('an admin and a viewer are refused; another merchant’s owner gets the missing page', async () => {
    const target = await newUser('viewer');
    for (const email of [users.admin, users.viewer]) {
      const page = await signIn(email);
      const refused = await page.request.post(`${consoleUrl}/settings/users/${target.id}/remove`, {
        form: { _csrf: await csrfOf(page) },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
    }
    const outsider = await signIn(users.other);
    const foreign = await outsider.request.post(`${consoleUrl}/settings/users/${target.id}/remove`, {
      form: { _csrf: await csrfOf(outsider) },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(404);
    const unknown = await outsider.request.post(`${consoleUrl}/settings/users/${randomUUID()}/remove`, {
      form: { _csrf: await csrfOf(outsider) },
      maxRedirects: 0,
    });
    expect(unknown.status()).toBe(404);
    // the same page, the id in its language link aside
    const page404 = async (answer: typeof foreign) => (await answer.text()).replace(UUIDS, 'ID');
    expect(await page404(foreign)).toBe(await page404(unknown));
    expect((await userByEmail(target.email)).removedOn).toBeNull();
    expect(await auditRows(target.id)).toEqual([]);
  });
});

describe('CSV export', () => {
  it('carries each charge’s customer email and payment type', async () => {
    const email = `csv-${tag()}@example.test`;
    const token = await insertCardToken(suite.env, shop, { cardNumber: '4242424242424242' });
    await suite.env.prisma.transactionToken.update({ where: { id: token }, data: { email } });
    const chargeId = await insertPendingCharge(suite.env, shop, token, { amount: 1500, requested: false });
    await updateChargeRow(
      suite.env,
      chargeId,
      "status = 'successful', charged_amount = 1500, charged_currency = 'JPY'",
    );
    const page = await signIn(users.viewer);
    await page.goto(`${consoleUrl}/payments?email=${encodeURIComponent(email)}`);
    const download = page.waitForEvent('download');
    await page.locator('#export-csv').click();
    const file = await (await download).path();
    const records: Record<string, string>[] = parse(readFileSync(file, 'utf8'), { columns: true });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ id: chargeId, email, payment_type: 'card', status: 'successful' });
  });
});
