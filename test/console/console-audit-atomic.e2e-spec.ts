// A console write and its audit row share one transaction (docs/console.md, "The audit log"): when
// the audit row cannot be written, the write does not stand either, and when the write changes
// nothing, no row is written. And the role changes of users and roles keep a merchant an owner. Shown against real Postgres with the use cases the console calls: an
// audit entry naming a user that does not exist breaks the row's foreign key, inside the write's
// transaction.
import { randomUUID } from 'node:crypto';
import { AppTokenService, MerchantUsersService } from '@kessai/accounts';
import { WebhookSecretsCipher } from '@kessai/vault';
import {
  AppTokensRepository,
  ConsoleAuditRepository,
  MerchantsRepository,
  MerchantUsersRepository,
  StoresRepository,
  WebhooksRepository,
  type AuditEntry,
} from '@kessai/db';
import { WebhooksService, WebhookUrlPolicy } from '@kessai/webhooks';
import { auditEntryOf, createConsoleUser, useSuite, type SeededMerchant } from '@kessai/testing';

const suite = useSuite({ merchants: { shop: {} } });
let shop: SeededMerchant;
let tokens: AppTokenService;
let webhooks: WebhooksService;
let userId: string;

beforeAll(async () => {
  shop = suite.merchants.shop;
  const { prisma, config } = suite.env;
  const audit = new ConsoleAuditRepository(prisma);
  const stores = new StoresRepository(prisma, audit);
  tokens = new AppTokenService(
    new AppTokensRepository(prisma, audit),
    stores,
    new MerchantsRepository(prisma),
    config,
  );
  webhooks = new WebhooksService(
    new WebhooksRepository(prisma, audit),
    stores,
    new WebhookUrlPolicy(config),
    config,
    new WebhookSecretsCipher(config.VAULT_KEYS),
  );
  userId = await createConsoleUser(suite.env, shop, 'developer', 'atomic');
});

/** An audit entry of a console session; `userId` a user that exists, or not. */
const auditBy = (user: string, action: string): AuditEntry =>
  auditEntryOf(shop, user, action, { type: 'test', id: randomUUID() });

const manager = () => ({ kind: 'user' as const, mode: null, merchantId: shop.merchant.id, storeId: null });
const storeScope = () => ({ merchantId: shop.merchant.id, storeId: shop.store.id });
const hookUrl = () => `http://127.0.0.1:9/${randomUUID()}`;

it('an app token whose audit row fails is not created; with a good row both stand', async () => {
  const before = await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } });
  await expect(
    tokens.issue(
      manager(),
      null,
      { mode: 'test', domains: [] },
      { audit: auditBy(randomUUID(), 'app_token.create') },
    ),
  ).rejects.toThrow();
  expect(await suite.env.prisma.appToken.count({ where: { merchantId: shop.merchant.id } })).toBe(before);

  const issued = await tokens.issue(
    manager(),
    null,
    { mode: 'test', domains: [] },
    { audit: auditBy(userId, 'app_token.create') },
  );
  const rows = await suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId: issued.token.id } });
  expect(rows.map((row) => row.action)).toEqual(['app_token.create']);
});

it('a revocation whose audit row fails revokes nothing; a second revocation writes no second row', async () => {
  const issued = await tokens.issue(manager(), null, { mode: 'test', domains: [] });
  await expect(
    tokens.revoke(manager(), null, issued.token.id, { audit: auditBy(randomUUID(), 'app_token.revoke') }),
  ).rejects.toThrow();
  expect(
    (await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id: issued.token.id } })).revokedOn,
  ).toBeNull();

  await tokens.revoke(manager(), null, issued.token.id, { audit: auditBy(userId, 'app_token.revoke') });
  await expect(
    tokens.revoke(manager(), null, issued.token.id, { audit: auditBy(userId, 'app_token.revoke') }),
  ).rejects.toThrow(); // revoked: no longer found
  const rows = await suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId: issued.token.id } });
  expect(rows.map((row) => row.action)).toEqual(['app_token.revoke']);
});

it('a webhook create, change, rotation or deletion whose audit row fails leaves the webhook as it was', async () => {
  const url = hookUrl();
  await expect(
    webhooks.create(
      storeScope(),
      'test',
      { url, triggers: ['charge_finished'] },
      { audit: auditBy(randomUUID(), 'webhook.create') },
    ),
  ).rejects.toThrow();
  expect(await suite.env.prisma.webhook.count({ where: { url } })).toBe(0);

  const webhook = await webhooks.create(storeScope(), 'test', { url, triggers: ['charge_finished'] });
  const sealedBefore = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
  const broken = (action: string) => ({ audit: auditBy(randomUUID(), action) });
  await expect(
    webhooks.update(storeScope(), 'test', webhook, { active: false }, broken('webhook.update')),
  ).rejects.toThrow();
  await expect(
    webhooks.rotateSecret(storeScope(), webhook.id, broken('webhook.rotate_secret')),
  ).rejects.toThrow();
  await expect(webhooks.delete(storeScope(), webhook.id, broken('webhook.delete'))).rejects.toThrow();
  const after = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: webhook.id } });
  expect(after).toMatchObject({ active: true, secretsIv: Buffer.from(sealedBefore.secretsIv ?? []) });

  await webhooks.delete(storeScope(), webhook.id, { audit: auditBy(userId, 'webhook.delete') });
  expect(await suite.env.prisma.webhook.findUnique({ where: { id: webhook.id } })).toBeNull();
  const rows = await suite.env.prisma.consoleAuditEvent.findMany({ where: { targetId: webhook.id } });
  expect(rows.map((row) => row.action)).toEqual(['webhook.delete']);
});

it('two owners demoting each other at once leave the merchant one owner', async () => {
  const { merchant } = await suite.env.seedMerchant('roles');
  const users = new MerchantUsersService(
    new MerchantUsersRepository(suite.env.prisma, new ConsoleAuditRepository(suite.env.prisma)),
  );
  const owners = await Promise.all(
    ['a', 'b'].map((name) =>
      suite.env.admin.createUser({
        merchantId: merchant.id,
        email: `owner-${name}-${randomUUID()}@example.test`,
        password: `pw-${randomUUID()}`,
        role: 'owner',
      }),
    ),
  );
  const [a, b] = owners;
  const results = await Promise.allSettled([
    users.changeRole({ merchantId: merchant.id, userId: a.id }, b.id, 'viewer', {
      audit: auditBy(userId, 'user.role'),
    }),
    users.changeRole({ merchantId: merchant.id, userId: b.id }, a.id, 'viewer', {
      audit: auditBy(userId, 'user.role'),
    }),
  ]);
  expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
  const refused = results.find((result) => result.status === 'rejected');
  expect(JSON.stringify((refused as PromiseRejectedResult).reason)).toContain('LAST_OWNER');
  expect(
    await suite.env.prisma.merchantUser.count({ where: { merchantId: merchant.id, role: 'owner' } }),
  ).toBe(1);
});
