// Webhooks' secrets at rest (decision 0086): the signing secret, the one before the last rotation
// and the auth_token are sealed with the vault's keys on every write, answered only as before (the
// signing secret on creation and rotation), and opened by webhook-service to sign its tries, which
// the `standardwebhooks` package verifies. A row an older release wrote in plaintext still delivers,
// and `webhooks:seal` seals it, leaving no plaintext.
import { randomBytes } from 'node:crypto';
import { WebHookTrigger } from 'univapay-node';
import { runCli } from '@kessai/admin';
import { storedSecretsOf } from '@kessai/db';
import { WebhookSecretsCipher } from '@kessai/vault';
import {
  bearer,
  requestJson,
  sdkCardToken,
  useSuite,
  verifiedWebhook,
  WebhookReceiver,
} from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  suite.cleanup(() => receiver.close());
}, 60_000);

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'secrets-shop' } },
  workers: ['webhook-service'],
  workerVariables: { WEBHOOK_MAX_ATTEMPTS: '1' },
});

const storeId = () => suite.merchants.shop.store.id;
const sdk = () => suite.sdk.shop;
const cipher = () => new WebhookSecretsCipher(suite.env.config.VAULT_KEYS);

/** Every table's rows as text, and whether one of `secrets` (or its hex) is in any of them. */
async function tablesHolding(secrets: readonly string[]): Promise<string[]> {
  const tables: { name: string }[] = await suite.env.prisma.$queryRawUnsafe(
    `SELECT table_name::text AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
  );
  expect(tables.map((t) => t.name)).toContain('webhooks');
  const found: string[] = [];
  for (const { name } of tables) {
    const rows: { row: string }[] = await suite.env.prisma.$queryRawUnsafe(
      `SELECT t::text AS row FROM "${name}" t`,
    );
    const text = rows.map((r) => r.row).join('\n');
    for (const secret of secrets) {
      if (text.includes(secret) || text.includes(Buffer.from(secret).toString('hex')))
        found.push(`${name}: ${secret}`);
    }
  }
  return found;
}

/** One test card token of the shop: one token_created event. */
async function token(): Promise<string> {
  return (await sdkCardToken(sdk())).id;
}

describe('a webhook created, changed and rotated through the API', () => {
  it('keeps no secret in plaintext; its tries are signed and authorized with the sealed ones', async () => {
    const firstToken = `Bearer first-${randomBytes(12).toString('hex')}`;
    const secondToken = `Bearer second-${randomBytes(12).toString('hex')}`;
    const hook: any = await sdk().webHooks.create(
      { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/sealed`, authToken: firstToken },
      undefined,
      storeId(),
    );
    const created = String(hook.signingSecret);
    expect(created).toMatch(/^whsec_/);
    const path = `/stores/${storeId()}/webhooks/${hook.id}`;
    const auth = bearer(suite.merchants.shop.storeToken);
    const patched = await requestJson(suite.url, path, {
      method: 'PATCH',
      auth,
      json: { auth_token: secondToken },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.auth_token).toBe(secondToken);
    const rotated = await requestJson(suite.url, `${path}/rotate_secret`, { method: 'POST', auth });
    expect(rotated.status).toBe(200);
    const current = String(rotated.body.signing_secret);
    expect(current).not.toBe(created);
    expect(rotated.body.auth_token).toBe(secondToken);
    // reads answer the auth_token (UnivaPay does), never a signing secret
    const got = await requestJson(suite.url, path, { auth });
    expect(got.body).toMatchObject({ id: hook.id, auth_token: secondToken });
    expect(got.body.signing_secret).toBeUndefined();

    expect(await tablesHolding([created, current, firstToken, secondToken])).toEqual([]);
    const row = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row).toMatchObject({ signingSecret: null, previousSigningSecret: null, authToken: null });
    expect(row.secretsKeyId).toBe(suite.env.config.VAULT_KEYS[0].id);
    expect(cipher().read(storedSecretsOf(row), hook.id)).toEqual({
      signingSecret: current,
      previousSigningSecret: created,
      authToken: secondToken,
    });

    const tokenId = await token();
    const [request] = await receiver.waitFor('/sealed', 'token_created', tokenId);
    expect(request.headers.authorization).toBe(secondToken);
    // during the overlap: signed with the new secret and the one before it
    expect(verifiedWebhook(current, request).data.id).toBe(tokenId);
    expect(verifiedWebhook(created, request).data.id).toBe(tokenId);

    const logs = suite.workers.map((worker) => worker.app.lines.join('\n')).join('\n');
    for (const secret of [created, current, firstToken, secondToken]) expect(logs).not.toContain(secret);
  }, 60_000);

  it('refuses secrets moved onto another webhook: that webhook is not tried', async () => {
    const make = (name: string) =>
      sdk().webHooks.create(
        { triggers: [WebHookTrigger.TOKEN_CREATED], url: `${receiver.url}/${name}` },
        undefined,
        storeId(),
      ) as Promise<any>;
    const [donor, victim] = [await make('donor'), await make('victim')];
    const from = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: donor.id } });
    await suite.env.prisma.webhook.update({
      where: { id: victim.id },
      data: {
        secretsKeyId: from.secretsKeyId,
        secretsIv: from.secretsIv,
        secretsCiphertext: from.secretsCiphertext,
        secretsAuthTag: from.secretsAuthTag,
      },
    });
    const tokenId = await token();
    const [delivered] = await receiver.waitFor('/donor', 'token_created', tokenId);
    expect(verifiedWebhook(donor.signingSecret, delivered).data.id).toBe(tokenId);
    // the victim's delivery exists, untried: nothing was signed with the donor's secret for it
    const delivery = await suite.env.prisma.webhookDelivery.findFirstOrThrow({
      where: { webhookId: victim.id, outbox: { aggregateId: tokenId } },
    });
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 0 });
    expect(receiver.of('/victim')).toEqual([]);
    // gone again: vault:rotate (below) would stop at its secrets, which open for no webhook
    await suite.env.prisma.webhook.delete({ where: { id: victim.id } });
  }, 60_000);
});

describe('a webhook an older release stored in plaintext', () => {
  it('still delivers; webhooks:seal seals it (once), leaving no plaintext, and it delivers on', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const authToken = `Bearer legacy-${randomBytes(12).toString('hex')}`;
    const old = await suite.env.prisma.webhook.create({
      data: {
        merchantId: suite.merchants.shop.merchant.id,
        storeId: storeId(),
        url: `${receiver.url}/legacy`,
        triggers: ['token_created'],
        signingSecret: secret,
        authToken,
        mode: 'test',
      },
    });
    const before = await token();
    const [first] = await receiver.waitFor('/legacy', 'token_created', before);
    expect(verifiedWebhook(secret, first).data.id).toBe(before);
    expect(first.headers.authorization).toBe(authToken);
    const read = await requestJson(suite.url, `/stores/${storeId()}/webhooks/${old.id}`, {
      auth: bearer(suite.merchants.shop.storeToken),
    });
    expect(read.body.auth_token).toBe(authToken);

    const sealed = await suite.cli('webhooks:seal', '--batch', '2');
    expect(sealed.sealed).toBeGreaterThanOrEqual(1);
    expect(sealed.secrets_by_key_before.plaintext).toBeGreaterThanOrEqual(1);
    expect(sealed.secrets_by_key_after.plaintext).toBeUndefined();
    expect(await suite.cli('webhooks:seal')).toMatchObject({ sealed: 0, changed_meanwhile: 0 });

    const row = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: old.id } });
    expect(row).toMatchObject({ signingSecret: null, previousSigningSecret: null, authToken: null });
    expect(cipher().read(storedSecretsOf(row), old.id)).toEqual({
      signingSecret: secret,
      previousSigningSecret: null,
      authToken,
    });
    expect(await tablesHolding([secret, authToken])).toEqual([]);

    const after = await token();
    const [second] = await receiver.waitFor('/legacy', 'token_created', after);
    expect(verifiedWebhook(secret, second).data.id).toBe(after);
    expect(second.headers.authorization).toBe(authToken);
  }, 60_000);

  it('a row sealed without its plaintext cleared is refused by the database', async () => {
    const sealed = cipher().seal(
      { signingSecret: 'whsec_x', previousSigningSecret: null, authToken: null },
      storeId(),
    );
    await expect(
      suite.env.prisma.webhook.create({
        data: {
          merchantId: suite.merchants.shop.merchant.id,
          storeId: storeId(),
          url: `${receiver.url}/both`,
          triggers: ['token_created'],
          signingSecret: 'whsec_x',
          secretsKeyId: sealed.keyId,
          secretsIv: sealed.iv,
          secretsCiphertext: sealed.ciphertext,
          secretsAuthTag: sealed.authTag,
          mode: 'test',
        },
      }),
    ).rejects.toThrow(/keeps no plaintext secret/);
  });
});

// last: the rows move to a key the running webhook-service does not have
describe('vault:rotate', () => {
  it('moves sealed webhook secrets to the first key of VAULT_KEYS, once', async () => {
    const hook: any = await sdk().webHooks.create(
      {
        triggers: [WebHookTrigger.TOKEN_CREATED],
        url: `${receiver.url}/rotated`,
        authToken: 'rotated-token',
      },
      undefined,
      storeId(),
    );
    await suite.env.prisma.webhook.update({ where: { id: hook.id }, data: { active: false } });
    const [oldKey] = suite.env.config.VAULT_KEYS;
    const newKey = randomBytes(32);
    const env = {
      ...suite.env.variables,
      VAULT_KEYS: `rotated:${newKey.toString('base64')},${oldKey.id}:${Buffer.from(oldKey.key).toString('base64')}`,
    };
    const cli = (argv: string[]): Promise<any> =>
      runCli(argv, { env, credentialsFile: suite.cliCredentialsFile, print: () => undefined });
    const first = await cli(['vault:rotate', '--batch', '2']);
    const before = first.webhooks.secrets_by_key_before[oldKey.id];
    expect(before).toBeGreaterThanOrEqual(1);
    expect(first.webhooks).toMatchObject({
      rotated: before,
      changed_meanwhile: 0,
      secrets_by_key_after: { rotated: before },
    });
    const row = await suite.env.prisma.webhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(row.secretsKeyId).toBe('rotated');
    expect(
      new WebhookSecretsCipher([{ id: 'rotated', key: newKey }]).read(storedSecretsOf(row), row.id),
    ).toEqual({
      signingSecret: hook.signingSecret,
      previousSigningSecret: null,
      authToken: 'rotated-token',
    });
    expect((await cli(['vault:rotate'])).webhooks).toMatchObject({ rotated: 0 });
  }, 60_000);
});
