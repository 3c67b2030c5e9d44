import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import SDK from 'univapay-node';
import { PasswordResetService } from '@kessai/accounts';
import { AdminError, runCli } from '@kessai/admin';
import { hashSecret, signLoginToken } from '@kessai/auth';
import { CapturedLog, expectErrorEnvelope, requestJson, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const log = new CapturedLog();
const mailDir = mkdtempSync(join(tmpdir(), 'kessai-mail-'));
const suite = useSuite({
  variables: { MAIL_DROP_DIR: mailDir },
  gateway: (config) => createGatewayApp(config, { logger: log.logger('gateway') }),
  merchants: { acme: {} },
});
const OWNER = { email: 'Owner@Acme.test', password: 'correct-horse-1', name: 'Acme Owner' };

/** A request to the gateway; a POST when it has a body, unless told. */
function http(
  path: string,
  init: { method?: string; auth?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const method = init.method ?? (init.body === undefined ? 'GET' : 'POST');
  return requestJson(suite.url, path, { method, auth: init.auth, json: init.body, headers: init.headers });
}

async function login(email: string, password: string): Promise<string> {
  const res = await http('/authenticate', { body: { email, password } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

/** Every password reset the gateway accepted has been carried out (they run after the 202). */
const settled = () => suite.app.get(PasswordResetService).settled();

/** The reset mails delivered to an address, oldest first (the mail drop is the delivery mechanism). */
function mailsTo(email: string): Array<{ to: string; token: string; reset_id: string; expires_on: string }> {
  return readdirSync(mailDir)
    .map((file) => JSON.parse(readFileSync(join(mailDir, file), 'utf8')))
    .filter((mail) => mail.to === email.toLowerCase())
    .sort((a, b) => a.expires_on.localeCompare(b.expires_on));
}

async function newMerchantWithUser(label: string, password = 'pass-word-1') {
  const seeded = await suite.env.seedMerchant(label);
  const email = `${label}-${randomUUID().slice(0, 8)}@example.test`;
  const user = await suite.env.admin.createUser({
    merchantId: seeded.merchant.id,
    email,
    password,
    name: label,
  });
  return { ...seeded, user, email, password };
}

beforeAll(async () => {
  await suite.env.admin.createUser({ merchantId: suite.merchants.acme.merchant.id, ...OWNER });
});

describe('POST /authenticate', () => {
  it('signs a user in with a 3-segment login token, the email compared case-insensitively', async () => {
    const res = await http('/authenticate', { body: { email: 'owner@acme.TEST', password: OWNER.password } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      token: expect.any(String),
      user_id: expect.any(String),
      merchant_id: suite.merchants.acme.merchant.id,
      email: 'owner@acme.test',
      name: OWNER.name,
      expires_on: expect.any(String),
    });
    const claims = jwt.verify(res.body.token, suite.env.config.JWT_SIGNING_KEY, {
      algorithms: ['HS256'],
    }) as any;
    expect(claims).toMatchObject({
      sub: 'login_token',
      merchant_id: suite.merchants.acme.merchant.id,
      user_id: res.body.user_id,
    });
    expect(claims.exp - claims.iat).toBe(3600);
    const session = await suite.env.prisma.loginSession.findUniqueOrThrow({ where: { id: claims.jti } });
    expect(session).toMatchObject({ userId: res.body.user_id, revokedOn: null });
    expect(session.expiresOn.toISOString()).toBe(res.body.expires_on);
  });

  it('answers a wrong password and an unknown email identically: 401 INVALID_CREDENTIALS', async () => {
    const sessionsBefore = await suite.env.prisma.loginSession.count();
    const wrongPassword = await http('/authenticate', {
      body: { email: OWNER.email, password: 'wrong-password' },
    });
    const unknownEmail = await http('/authenticate', {
      body: { email: 'nobody@acme.test', password: OWNER.password },
    });
    expectErrorEnvelope(wrongPassword, 401, 'INVALID_CREDENTIALS');
    expect(unknownEmail.status).toBe(wrongPassword.status);
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(await suite.env.prisma.loginSession.count()).toBe(sessionsBefore);
  });

  it('refuses malformed input with field errors, never a 500', async () => {
    const missing = await http('/authenticate', { body: { email: OWNER.email } });
    expectErrorEnvelope(missing, 400, 'VALIDATION_ERROR');
    expect(missing.body.errors).toEqual([{ field: 'password', reason: 'REQUIRED_VALUE' }]);
    const typed = await http('/authenticate', { body: { email: 42, password: ['x'], remember: true } });
    expectErrorEnvelope(typed, 400, 'VALIDATION_ERROR');
    expect(typed.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'email', reason: 'INVALID_FORMAT' },
        { field: 'password', reason: 'INVALID_FORMAT' },
        { field: 'remember', reason: 'FORBIDDEN_PARAMETER' },
      ]),
    );
    expectErrorEnvelope(
      await http('/authenticate', { method: 'POST', headers: { 'content-type': 'application/json' } }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('login tokens', () => {
  it('work on /me (also through the SDK) and on app_jwts, where they manage merchant and store tokens', async () => {
    const token = await login(OWNER.email, OWNER.password);
    const me = await http('/me', { auth: `Bearer ${token}` });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(suite.merchants.acme.merchant.id);
    expect((await new SDK({ endpoint: suite.url, jwt: token }).merchants.me()).id).toBe(
      suite.merchants.acme.merchant.id,
    );

    // live credentials only once the operator has verified the merchant (docs/decisions/0028)
    const unverified = await http('/app_jwts', { auth: `Bearer ${token}`, body: { mode: 'live' } });
    expectErrorEnvelope(unverified, 400, 'LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED');
    await suite.env.admin.setVerified(suite.merchants.acme.merchant.id, true);
    const created = await http('/app_jwts', { auth: `Bearer ${token}`, body: { mode: 'live' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      merchant_id: suite.merchants.acme.merchant.id,
      store_id: null,
      mode: 'live',
    });
    const inStore = await http(`/stores/${suite.merchants.acme.store.id}/app_jwts`, {
      auth: `Bearer ${token}`,
      body: {},
    });
    expect(inStore.status).toBe(201);
    const listed = await http('/app_jwts', { auth: `Bearer ${token}` });
    expect(listed.body.items.map((t: { id: string }) => t.id)).toContain(created.body.id);
    const revoked = await http(`/app_jwts/${created.body.id}`, { method: 'DELETE', auth: `Bearer ${token}` });
    expect(revoked.status).toBe(204);
  });

  it('are refused on routes that do not accept logins', async () => {
    const token = await login(OWNER.email, OWNER.password);
    expectErrorEnvelope(await http('/stores', { auth: `Bearer ${token}` }), 403, 'INVALID_PERMISSIONS');
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.acme.store.id}`, { auth: `Bearer ${token}` }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(
      await http(`/stores/${suite.merchants.acme.store.id}`, {
        method: 'PATCH',
        auth: `Bearer ${token}`,
        body: { name: 'x' },
      }),
      403,
      'INVALID_PERMISSIONS',
    );
  });

  it('are not app tokens: a secret in front of one is refused', async () => {
    const token = await login(OWNER.email, OWNER.password);
    expectErrorEnvelope(await http('/me', { auth: `Bearer somesecret.${token}` }), 401, 'INVALID_APP_TOKEN');
  });

  it('POST /logout revokes the session: the token is refused from then on, other sessions live on', async () => {
    const first = await login(OWNER.email, OWNER.password);
    const second = await login(OWNER.email, OWNER.password);
    const out = await http('/logout', { method: 'POST', auth: `Bearer ${first}` });
    expect(out.status).toBe(204);
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${first}` }), 401, 'INVALID_LOGIN_TOKEN');
    expectErrorEnvelope(
      await http('/logout', { method: 'POST', auth: `Bearer ${first}` }),
      401,
      'INVALID_LOGIN_TOKEN',
    );
    expect((await http('/me', { auth: `Bearer ${second}` })).status).toBe(200);
    const claims = jwt.decode(first) as { jti: string };
    expect(
      (await suite.env.prisma.loginSession.findUniqueOrThrow({ where: { id: claims.jti } })).revokedOn,
    ).not.toBeNull();
  });

  it('POST /logout is for login tokens only', async () => {
    expectErrorEnvelope(
      await http('/logout', {
        method: 'POST',
        auth: `Bearer ${suite.merchants.acme.storeToken.secret}.${suite.merchants.acme.storeToken.jwt}`,
      }),
      403,
      'INVALID_PERMISSIONS',
    );
    expectErrorEnvelope(await http('/logout', { method: 'POST' }), 401, 'AUTH_HEADER_MISSING');
  });

  it('expire: past the JWT expiry or the session expiry the answer is EXPIRED_LOGIN_TOKEN', async () => {
    const token = await login(OWNER.email, OWNER.password);
    const claims = jwt.decode(token) as { jti: string; user_id: string; merchant_id: string };
    await suite.env.prisma.loginSession.update({
      where: { id: claims.jti },
      data: { expiresOn: new Date(Date.now() - 1000) },
    });
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${token}` }), 401, 'EXPIRED_LOGIN_TOKEN');

    const session = await suite.env.prisma.loginSession.create({
      data: {
        userId: claims.user_id,
        merchantId: claims.merchant_id,
        expiresOn: new Date(Date.now() + 60_000),
      },
    });
    const stale = signLoginToken(
      {
        sessionId: session.id,
        merchantId: claims.merchant_id,
        userId: claims.user_id,
        expiresOn: new Date(Date.now() - 5000),
      },
      suite.env.config.JWT_SIGNING_KEY,
      new Date(Date.now() - 3_600_000),
    );
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${stale}` }), 401, 'EXPIRED_LOGIN_TOKEN');
  });

  it('a forged or unknown login token is INVALID_LOGIN_TOKEN', async () => {
    const token = await login(OWNER.email, OWNER.password);
    const claims = jwt.decode(token) as { jti: string; user_id: string; merchant_id: string };
    const input = {
      sessionId: claims.jti,
      merchantId: claims.merchant_id,
      userId: claims.user_id,
      expiresOn: new Date(Date.now() + 60_000),
    };
    const otherKey = signLoginToken(input, 'another-signing-key-of-at-least-32-chars');
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${otherKey}` }), 401, 'INVALID_LOGIN_TOKEN');
    const unknownSession = signLoginToken(
      { ...input, sessionId: randomUUID() },
      suite.env.config.JWT_SIGNING_KEY,
    );
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${unknownSession}` }), 401, 'INVALID_LOGIN_TOKEN');
    const otherMerchant = signLoginToken(
      { ...input, merchantId: randomUUID() },
      suite.env.config.JWT_SIGNING_KEY,
    );
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${otherMerchant}` }), 401, 'INVALID_LOGIN_TOKEN');
  });
});

describe('password resets', () => {
  it('answer 202 alike for known and unknown addresses; only a known one gets a token, event and mail', async () => {
    const target = await newMerchantWithUser('reset');
    const requestId = `reset-${randomUUID()}`;
    const known = await http('/password_resets', {
      body: { email: target.email.toUpperCase() },
      headers: { 'x-request-id': requestId },
    });
    const unknown = await http('/password_resets', {
      body: { email: `nobody-${randomUUID()}@example.test` },
    });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(known.body);

    await settled();
    const [mail] = mailsTo(target.email);
    expect(mail.token).toEqual(expect.any(String));
    const reset = await suite.env.prisma.passwordResetToken.findUniqueOrThrow({
      where: { id: mail.reset_id },
    });
    expect(reset).toMatchObject({ userId: target.user.id, merchantId: target.merchant.id, usedOn: null });
    expect(reset.tokenHash).toBe(hashSecret(mail.token));
    expect(reset.expiresOn.getTime() - reset.createdOn.getTime()).toBeGreaterThanOrEqual(3_599_000);
    expect(reset.expiresOn.getTime() - reset.createdOn.getTime()).toBeLessThanOrEqual(3_601_000);

    const events = await suite.env.prisma.outboxEvent.findMany({ where: { aggregateId: target.user.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: 'password_reset_requested',
      aggregateType: 'merchant_user',
      merchantId: target.merchant.id,
      correlationId: requestId,
      publishedOn: null,
    });
    expect(events[0].payload).toEqual({
      user_id: target.user.id,
      reset_id: reset.id,
      expires_on: reset.expiresOn.toISOString(),
    });
    // the raw token is only in the delivered mail: not in any table, event or log line
    const stored = JSON.stringify(
      await suite.env.prisma.$queryRawUnsafe('SELECT * FROM password_reset_tokens'),
    );
    const outbox = JSON.stringify(
      await suite.env.prisma.$queryRawUnsafe('SELECT payload FROM outbox_events'),
    );
    expect(stored).not.toContain(mail.token);
    expect(outbox).not.toContain(mail.token);
    expect(log.text).not.toContain(mail.token);
    expect(known.text).not.toContain(mail.token);
  });

  it('confirming sets the new password once, and ends every login session of the user', async () => {
    const target = await newMerchantWithUser('confirm');
    const before = await login(target.email, target.password);
    expect((await http('/password_resets', { body: { email: target.email } })).status).toBe(202);
    await settled();
    const [{ token }] = mailsTo(target.email);

    const confirmed = await http('/password_resets/confirm', { body: { token, password: 'a-new-password' } });
    expect(confirmed.status).toBe(204);
    expectErrorEnvelope(await http('/me', { auth: `Bearer ${before}` }), 401, 'INVALID_LOGIN_TOKEN');
    expectErrorEnvelope(
      await http('/authenticate', { body: { email: target.email, password: target.password } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(
      (await http('/me', { auth: `Bearer ${await login(target.email, 'a-new-password')}` })).status,
    ).toBe(200);

    const again = await http('/password_resets/confirm', { body: { token, password: 'another-password' } });
    expectErrorEnvelope(again, 400, 'VALIDATION_ERROR');
    expect(again.body.errors).toEqual([{ field: 'token', reason: 'ALREADY_USED' }]);
    expectErrorEnvelope(
      await http('/authenticate', { body: { email: target.email, password: 'another-password' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    const completed = await suite.env.prisma.outboxEvent.findMany({
      where: { aggregateId: target.user.id, eventType: 'password_reset_completed' },
    });
    expect(completed).toHaveLength(1);
  });

  it('two parallel confirmations of one token: exactly one wins', async () => {
    const target = await newMerchantWithUser('race');
    await http('/password_resets', { body: { email: target.email } });
    await settled();
    const [{ token }] = mailsTo(target.email);
    const results = await Promise.all(
      ['first-password', 'second-password'].map((password) =>
        http('/password_resets/confirm', { body: { token, password } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
  });

  it('refuses an expired token, an unknown token and a short password with clear errors', async () => {
    const target = await newMerchantWithUser('expired');
    await http('/password_resets', { body: { email: target.email } });
    await settled();
    const [{ token, reset_id }] = mailsTo(target.email);

    const short = await http('/password_resets/confirm', { body: { token, password: 'short' } });
    expectErrorEnvelope(short, 400, 'VALIDATION_ERROR');
    expect(short.body.errors).toEqual([{ field: 'password', reason: 'INVALID_FORMAT_LENGTH' }]);

    await suite.env.prisma.passwordResetToken.update({
      where: { id: reset_id },
      data: { expiresOn: new Date(Date.now() - 1000) },
    });
    const expired = await http('/password_resets/confirm', { body: { token, password: 'long-enough-1' } });
    expectErrorEnvelope(expired, 400, 'VALIDATION_ERROR');
    expect(expired.body.errors).toEqual([{ field: 'token', reason: 'EXPIRED' }]);
    expect(
      (await http('/authenticate', { body: { email: target.email, password: target.password } })).status,
    ).toBe(200);

    const unknown = await http('/password_resets/confirm', {
      body: { token: 'x'.repeat(43), password: 'long-enough-1' },
    });
    expectErrorEnvelope(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.body.errors).toEqual([{ field: 'token', reason: 'NOT_FOUND' }]);
    const missing = await http('/password_resets/confirm', { body: {} });
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'token', reason: 'REQUIRED_VALUE' },
        { field: 'password', reason: 'REQUIRED_VALUE' },
      ]),
    );
    const badEmail = await http('/password_resets', { body: { email: 'not-an-email' } });
    expectErrorEnvelope(badEmail, 400, 'VALIDATION_ERROR');
    expect(badEmail.body.errors).toEqual([{ field: 'email', reason: 'INVALID_FORMAT_EMAIL' }]);
  });

  it('a merchant gets 5 per UTC day: the 6th is answered 202 like any other, and carried out no more', async () => {
    const target = await newMerchantWithUser('quota');
    const colleague = `colleague-${randomUUID().slice(0, 8)}@example.test`;
    await suite.env.admin.createUser({
      merchantId: target.merchant.id,
      email: colleague,
      password: 'pass-word-2',
    });
    for (let i = 0; i < 5; i++) {
      expect(
        (await http('/password_resets', { body: { email: i % 2 ? colleague : target.email } })).status,
      ).toBe(202);
    }
    await settled();
    // past the quota: the same answer as an unknown address (no oracle of accounts or quotas)
    const unknownAddress = await http('/password_resets', {
      body: { email: `x-${randomUUID()}@example.test` },
    });
    for (const email of [target.email, colleague]) {
      const res = await http('/password_resets', { body: { email } });
      expect({ status: res.status, body: res.body as unknown }).toEqual({
        status: unknownAddress.status,
        body: unknownAddress.body as unknown,
      });
    }
    await settled();
    expect(log.text).toContain("password reset refused: the merchant's daily quota is used up");
    expect(
      await suite.env.prisma.passwordResetToken.count({ where: { merchantId: target.merchant.id } }),
    ).toBe(5);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await suite.env.prisma.dailyQuotaUsage.findMany({
      where: { scopeKey: `merchant:${target.merchant.id}` },
    });
    expect(
      usage.map((u) => ({ resource: u.resource, day: u.day.toISOString().slice(0, 10), count: u.count })),
    ).toEqual([{ resource: 'password_reset', day: today, count: 5 }]);

    // other merchants are unaffected
    const other = await newMerchantWithUser('quota-other');
    expect((await http('/password_resets', { body: { email: other.email } })).status).toBe(202);
    await settled();
    expect(mailsTo(other.email)).toHaveLength(1);

    // the quota is per UTC calendar day: the next day starts at zero
    const service = suite.app.get(PasswordResetService);
    const tomorrow = new Date(`${today}T00:00:00.000Z`);
    tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
    await expect(service.request(target.email, {}, tomorrow)).resolves.toBeUndefined();
    await expect(service.request(target.email, {}, new Date(tomorrow.getTime() - 1))).rejects.toMatchObject({
      code: 'RESOURCE_LIMIT_REACHED',
    });
  });

  it('parallel requests cannot overshoot the daily quota', async () => {
    const target = await newMerchantWithUser('parallel');
    const results = await Promise.all(
      Array.from({ length: 15 }, () => http('/password_resets', { body: { email: target.email } })),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(15);
    await settled();
    expect(await suite.env.prisma.passwordResetToken.count({ where: { userId: target.user.id } })).toBe(5);
    expect(
      await suite.env.prisma.outboxEvent.count({
        where: { aggregateId: target.user.id, eventType: 'password_reset_requested' },
      }),
    ).toBe(5);
    expect(mailsTo(target.email)).toHaveLength(5);
  });
});

describe('admin CLI', () => {
  const credentialsFile = join(mkdtempSync(join(tmpdir(), 'kessai-cli-')), 'demo.json');
  const cli = (...argv: string[]): Promise<any> =>
    runCli(argv, {
      // the suite's own settings, as an operator's shell would have them
      env: { ...suite.env.variables, PUBLIC_BASE_URL: suite.url },
      credentialsFile,
      print: () => undefined,
    });

  it('user:create makes a user who can sign in; duplicates and weak passwords are refused', async () => {
    const user = await cli(
      'user:create',
      '--merchant',
      suite.merchants.acme.merchant.id,
      '--email',
      'Ops@Acme.test',
      '--password',
      'cli-password-1',
      '--name',
      'Ops',
    );
    expect(user).toEqual({
      id: expect.any(String),
      merchant_id: suite.merchants.acme.merchant.id,
      email: 'ops@acme.test',
      name: 'Ops',
      role: 'owner',
      created_on: expect.any(String),
    });
    expect(JSON.stringify(user)).not.toContain('cli-password-1');
    const viewer = await cli(
      'user:create',
      '--merchant',
      suite.merchants.acme.merchant.id,
      '--email',
      'viewer@acme.test',
      '--password',
      'cli-password-2',
      '--role',
      'viewer',
    );
    expect(viewer.role).toBe('viewer');
    await expect(
      cli(
        'user:create',
        '--merchant',
        suite.merchants.acme.merchant.id,
        '--email',
        'boss@acme.test',
        '--password',
        'cli-password-3',
        '--role',
        'boss',
      ),
    ).rejects.toThrow(AdminError);
    expect(
      (await http('/authenticate', { body: { email: 'ops@acme.test', password: 'cli-password-1' } })).status,
    ).toBe(200);
    await expect(
      cli(
        'user:create',
        '--merchant',
        suite.merchants.acme.merchant.id,
        '--email',
        'ops@acme.test',
        '--password',
        'x-password-1',
      ),
    ).rejects.toThrow(AdminError);
    await expect(
      cli(
        'user:create',
        '--merchant',
        suite.merchants.acme.merchant.id,
        '--email',
        'new@acme.test',
        '--password',
        'short',
      ),
    ).rejects.toThrow(/password/);
    await expect(
      cli(
        'user:create',
        '--merchant',
        randomUUID(),
        '--email',
        'new@acme.test',
        '--password',
        'long-enough-1',
      ),
    ).rejects.toThrow(/no merchant/);
    await expect(
      cli('user:create', '--merchant', suite.merchants.acme.merchant.id, '--email', 'new@acme.test'),
    ).rejects.toThrow('--password is required');
  });

  it('bootstrap creates a demo user, remembers its password and reuses it', async () => {
    const first = await cli('bootstrap', '--json');
    expect(first).toMatchObject({ user_email: 'demo@kessai.local', user_password: expect.any(String) });
    const token = await login(first.user_email, first.user_password);
    expect((await http('/me', { auth: `Bearer ${token}` })).body.id).toBe(first.merchant_id);
    const second = await cli('bootstrap', '--json');
    expect(second).toEqual(first);
  });

  it('bootstrap leaves a demo user an owner removed in the console removed, and starts', async () => {
    const first = await cli('bootstrap', '--json');
    const users = suite.env.admin.users;
    const demo = await users.findByEmail(first.user_email);
    // the merchant's own owner, who removes the demo user (the console's remove)
    const owner = await suite.env.admin.createUser({
      merchantId: first.merchant_id,
      email: `owner-${randomUUID().slice(0, 8)}@demo.test`,
      password: 'pass-word-1',
    });
    await users.remove({ merchantId: first.merchant_id, userId: owner.id }, demo!.id);

    const again = await cli('bootstrap', '--json');
    expect(again).toEqual({ ...first, user_password: null });
    expect(await cli('bootstrap', '--json')).toEqual(again);
    const removed = await users.findByEmailRemovedOrNot(first.user_email);
    expect(removed).toMatchObject({ id: demo!.id, passwordHash: demo!.passwordHash });
    expect(removed!.removedOn).toBeInstanceOf(Date);
    const res = await http('/authenticate', {
      body: { email: first.user_email, password: first.user_password },
    });
    expect(res.status).toBe(401);
  });
});
