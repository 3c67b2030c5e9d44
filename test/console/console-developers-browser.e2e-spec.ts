// The console's developer pages (docs/console.md) in a real browser: Debian's chromium, headless,
// through playwright-core, against the console and the gateway in this process, charge-service and
// webhook-service as processes and the processor simulator. A developer creates an app token (its
// secret shown once, then authenticating against the API) and revokes it (refused at once); creates
// a webhook (its signing secret shown once, verifying a real delivery), reads the delivery's tries,
// replays it, edits, rotates and deletes the webhook; every write has its audit row. A viewer reads
// and is refused every write; another merchant's ids are missing pages. axe-core checks each page.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { storedSecretsOf, type Webhook } from '@kessai/db';
import { WebhookSecretsCipher } from '@kessai/vault';
import {
  axeViolations,
  eventually,
  launchChromium,
  verifiedWebhook,
  WebhookReceiver,
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

const HOOK_PATH = '/console-hook';
jest.setTimeout(90_000);

/** where password reset emails land (MailDropDelivery) */
const mailDir = mkdtempSync(join(tmpdir(), 'kessai-console-mail-'));
const suite = useConsoleSuite(['charge-service', 'webhook-service'], { MAIL_DROP_DIR: mailDir });

let browser: Browser;
let consoleUrl: string;
let receiver: WebhookReceiver;
let shop: SeededMerchant;
const password = `pw-${randomBytes(6).toString('hex')}`;
const users = {
  owner: `owner-${randomBytes(3).toString('hex')}@example.test`,
  developer: `dev-${randomBytes(3).toString('hex')}@example.test`,
  viewer: `viewer-${randomBytes(3).toString('hex')}@example.test`,
  other: `other-${randomBytes(3).toString('hex')}@example.test`,
} as const;

/** What the first tests made, for the later ones. */
/** A webhook row's secrets, opened with the suite's vault keys. */
const opened = (row: Webhook) =>
  new WebhookSecretsCipher(suite.env.config.VAULT_KEYS).read(storedSecretsOf(row), row.id);
const made: { tokenId?: string; webhookId?: string; signingSecret?: string } = {};

beforeAll(async () => {
  browser = await launchChromium();
  suite.cleanup(() => browser.close());
  mkdirSync(SHOTS, { recursive: true });
  shop = suite.merchants.shop;
  for (const role of ['owner', 'developer', 'viewer'] as const) {
    await suite.env.admin.createUser({ merchantId: shop.merchant.id, email: users[role], password, role });
  }
  const otherId = suite.merchants.other.merchant.id;
  await suite.env.admin.createUser({ merchantId: otherId, email: users.other, password, role: 'owner' });
  receiver = new WebhookReceiver();
  await receiver.start();
  suite.cleanup(() => receiver.close());
  consoleUrl = await startConsole(suite);
}, 90_000);

async function signIn(email: string): Promise<Page> {
  return signInAt(await newContext(suite, browser), consoleUrl, email, password);
}

async function developersPage(page: Page, path = '/developers'): Promise<void> {
  await page.goto(`${consoleUrl}${path}`);
  await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
}

function auditRows(targetId: string) {
  return suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId }, orderBy: { createdOn: 'asc' } });
}

describe('app tokens', () => {
  it('a developer creates one: its secret is shown once, it authenticates, and its audit row names it', async () => {
    const page = await signIn(users.developer);
    await developersPage(page);
    await page.getByLabel('Domains').fill('shop.example.test');
    await page.getByRole('button', { name: 'Create the app token' }).click();
    await page.locator('#shown-once').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'developers-new-token.png'), fullPage: true });
    const id = await page.locator('#token-id').innerText();
    const secret = await page.locator('#token-secret').innerText();
    const jwt = await page.locator('#token-jwt').innerText();
    made.tokenId = id;

    // the credentials are a merchant's own, in test mode: the API answers with them
    const stores = await suite.gateway.as({ secret, jwt }).request('/stores');
    expect(stores.status).toBe(200);
    const token = await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id } });
    expect(token).toMatchObject({
      merchantId: shop.merchant.id,
      storeId: null,
      mode: 'test',
      domains: ['shop.example.test'],
    });
    expect(token.secretHash).not.toContain(secret);

    // listed from now on, its secret never again
    await developersPage(page);
    await page.screenshot({ path: join(SHOTS, 'developers.png'), fullPage: true });
    await expect(page.locator(`#app-tokens tr[data-token-id="${id}"]`).count()).resolves.toBe(1);
    expect(await page.content()).not.toContain(secret);
    const audit = await auditRows(id);
    expect(audit.map((row) => row.action)).toEqual(['app_token.create']);
    expect(audit[0]).toMatchObject({ merchantId: shop.merchant.id, targetType: 'app_token', mode: 'test' });
  });

  it('a bad domain is the page again with the code, and nothing is created', async () => {
    const page = await signIn(users.developer);
    await developersPage(page);
    const before = await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } });
    await page.getByLabel('Domains').fill('*.com');
    await page.getByRole('button', { name: 'Create the app token' }).click();
    await expect(page.locator('#action-error').innerText()).resolves.toContain('VALIDATION_ERROR');
    expect(await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } })).toBe(before);
  });

  it('revoking it stops it at once, with its audit row', async () => {
    const id = made.tokenId!;
    const page = await signIn(users.developer);
    await developersPage(page);
    await page.getByRole('button', { name: `Revoke ${id}` }).click();
    await page.locator('#notice').waitFor();
    await expect(page.locator(`#app-tokens tr[data-token-id="${id}"]`).count()).resolves.toBe(0);
    expect((await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id } })).revokedOn).not.toBeNull();
    expect((await auditRows(id)).map((row) => row.action)).toEqual(['app_token.create', 'app_token.revoke']);
  });
});

describe('webhooks', () => {
  it('a developer creates one: its signing secret, shown once, verifies a real delivery, whose tries the page shows', async () => {
    const page = await signIn(users.developer);
    // the store's webhooks (a merchant-level webhook takes only the transfer triggers)
    await developersPage(page);
    await page.getByLabel('Whose keys and webhooks').selectOption(shop.store.id);
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/store=/);
    await page.getByLabel('URL').fill(`${receiver.url}${HOOK_PATH}`);
    await page.getByLabel('charge_finished', { exact: true }).check();
    await page.getByRole('button', { name: 'Create the webhook' }).click();
    await page.locator('#shown-once').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const webhookId = await page.locator('#webhook-id').innerText();
    const secret = await page.locator('#signing-secret').innerText();
    made.webhookId = webhookId;
    made.signingSecret = secret;
    const stored = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } });
    expect(stored).toMatchObject({
      merchantId: shop.merchant.id,
      storeId: shop.store.id,
      triggers: ['charge_finished'],
      active: true,
    });
    // sealed at rest (decision 0086): the secret the page showed is what opens
    expect(stored.signingSecret).toBeNull();
    expect(opened(stored).signingSecret).toBe(secret);

    // a charge of the merchant: its charge_finished reaches the receiver, signed with that secret
    const charge = await suite.api.shop.charge(await suite.api.shop.cardToken());
    const [received] = await receiver.waitFor(HOOK_PATH, 'charge_finished', charge.id);
    expect(verifiedWebhook(secret, received)).toMatchObject({ event: 'charge_finished' });

    await page.getByRole('link', { name: 'On to the webhook' }).click();
    await page.getByRole('heading', { name: 'Webhook', level: 1 }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'developers-webhook.png'), fullPage: true });
    const row = page.locator('#deliveries tbody tr').first();
    await expect(row.getAttribute('data-delivery-status')).resolves.toBe('delivered');
    await expect(row.locator('.tries li').first().innerText()).resolves.toMatch(/^200 · \d+ ms/);
    expect(await page.content()).not.toContain(secret);
    expect((await auditRows(webhookId)).map((r) => r.action)).toEqual(['webhook.create']);
  });

  it('replays a delivery: the same delivery is sent again, with its audit row', async () => {
    const webhookId = made.webhookId!;
    const page = await signIn(users.developer);
    await page.goto(`${consoleUrl}/developers/webhooks/${webhookId}?store=${shop.store.id}`);
    const row = page.locator('#deliveries tbody tr').first();
    const deliveryId = (await row.getAttribute('data-delivery-id'))!;
    const sentBefore = receiver.of(HOOK_PATH).length;
    await page.getByRole('button', { name: `Send again ${deliveryId}` }).click();
    await page.locator('#notice').waitFor();
    const again = await eventually(
      () => (receiver.of(HOOK_PATH).length > sentBefore ? receiver.of(HOOK_PATH) : null),
      {
        timeoutMs: 20_000,
        what: 'the replayed delivery',
      },
    );
    // the same delivery: the same webhook-id header, a new try
    expect(again[again.length - 1].headers['webhook-id']).toBe(again[0].headers['webhook-id']);
    await eventually(
      async () =>
        (await suite.env.prisma.webhookAttempt.count({ where: { deliveryId } })) >= 2 ? true : null,
      { timeoutMs: 20_000, what: 'the second try recorded' },
    );
    const audit = await auditRows(deliveryId);
    expect(audit.map((r) => r.action)).toEqual(['webhook_delivery.replay']);
    expect(audit[0].detail).toEqual({ webhook_id: webhookId });
  });

  it('edits, rotates the secret (the new one shown once) and deletes, each with its audit row', async () => {
    const webhookId = made.webhookId!;
    const page = await signIn(users.developer);
    await page.goto(`${consoleUrl}/developers/webhooks/${webhookId}?store=${shop.store.id}`);
    await page.getByLabel('Active', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save the changes' }).click();
    await page.locator('#notice').waitFor();
    await expect(page.locator('#webhook-active').innerText()).resolves.toBe('—');
    expect((await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } })).active).toBe(
      false,
    );

    await page.getByRole('button', { name: 'Rotate the signing secret' }).click();
    await page.locator('#shown-once').waitFor();
    const rotated = await page.locator('#signing-secret').innerText();
    expect(rotated).not.toBe(made.signingSecret);
    const stored = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: webhookId } });
    expect(opened(stored)).toMatchObject({
      signingSecret: rotated,
      previousSigningSecret: made.signingSecret,
    });

    await page.goto(`${consoleUrl}/developers/webhooks/${webhookId}?store=${shop.store.id}`);
    await page.getByRole('button', { name: 'Delete the webhook' }).click();
    await page.getByRole('heading', { name: 'Developers', level: 1 }).waitFor();
    await page.locator('#notice').waitFor();
    expect(await suite.env.prisma.webhook.findUnique({ where: { id: webhookId } })).toBeNull();
    expect((await auditRows(webhookId)).map((r) => r.action)).toEqual([
      'webhook.create',
      'webhook.update',
      'webhook.rotate_secret',
      'webhook.delete',
    ]);
  });

  it('a URL the rules refuse is the page again with the code, and nothing is created', async () => {
    const page = await signIn(users.developer);
    await developersPage(page, `/developers?store=${shop.store.id}`);
    const before = await suite.env.prisma.webhook.count({ where: { merchantId: shop.merchant.id } });
    await page.getByLabel('URL').fill('ftp://example.test/hook');
    await page.getByLabel('charge_finished', { exact: true }).check();
    await page.getByRole('button', { name: 'Create the webhook' }).click();
    await expect(page.locator('#action-error').innerText()).resolves.toContain('The webhook was refused');
    expect(await suite.env.prisma.webhook.count({ where: { merchantId: shop.merchant.id } })).toBe(before);
  });
});

describe('who may', () => {
  it('a viewer reads the developers page without its forms and is refused every write', async () => {
    const page = await signIn(users.viewer);
    await developersPage(page);
    await expect(page.locator('form[action="/developers/app-tokens"]').count()).resolves.toBe(0);
    await expect(page.locator('form[action="/developers/webhooks"]').count()).resolves.toBe(0);
    const csrf = await csrfOf(page);
    const tokensBefore = await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } });
    const auditBefore = await suite.env.prisma.consoleAuditEvent.count({
      where: { merchantId: shop.merchant.id },
    });
    const create = await page.request.post(`${consoleUrl}/developers/app-tokens`, {
      form: { _csrf: csrf, domains: '' },
    });
    expect(create.status()).toBe(403);
    const hook = await page.request.post(`${consoleUrl}/developers/webhooks`, {
      form: { _csrf: csrf, url: `${receiver.url}/viewer`, triggers: 'charge_finished' },
    });
    expect(hook.status()).toBe(403);
    expect(await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } })).toBe(
      tokensBefore,
    );
    expect(await suite.env.prisma.webhook.count({ where: { url: `${receiver.url}/viewer` } })).toBe(0);
    expect(await suite.env.prisma.consoleAuditEvent.count({ where: { merchantId: shop.merchant.id } })).toBe(
      auditBefore,
    );
  });

  it('a developer POST without its CSRF token is refused and writes nothing', async () => {
    const page = await signIn(users.developer);
    const before = await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } });
    const response = await page.request.post(`${consoleUrl}/developers/app-tokens`, {
      form: { domains: '' },
    });
    expect(response.status()).toBe(403);
    expect(await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } })).toBe(before);
  });

  it("another merchant's webhook, token and store are missing pages, and nothing of theirs changes", async () => {
    const hook = await suite.env.prisma.webhook.create({
      data: {
        merchantId: shop.merchant.id,
        storeId: shop.store.id,
        url: `${receiver.url}/store-hook`,
        triggers: ['charge_finished'],
        signingSecret: `whsec_${randomBytes(32).toString('base64')}`,
        mode: 'test',
      },
    });
    const shopToken = await suite.env.prisma.appToken.findFirstOrThrow({
      where: { merchantId: shop.merchant.id, revokedOn: null, storeId: shop.store.id },
    });
    const page = await signIn(users.other);
    const csrf = await csrfOf(page);
    for (const path of [
      `/developers/webhooks/${hook.id}`,
      `/developers/webhooks/${hook.id}?store=${shop.store.id}`,
      `/developers?store=${shop.store.id}`,
    ]) {
      const response = await page.goto(`${consoleUrl}${path}`);
      expect(response?.status()).toBe(404);
    }
    const deleted = await page.request.post(`${consoleUrl}/developers/webhooks/${hook.id}/delete`, {
      form: { _csrf: csrf, store: shop.store.id },
    });
    expect(deleted.status()).toBe(404);
    const revoked = await page.request.post(`${consoleUrl}/developers/app-tokens/${shopToken.id}/revoke`, {
      form: { _csrf: csrf, store: shop.store.id },
    });
    expect(revoked.status()).toBe(404);
    expect(await suite.env.prisma.webhook.findUnique({ where: { id: hook.id } })).not.toBeNull();
    expect(
      (await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id: shopToken.id } })).revokedOn,
    ).toBeNull();

    // the merchant's own user sees the store's webhook under that store
    const own = await signIn(users.developer);
    await developersPage(own, `/developers?store=${shop.store.id}`);
    await expect(own.locator(`#webhooks tr[data-webhook-id="${hook.id}"]`).count()).resolves.toBe(1);
    await expect(own.locator(`#app-tokens tr[data-token-id="${shopToken.id}"]`).count()).resolves.toBe(1);
  });
});

describe('users and roles', () => {
  /** The reset token of the newest password email to `email` (MailDropDelivery's files). */
  function resetTokenFor(email: string): string | null {
    const mails = readdirSync(mailDir)
      .map((file) => JSON.parse(readFileSync(join(mailDir, file), 'utf8')) as { to: string; token: string })
      .filter((mail) => mail.to === email);
    return mails.at(-1)?.token ?? null;
  }

  it('an owner adds a user, who sets a password from the email and signs in with the role given', async () => {
    const page = await signIn(users.owner);
    await page.getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'settings-users.png'), fullPage: true });
    const email = `new-${randomBytes(3).toString('hex')}@example.test`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('New Person');
    await page.locator('#new-role').selectOption('developer');
    await page.getByRole('button', { name: 'Add the user' }).click();
    await page.locator('#notice').waitFor();
    const user = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email } });
    expect(user).toMatchObject({ merchantId: shop.merchant.id, role: 'developer', name: 'New Person' });
    const row = page.locator(`#users tr[data-user-id="${user.id}"]`);
    await expect(row.getAttribute('data-user-role')).resolves.toBe('developer');
    expect((await auditRows(user.id)).map((audit) => audit.action)).toEqual(['user.create']);

    // nobody knows its password until the person sets one through the email
    const token = await eventually(() => resetTokenFor(email), {
      timeoutMs: 10_000,
      what: 'the password email',
    });
    const chosen = `pw-${randomBytes(6).toString('hex')}`;
    const confirmed = await suite.gateway.request('/password_resets/confirm', {
      method: 'POST',
      json: { token, password: chosen },
    });
    expect(confirmed.status).toBe(204);
    const own = await signInAt(await newContext(suite, browser), consoleUrl, email, chosen);
    await expect(own.locator('#user-role').innerText()).resolves.toBe('developer');
  });

  it("an owner changes another user's role, never its own, with its audit row", async () => {
    const viewer = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email: users.viewer } });
    const self = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { email: users.owner } });
    const page = await signIn(users.owner);
    await page.goto(`${consoleUrl}/settings/users`);
    await expect(page.locator(`form[action="/settings/users/${self.id}/role"]`).count()).resolves.toBe(0);
    await page.getByLabel(`Role ${users.viewer}`, { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: `Change the role ${users.viewer}` }).click();
    await page.locator('#notice').waitFor();
    expect((await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { id: viewer.id } })).role).toBe(
      'admin',
    );
    expect((await auditRows(viewer.id)).map((audit) => audit.action)).toEqual(['user.role']);

    const own = await page.request.post(`${consoleUrl}/settings/users/${self.id}/role`, {
      form: { _csrf: await csrfOf(page), role: 'viewer' },
    });
    expect(own.status()).toBe(400);
    expect(await own.text()).toContain('OWN_ROLE');
    expect((await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { id: self.id } })).role).toBe(
      'owner',
    );

    // back as it was, for the tests after
    await suite.env.prisma.merchantUser.update({ where: { id: viewer.id }, data: { role: 'viewer' } });
  });

  it("only an owner sees or changes users; another merchant's user is a missing page", async () => {
    for (const email of [users.developer, users.viewer]) {
      const page = await signIn(email);
      await expect(page.getByRole('link', { name: 'Users' }).count()).resolves.toBe(0);
      expect((await page.goto(`${consoleUrl}/settings/users`))?.status()).toBe(403);
      const added = await page.request.post(`${consoleUrl}/settings/users`, {
        form: { _csrf: await csrfOf(page), email: 'sneaky@example.test', name: 'Sneaky', role: 'owner' },
      });
      expect(added.status()).toBe(403);
    }
    expect(
      await suite.env.prisma.merchantUser.findUnique({ where: { email: 'sneaky@example.test' } }),
    ).toBeNull();

    const developer = await suite.env.prisma.merchantUser.findUniqueOrThrow({
      where: { email: users.developer },
    });
    const outsider = await signIn(users.other);
    const moved = await outsider.request.post(`${consoleUrl}/settings/users/${developer.id}/role`, {
      form: { _csrf: await csrfOf(outsider), role: 'viewer' },
    });
    expect(moved.status()).toBe(404);
    const after = await suite.env.prisma.merchantUser.findUniqueOrThrow({ where: { id: developer.id } });
    expect(after.role).toBe('developer');
  });
});
