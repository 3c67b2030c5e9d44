// The operator's processor accounts (docs/connectors.md, "Processor accounts"): created, listed,
// rotated and disabled through the admin CLI, the credentials read from the environment or standard
// input only, stored encrypted with the vault's keys and moved by vault:rotate.
import { randomBytes } from 'node:crypto';
import { AdminError, runCli } from '@kessai/admin';
import { useSuite } from '@kessai/testing';
import { ProcessorCredentialsCipher } from '@kessai/vault';

const suite = useSuite({});

const SECRET_KEY = 'sk_live_cli_suite_secret_key_1';
const WEBHOOK_SECRET = 'cli-suite-webhook-secret-one';

type Any = any;

/** The CLI as an operator runs it, with `stdin` piped in and `env` over the suite's variables. */
function cli(argv: string[], io: { stdin?: string; env?: Record<string, string> } = {}): Promise<Any> {
  return runCli(argv, {
    env: { ...suite.env.variables, ...io.env },
    credentialsFile: suite.cliCredentialsFile,
    print: () => undefined,
    ...(io.stdin !== undefined ? { readStdin: () => Promise.resolve(io.stdin as string) } : {}),
  });
}

/** Every column of every processor account, as text: what a dump of the table would show. */
async function storedRows(): Promise<string> {
  const rows = await suite.env.prisma.processorAccount.findMany();
  return rows
    .map((row) =>
      [
        JSON.stringify({ ...row, iv: null, ciphertext: null, authTag: null }),
        Buffer.from(row.iv).toString('latin1'),
        Buffer.from(row.ciphertext).toString('latin1'),
        Buffer.from(row.authTag).toString('latin1'),
      ].join(' '),
    )
    .join('\n');
}

function credentialsOf(row: {
  id: string;
  keyId: string;
  iv: Uint8Array;
  ciphertext: Uint8Array;
  authTag: Uint8Array;
}) {
  return new ProcessorCredentialsCipher(suite.env.config.VAULT_KEYS).open(row, row.id);
}

describe('admin CLI: processor accounts', () => {
  let merchantId: string;
  beforeAll(async () => {
    merchantId = (await suite.env.seedMerchant('processor-accounts')).merchant.id;
  });

  it('creates a KOMOJU account from standard input, stored encrypted and never printed', async () => {
    const created = await cli(
      [
        'processor-account:create',
        '--merchant',
        merchantId,
        '--provider',
        'komoju',
        '--mode',
        'live',
        '--name',
        'KOMOJU JP',
      ],
      { stdin: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n` },
    );
    expect(created).toMatchObject({
      merchant_id: merchantId,
      provider: 'komoju',
      mode: 'live',
      name: 'KOMOJU JP',
      status: 'active',
      key_id: suite.env.config.VAULT_KEYS[0].id,
    });
    expect(JSON.stringify(created)).not.toContain(SECRET_KEY);
    expect(JSON.stringify(created)).not.toContain(WEBHOOK_SECRET);
    const row = await suite.env.prisma.processorAccount.findUniqueOrThrow({ where: { id: created.id } });
    expect(credentialsOf(row)).toEqual({ secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET });
    const stored = await storedRows();
    expect(stored).not.toContain(SECRET_KEY);
    expect(stored).not.toContain(WEBHOOK_SECRET);
  });

  it('takes the credentials from the environment instead, and lists accounts without them', async () => {
    const stripe = await cli(
      ['processor-account:create', '--merchant', merchantId, '--provider', 'stripe', '--mode', 'test'],
      {
        env: {
          PROCESSOR_ACCOUNT_SECRET_KEY: 'sk_test_from_env_variable',
          PROCESSOR_ACCOUNT_WEBHOOK_SECRET: 'whsec_from_env_variable',
        },
        // the environment wins: standard input is not read
        stdin: 'sk_test_not_this_one\nwhsec_not_this_one_either\n',
      },
    );
    expect(stripe).toMatchObject({ provider: 'stripe', mode: 'test', name: 'stripe test' });
    const row = await suite.env.prisma.processorAccount.findUniqueOrThrow({ where: { id: stripe.id } });
    expect(credentialsOf(row)).toEqual({
      secretKey: 'sk_test_from_env_variable',
      webhookSecret: 'whsec_from_env_variable',
    });
    const simulator = await cli(
      ['processor-account:create', '--merchant', merchantId, '--provider', 'simulator', '--mode', 'test'],
      { stdin: '' },
    );
    expect(simulator).toMatchObject({ provider: 'simulator', status: 'active' });

    const listed = await cli(['processor-account:list', '--merchant', merchantId]);
    expect(listed.map((account: Any) => account.id)).toEqual(
      expect.arrayContaining([stripe.id, simulator.id]),
    );
    expect(listed[0].id).toBe(simulator.id);
    const text = JSON.stringify(listed);
    for (const secret of [SECRET_KEY, WEBHOOK_SECRET, 'sk_test_from_env_variable', 'whsec_from_env_variable'])
      expect(text).not.toContain(secret);
    expect(Object.keys(listed[0]).sort()).toEqual(
      [
        'created_on',
        'id',
        'key_id',
        'merchant_id',
        'mode',
        'name',
        'provider',
        'status',
        'updated_on',
      ].sort(),
    );
  });

  it('refuses credentials on the command line, missing or short ones, and unknown merchants, echoing no value', async () => {
    const create = [
      'processor-account:create',
      '--merchant',
      merchantId,
      '--provider',
      'komoju',
      '--mode',
      'live',
    ];
    await expect(cli([...create, '--secret-key', 'sk_live_on_argv'])).rejects.toThrow(/--secret-key/);
    await expect(cli([...create, '--secret-key', 'sk_live_on_argv'])).rejects.not.toThrow(/sk_live_on_argv/);
    await expect(cli(create)).rejects.toThrow(AdminError);
    await expect(cli(create, { stdin: 'sk_live_without_webhook\n' })).rejects.toThrow(
      /needs its webhook secret/,
    );
    await expect(cli(create, { stdin: 'sk_live_short_webhook\nshort\n' })).rejects.toThrow(/at least 16/);
    await expect(cli(create, { stdin: 'sk_live_short_webhook\nshort\n' })).rejects.not.toThrow(/short/);
    await expect(cli(create, { stdin: '\nsome-webhook-secret-long-enough\n' })).rejects.toThrow(
      /needs its secret key/,
    );
    await expect(
      cli(['processor-account:create', '--merchant', merchantId, '--provider', 'adyen', '--mode', 'live'], {
        stdin: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n`,
      }),
    ).rejects.toThrow(/--provider must be one of simulator, komoju, stripe/);
    await expect(
      cli(['processor-account:create', '--merchant', merchantId, '--provider', 'komoju'], {
        stdin: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n`,
      }),
    ).rejects.toThrow('--mode is required');
    await expect(
      cli(
        [
          'processor-account:create',
          '--merchant',
          '00000000-0000-4000-8000-000000000000',
          '--provider',
          'komoju',
          '--mode',
          'live',
        ],
        { stdin: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n` },
      ),
    ).rejects.toThrow(/no merchant/);
  });

  it('rotates an account’s credentials and disables it', async () => {
    const account = await cli(
      ['processor-account:create', '--merchant', merchantId, '--provider', 'komoju', '--mode', 'live'],
      { stdin: `sk_live_before_rotation\nwebhook-before-rotation\n` },
    );
    const rotated = await cli(['processor-account:rotate', '--id', account.id], {
      stdin: 'sk_live_after_rotation\nwebhook-after-rotation\n',
    });
    expect(rotated).toMatchObject({ id: account.id, status: 'active' });
    expect(Date.parse(rotated.updated_on)).toBeGreaterThanOrEqual(Date.parse(account.updated_on));
    const row = await suite.env.prisma.processorAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(credentialsOf(row)).toEqual({
      secretKey: 'sk_live_after_rotation',
      webhookSecret: 'webhook-after-rotation',
    });
    await expect(
      cli(['processor-account:rotate', '--id', account.id], { stdin: 'sk_live_no_webhook\n' }),
    ).rejects.toThrow(/needs its webhook secret/);

    expect(await cli(['processor-account:disable', '--id', account.id])).toMatchObject({
      id: account.id,
      status: 'disabled',
    });
    await expect(cli(['processor-account:disable', '--id', 'nope'])).rejects.toThrow(/no processor account/);
    await expect(
      cli(['processor-account:rotate', '--id', '00000000-0000-4000-8000-000000000000'], {
        stdin: `${SECRET_KEY}\n${WEBHOOK_SECRET}\n`,
      }),
    ).rejects.toThrow(/no processor account/);
  });

  it('vault:rotate moves the credentials to the first key of VAULT_KEYS, once', async () => {
    const account = await cli(
      ['processor-account:create', '--merchant', merchantId, '--provider', 'stripe', '--mode', 'live'],
      { stdin: 'sk_live_vault_rotation\nwhsec_vault_rotation_secret\n' },
    );
    const [oldKey] = suite.env.config.VAULT_KEYS;
    const newKey = randomBytes(32);
    const rotatedEnv = {
      VAULT_KEYS: `rotated:${newKey.toString('base64')},${oldKey.id}:${Buffer.from(oldKey.key).toString('base64')}`,
    };
    const first = await cli(['vault:rotate', '--batch', '2'], { env: rotatedEnv });
    const before = first.processor_accounts.credentials_by_key_before[oldKey.id];
    expect(before).toBeGreaterThanOrEqual(1);
    expect(first.processor_accounts).toMatchObject({
      rotated: before,
      changed_meanwhile: 0,
      credentials_by_key_after: { rotated: before },
    });
    const row = await suite.env.prisma.processorAccount.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.keyId).toBe('rotated');
    expect(new ProcessorCredentialsCipher([{ id: 'rotated', key: newKey }]).open(row, row.id)).toEqual({
      secretKey: 'sk_live_vault_rotation',
      webhookSecret: 'whsec_vault_rotation_secret',
    });
    expect((await cli(['vault:rotate'], { env: rotatedEnv })).processor_accounts).toMatchObject({
      rotated: 0,
    });
  });
});
