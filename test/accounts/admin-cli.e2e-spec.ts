import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import SDK from 'univapay-node';
import { AdminError, runCli } from '@kessai/admin';
import { hashSecret, verifyAppToken } from '@kessai/auth';
import { CHARGES_QUEUE } from '@kessai/contracts';
import { bullOptions } from '@kessai/runtime';
import { eventually, insertCardToken, useSuite } from '@kessai/testing';
import { CardVault } from '@kessai/vault';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({ gateway: createGatewayApp, relaxedRateLimits: false });

describe('admin CLI', () => {
  it('creates a merchant and a store, and refuses duplicates', async () => {
    const merchant = await suite.cli('merchant:create', '--name', 'Cli Co', '--email', 'cli@example.test');
    expect(merchant).toMatchObject({ name: 'Cli Co', email: 'cli@example.test', pci_dss_compliant: false });
    await expect(
      suite.cli('merchant:create', '--name', 'Again', '--email', 'cli@example.test'),
    ).rejects.toThrow(AdminError);
    const store = await suite.cli('store:create', '--merchant', merchant.id, '--name', 'Main');
    expect(store).toMatchObject({ merchant_id: merchant.id, name: 'Main' });
    await expect(suite.cli('store:create', '--merchant', merchant.id, '--name', 'Main')).rejects.toThrow(
      AdminError,
    );
    await expect(suite.cli('store:create', '--name', 'x')).rejects.toThrow('--merchant is required');
  });

  it('marks a merchant PCI DSS compliant and back', async () => {
    const merchant = await suite.cli('merchant:create', '--name', 'Pci', '--email', 'pci@example.test');
    expect(await suite.cli('merchant:pci', '--merchant', merchant.id)).toMatchObject({
      pci_dss_compliant: true,
    });
    expect(await suite.cli('merchant:pci', '--merchant', merchant.id, '--off')).toMatchObject({
      pci_dss_compliant: false,
    });
  });

  it('issues store and merchant tokens whose secret is shown once and stored only as a hash', async () => {
    const merchant = await suite.cli('merchant:create', '--name', 'Tok', '--email', 'tok@example.test');
    const store = await suite.cli('store:create', '--merchant', merchant.id, '--name', 'S');
    const storeToken = await suite.cli(
      'token:create',
      '--merchant',
      merchant.id,
      '--store',
      store.id,
      '--domain',
      'a.test',
      '--domain',
      'b.test',
    );
    const merchantToken = await suite.cli('token:create', '--merchant', merchant.id, '--mode', 'live');
    expect(storeToken).toMatchObject({
      scope: 'store',
      store_id: store.id,
      mode: 'test',
      domains: ['a.test', 'b.test'],
    });
    expect(merchantToken).toMatchObject({ scope: 'merchant', store_id: null, mode: 'live' });
    expect(verifyAppToken(storeToken.jwt, suite.env.config.JWT_SIGNING_KEY)).toMatchObject({
      jti: storeToken.id,
      store_id: store.id,
    });

    const row = await suite.env.prisma.appToken.findUniqueOrThrow({ where: { id: storeToken.id } });
    expect(row.secretHash).toBe(hashSecret(storeToken.secret));
    expect(JSON.stringify(row)).not.toContain(storeToken.secret);

    const listed = await suite.cli('token:list', '--merchant', merchant.id);
    expect(listed.map((t: { id: string }) => t.id).sort()).toEqual([storeToken.id, merchantToken.id].sort());
    expect(JSON.stringify(listed)).not.toContain(storeToken.secret);
    await expect(suite.cli('token:create', '--merchant', merchant.id, '--mode', 'prod')).rejects.toThrow(
      '--mode',
    );

    const me = await new SDK({
      endpoint: suite.url,
      jwt: storeToken.jwt,
      secret: storeToken.secret,
    }).merchants.me();
    expect(me.id).toBe(merchant.id);
    const revoked = await suite.cli('token:revoke', '--id', storeToken.id);
    expect(revoked.revoked_on).not.toBeNull();
    await expect(
      new SDK({ endpoint: suite.url, jwt: storeToken.jwt, secret: storeToken.secret }).merchants.me(),
    ).rejects.toMatchObject({
      errorResponse: { code: 'INVALID_APP_TOKEN' },
    });
  });

  it('refuses a store of another merchant', async () => {
    const a = await suite.cli('merchant:create', '--name', 'A', '--email', 'a@example.test');
    const b = await suite.cli('merchant:create', '--name', 'B', '--email', 'b@example.test');
    const storeOfB = await suite.cli('store:create', '--merchant', b.id, '--name', 'B1');
    await expect(suite.cli('token:create', '--merchant', a.id, '--store', storeOfB.id)).rejects.toThrow(
      /does not belong/,
    );
  });

  it('configures a merchant and a store (fees included), which the API then presents', async () => {
    const merchant = await suite.cli('merchant:create', '--name', 'Conf', '--email', 'conf@example.test');
    const store = await suite.cli('store:create', '--merchant', merchant.id, '--name', 'Conf Store');
    const token = await suite.cli('token:create', '--merchant', merchant.id, '--store', store.id);

    const merchantSet = await suite.cli(
      'merchant:configure',
      '--merchant',
      merchant.id,
      '--set',
      '{"percent_fee": 3.25, "card_configuration": {"forbidden_card_brands": ["jcb"]}}',
    );
    expect(merchantSet).toMatchObject({
      merchant_id: merchant.id,
      configuration: { percent_fee: 3.25, card_configuration: { forbidden_card_brands: ['jcb'] } },
      effective_configuration: { percent_fee: 3.25, country: 'JP' },
    });
    const storeSet = await suite.cli(
      'store:configure',
      '--store',
      store.id,
      '--set',
      '{"flat_fees": [{"amount": 30, "currency": "jpy"}], "card_configuration": {"enabled": false}}',
    );
    expect(storeSet.configuration).toEqual({
      flat_fees: [{ amount: 30, currency: 'JPY' }],
      card_configuration: { enabled: false },
    });
    expect(storeSet.effective_configuration).toMatchObject({
      percent_fee: 3.25,
      flat_fees: [{ amount: 30, currency: 'JPY' }],
      card_configuration: { enabled: false, forbidden_card_brands: ['jcb'] },
    });

    const sdk = new SDK({ endpoint: suite.url, jwt: token.jwt, secret: token.secret });
    const presented = await sdk.stores.get(store.id);
    expect(presented.configuration).toMatchObject({
      percentFee: 3.25,
      flatFees: [{ amount: 30, currency: 'JPY' }],
      cardConfiguration: { enabled: false, forbiddenCardBrands: ['jcb'] },
    });
    expect((await sdk.merchants.me()).configuration.percentFee).toBe(3.25);

    // null removes a store's own value
    const unset = await suite.cli(
      'store:configure',
      '--store',
      store.id,
      '--set',
      '{"card_configuration": null}',
    );
    expect(unset.configuration).toEqual({ flat_fees: [{ amount: 30, currency: 'JPY' }] });

    await expect(suite.cli('store:configure', '--store', store.id, '--set', 'nope')).rejects.toThrow(
      '--set must be JSON',
    );
    await expect(
      suite.cli('store:configure', '--store', store.id, '--set', '{"percent_fee": 1.23456}'),
    ).rejects.toThrow(/invalid configuration: percent_fee/);
    await expect(
      suite.cli('merchant:configure', '--merchant', merchant.id, '--set', '{"colour": 1}'),
    ).rejects.toThrow(/colour/);
    await expect(
      suite.cli('store:configure', '--store', '00000000-0000-4000-8000-000000000000', '--set', '{}'),
    ).rejects.toThrow(AdminError);
  });

  it('bootstrap creates the demo once, then reuses it, and its credentials work', async () => {
    const first = await suite.cli('bootstrap', '--json');
    expect(first).toEqual(
      expect.objectContaining({
        merchant_id: expect.any(String),
        store_id: expect.any(String),
        secret: expect.any(String),
        jwt: expect.any(String),
        base_url: suite.url,
      }),
    );
    const second = await suite.cli('bootstrap', '--json');
    expect(second).toEqual(first);
    expect(await suite.env.prisma.merchant.count({ where: { email: 'demo@kessai.local' } })).toBe(1);
    expect(await suite.env.prisma.appToken.count({ where: { merchantId: first.merchant_id } })).toBe(1);
    expect(JSON.parse(readFileSync(suite.cliCredentialsFile, 'utf8'))).toEqual(first);

    const sdk = new SDK({ endpoint: first.base_url, jwt: first.jwt, secret: first.secret });
    expect((await sdk.stores.get(first.store_id)).name).toBe('Demo Store');

    // a revoked demo token is replaced, the merchant and store are kept
    await suite.cli('token:revoke', '--id', first.app_token_id);
    const third = await suite.cli('bootstrap', '--json');
    expect(third).toMatchObject({ merchant_id: first.merchant_id, store_id: first.store_id });
    expect(third.app_token_id).not.toBe(first.app_token_id);
  });

  it('creates, shows and advances a test clock; refuses an earlier time and an unknown clock', async () => {
    const merchant = await suite.cli(
      'merchant:create',
      '--name',
      'Clock Co',
      '--email',
      'clock@example.test',
    );
    const clock = await suite.cli(
      'clock:create',
      '--merchant',
      merchant.id,
      '--time',
      '2025-01-31T03:00:00Z',
    );
    expect(clock).toMatchObject({
      merchant_id: merchant.id,
      frozen_time: '2025-01-31T03:00:00.000Z',
      status: 'ready',
    });
    const advanced = await suite.cli(
      'clock:advance',
      '--merchant',
      merchant.id,
      '--id',
      clock.id,
      '--time',
      '2025-03-01T00:00:00Z',
    );
    expect(advanced).toMatchObject({ id: clock.id, frozen_time: '2025-03-01T00:00:00.000Z' });
    // the API sees the same clock
    const token = await suite.cli('token:create', '--merchant', merchant.id);
    const answer = await fetch(`${suite.url}/test_clocks/${clock.id}`, {
      headers: { authorization: `Bearer ${token.secret}.${token.jwt}` },
    });
    expect(await answer.json()).toMatchObject({ frozen_time: '2025-03-01T00:00:00.000Z' });

    await expect(
      suite.cli(
        'clock:advance',
        '--merchant',
        merchant.id,
        '--id',
        clock.id,
        '--time',
        '2025-02-01T00:00:00Z',
      ),
    ).rejects.toThrow(/later than/);
    await expect(suite.cli('clock:create', '--merchant', merchant.id, '--time', 'yesterday')).rejects.toThrow(
      /ISO 8601/,
    );
    const other = await suite.cli(
      'merchant:create',
      '--name',
      'Other Co',
      '--email',
      'other-clock@example.test',
    );
    await expect(suite.cli('clock:show', '--merchant', other.id, '--id', clock.id)).rejects.toThrow(
      AdminError,
    );
    expect(await suite.cli('clock:show', '--merchant', merchant.id, '--id', clock.id)).toMatchObject({
      frozen_time: '2025-03-01T00:00:00.000Z',
    });
  });
});

describe('admin CLI: operations (docs/operations.md)', () => {
  it('vault:rotate moves every stored card number to the first key of VAULT_KEYS, once', async () => {
    const shop = await suite.env.seedPciMerchant('vault-rotation');
    const cards = ['4242424242424242', '4012888888881881', '5555555555554444'];
    const tokens = await Promise.all(
      cards.map((cardNumber) =>
        insertCardToken(suite.env, { merchantId: shop.merchant.id, storeId: shop.store.id }, { cardNumber }),
      ),
    );
    const [oldKey] = suite.env.config.VAULT_KEYS;
    const newKey = `rotated:${randomBytes(32).toString('base64')}`;
    const rotatedEnv = {
      ...suite.env.variables,
      PUBLIC_BASE_URL: suite.url,
      VAULT_KEYS: `${newKey},${oldKey.id}:${Buffer.from(oldKey.key).toString('base64')}`,
    };
    const rotate = () =>
      runCli(['vault:rotate', '--batch', '2'], {
        env: rotatedEnv,
        credentialsFile: suite.cliCredentialsFile,
        print: () => undefined,
      });
    const first = (await rotate()) as any;
    expect(first).toMatchObject({ active_key_id: 'rotated', changed_meanwhile: 0 });
    expect(first.rotated).toBeGreaterThanOrEqual(cards.length);
    expect(first.entries_by_key_after).toEqual({ rotated: first.entries_by_key_before[oldKey.id] });
    // the numbers decrypt with the new key alone, unchanged, fingerprints kept
    const newOnly = new CardVault(
      [{ id: 'rotated', key: Buffer.from(newKey.split(':')[1], 'base64') }],
      suite.env.config.VAULT_FINGERPRINT_SECRET,
    );
    for (const [i, tokenId] of tokens.entries()) {
      const entry = await suite.env.prisma.cardVault.findUniqueOrThrow({
        where: { transactionTokenId: tokenId },
      });
      expect(entry.keyId).toBe('rotated');
      const number = newOnly.decrypt(
        { keyId: entry.keyId, iv: entry.iv, ciphertext: entry.ciphertext, authTag: entry.authTag },
        { transactionTokenId: tokenId },
      );
      expect(newOnly.fingerprint(number)).toBe(entry.fingerprint);
      expect(number.lastFour).toBe(cards[i].slice(-4));
    }
    expect(await rotate()).toMatchObject({ rotated: 0 });
  });

  it('jobs:failed lists a queue’s dead jobs and jobs:retry puts one back to waiting', async () => {
    const options = bullOptions(suite.env.config);
    const queue = new Queue(CHARGES_QUEUE.name, options);
    const worker = new Worker(
      CHARGES_QUEUE.name,
      () => Promise.reject(new UnrecoverableError('processor unreachable (test)')),
      { ...options, autorun: true },
    );
    try {
      const job = await queue.add('reconcile_charge', { aggregateId: randomUUID(), eventType: 'x' });
      await eventually(async () => (await job.getState()) === 'failed', { what: 'the job dead' });
      const listed = await suite.cli('jobs:failed', '--queue', CHARGES_QUEUE.name);
      expect(listed).toMatchObject({ queue: 'charges', failed: 1 });
      expect(listed.jobs).toEqual([
        expect.objectContaining({
          id: job.id,
          name: 'reconcile_charge',
          failed_reason: 'processor unreachable (test)',
        }),
      ]);
      await worker.close();
      expect(await suite.cli('jobs:retry', '--queue', CHARGES_QUEUE.name, '--id', job.id!)).toMatchObject({
        retried: 1,
      });
      expect(await job.getState()).toBe('waiting');
      await expect(suite.cli('jobs:retry', '--queue', CHARGES_QUEUE.name, '--id', job.id!)).rejects.toThrow(
        AdminError,
      );
      await expect(suite.cli('jobs:failed', '--queue', 'nope')).rejects.toThrow('--queue must be one of');
      await expect(suite.cli('jobs:retry', '--queue', CHARGES_QUEUE.name)).rejects.toThrow('--id or --all');
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
