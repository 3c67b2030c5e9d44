// Bank accounts as a merchant sees them through the official univapay-node SDK (bankAccounts.*:
// create, list, get, update, delete, getPrimary), against the real gateway and Postgres: the wire
// field by field, the SDK's error codes, the account number encrypted at rest and answered masked,
// one primary per currency held by the database itself, and the operator's verification of a live
// account through the CLI (docs/ledger.md, "Bank accounts"; decision 0032).
import { BankAccountStatus, BankAccountType, type ResponseBankAccount } from 'univapay-node';
import type SDK from 'univapay-node';
import { randomBytes } from 'node:crypto';
import { runCli } from '@kessai/admin';
import { sdkError, sdkFor, useSuite } from '@kessai/testing';
import { BankAccountCipher } from '@kessai/vault';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: {}, other: {}, racer: {}, empty: {}, live: {} },
});

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let shop: SDK;

async function merchantSdk(
  name: 'shop' | 'other' | 'racer' | 'empty' | 'live',
  mode: 'test' | 'live' = 'test',
) {
  const token = await suite.env.merchantToken(suite.merchants[name], mode);
  return sdkFor(suite.url, token);
}

const mizuho = {
  accountNumber: '1234567',
  country: 'JP',
  currency: 'JPY',
  holderName: 'Yamada Shoten KK',
  bankName: 'Mizuho Bank',
  branchName: 'Shibuya',
  bankAddress: '1-1 Shibuya, Tokyo',
  swiftCode: 'mhcbjpjt',
  routingCode: '0001-210',
  accountType: BankAccountType.CHECKING,
};

beforeAll(async () => {
  shop = await merchantSdk('shop');
});

describe('bankAccounts through the SDK', () => {
  let first: ResponseBankAccount;

  it('creates an account: the wire field by field, the number masked, verified at once in test mode', async () => {
    first = await shop.bankAccounts.create(mizuho);
    expect(first).toEqual({
      id: expect.stringMatching(UUID),
      holderName: 'Yamada Shoten KK',
      bankName: 'Mizuho Bank',
      branchName: 'Shibuya',
      country: 'JP',
      bankAddress: '1-1 Shibuya, Tokyo',
      currency: 'JPY',
      swiftCode: 'MHCBJPJT',
      routingCode: '0001-210',
      lastFour: '4567',
      status: BankAccountStatus.VERIFIED,
      createdOn: expect.stringMatching(ISO_INSTANT),
      // the first account of its currency is its primary
      primary: true,
      accountNumber: '****4567',
      accountType: BankAccountType.CHECKING,
      mode: 'test',
    });
    expect(await shop.bankAccounts.get(first.id)).toEqual(first);
  });

  it('stores the number encrypted: no column of the row holds it', async () => {
    const [row] = await suite.env.prisma.$queryRaw<{ text: string }[]>`
      SELECT b::text AS text FROM bank_accounts b WHERE id = ${first.id}::uuid`;
    expect(row.text).not.toContain('1234567');
    expect(row.text).not.toContain(Buffer.from('1234567').toString('hex'));
  });

  it('refuses the same number at the same bank again: 409 BANK_ACCOUNT_EXISTS', async () => {
    const error = await sdkError(
      shop.bankAccounts.create({ ...mizuho, bankName: 'MIZUHO BANK', accountType: BankAccountType.SAVINGS }),
    );
    expect(error).toMatchObject({
      code: 'BANK_ACCOUNT_EXISTS',
      httpCode: 409,
      errors: [{ field: 'account_number', reason: 'BANK_ACCOUNT_EXISTS' }],
    });
  });

  it('keeps one primary per currency: a second account is not, unless asked, and then the primary moves', async () => {
    const second = await shop.bankAccounts.create({ ...mizuho, accountNumber: '7654321' });
    expect(second).toMatchObject({ primary: false, lastFour: '4321' });
    expect((await shop.bankAccounts.getPrimary()).id).toBe(first.id);

    const third = await shop.bankAccounts.create({ ...mizuho, accountNumber: '1111222', primary: true });
    expect(third.primary).toBe(true);
    expect((await shop.bankAccounts.get(first.id)).primary).toBe(false);
    expect(await shop.bankAccounts.getPrimary()).toEqual(third);

    const all = await shop.bankAccounts.list();
    expect(all.items.map((account) => account.id)).toEqual([third.id, second.id, first.id]);
    expect(all.hasMore).toBe(false);
    const primaries = await shop.bankAccounts.list({ primary: true });
    expect(primaries.items.map((account) => account.id)).toEqual([third.id]);
    // keyset pages: after the newest, the two older ones
    const after = await shop.bankAccounts.list({ cursor: third.id });
    expect(after.items.map((account) => account.id)).toEqual([second.id, first.id]);

    // primary: true on an account of its currency moves it back
    expect((await shop.bankAccounts.update(first.id, { primary: true })).primary).toBe(true);
    expect((await shop.bankAccounts.getPrimary()).id).toBe(first.id);
  });

  it('changes an account; a new number is masked anew and the primary cannot be unset or deleted first', async () => {
    const changed = await shop.bankAccounts.update(first.id, {
      holderName: 'Yamada KK',
      accountNumber: '99998888',
    });
    expect(changed).toMatchObject({
      id: first.id,
      holderName: 'Yamada KK',
      lastFour: '8888',
      accountNumber: '****8888',
      status: BankAccountStatus.VERIFIED,
      primary: true,
    });

    expect(await sdkError(shop.bankAccounts.update(first.id, { primary: false }))).toMatchObject({
      code: 'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT',
      httpCode: 400,
      errors: [{ field: 'primary', reason: 'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT' }],
    });
    expect(await sdkError(shop.bankAccounts.delete(first.id))).toMatchObject({
      code: 'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT',
      httpCode: 400,
    });
  });

  it('deletes the others, then the primary as its currency’s last account', async () => {
    const others = (await shop.bankAccounts.list()).items.filter((account) => account.id !== first.id);
    for (const account of others) await shop.bankAccounts.delete(account.id);
    expect(await sdkError(shop.bankAccounts.get(others[0].id))).toMatchObject({
      code: 'NOT_FOUND',
      httpCode: 404,
    });
    await shop.bankAccounts.delete(first.id);
    expect(await sdkError(shop.bankAccounts.getPrimary())).toMatchObject({
      code: 'PRIMARY_BANK_ACCOUNT_NOT_FOUND',
      httpCode: 404,
    });
    // a deleted account's number may be added again
    expect((await shop.bankAccounts.create(mizuho)).primary).toBe(true);
  });

  it('answers the primary of a currency when there are several (Kessai’s `currency` query)', async () => {
    const usd = await shop.bankAccounts.create({
      ...mizuho,
      accountNumber: '000123456789',
      country: 'US',
      currency: 'USD',
      bankName: 'Chase',
      branchName: undefined,
      swiftCode: 'CHASUS33',
      routingNumber: '021000021',
      routingCode: undefined,
      accountType: BankAccountType.SAVINGS,
    });
    expect(usd).toMatchObject({
      primary: true,
      routingNumber: '021000021',
      accountType: BankAccountType.SAVINGS,
    });
    expect(await sdkError(shop.bankAccounts.getPrimary())).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'currency', reason: 'REQUIRED_VALUE' }],
    });
    const primary = await shop.bankAccounts.getPrimary({ currency: 'usd' } as never);
    expect(primary.id).toBe(usd.id);
  });
});

describe('bank account refusals', () => {
  it('names each invalid field with the SDK’s reason', async () => {
    const error = await sdkError(
      shop.bankAccounts.create({
        ...mizuho,
        accountNumber: '12AB',
        country: 'Japan',
        swiftCode: 'MH',
        routingNumber: '12',
        ifscCode: 'bad',
        accountType: 'current' as BankAccountType,
      }),
    );
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.httpCode).toBe(400);
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { field: 'account_number', reason: 'INVALID_FORMAT_BANK_ACCOUNT_NUMBER' },
        { field: 'country', reason: 'INVALID_FORMAT_COUNTRY' },
        { field: 'swift_code', reason: 'INVALID_FORMAT_SWIFT_CODE' },
        { field: 'routing_number', reason: 'INVALID_FORMAT_ROUTING_NUMBER' },
        { field: 'ifsc_code', reason: 'INVALID_FORMAT_IFCS_CODE' },
        { field: 'account_type', reason: 'INVALID_FORMAT' },
      ]),
    );
    expect(error.errors).toHaveLength(6);
  });

  it('requires what the SDK requires, on the wire too', async () => {
    const response = await suite.gateway
      .as(await suite.env.merchantToken(suite.merchants.shop))
      .request('/bank_accounts', { method: 'POST', json: { account_number: '1234567' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      status: 'error',
      code: 'VALIDATION_ERROR',
      errors: expect.arrayContaining([
        { field: 'country', reason: 'REQUIRED_VALUE' },
        { field: 'currency', reason: 'REQUIRED_VALUE' },
        { field: 'holder_name', reason: 'REQUIRED_VALUE' },
        { field: 'bank_name', reason: 'REQUIRED_VALUE' },
      ]),
    });
  });

  it('keeps the currency: a change of it is FORBIDDEN_PARAMETER', async () => {
    const account = (await shop.bankAccounts.list()).items[0];
    expect(await sdkError(shop.bankAccounts.update(account.id, { currency: 'EUR' }))).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'currency', reason: 'FORBIDDEN_PARAMETER' }],
    });
  });

  it('is the merchant’s own: another merchant gets 404, a store token 403', async () => {
    const account = (await shop.bankAccounts.list()).items[0];
    const other = await merchantSdk('other');
    expect(await sdkError(other.bankAccounts.get(account.id))).toMatchObject({
      httpCode: 404,
      code: 'NOT_FOUND',
    });
    expect(await sdkError(other.bankAccounts.delete(account.id))).toMatchObject({ httpCode: 404 });
    expect((await other.bankAccounts.list()).items).toEqual([]);
    expect(await sdkError(other.bankAccounts.get('not-a-uuid'))).toMatchObject({ httpCode: 404 });
    expect(await sdkError(suite.sdk.shop.bankAccounts.list())).toMatchObject({
      httpCode: 403,
      code: 'INVALID_PERMISSIONS',
    });
  });
});

describe('one primary per currency, whatever runs at once', () => {
  it('gives a currency one primary when its first accounts are created in parallel', async () => {
    const racer = await merchantSdk('racer');
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        racer.bankAccounts.create({ ...mizuho, accountNumber: `5000000${i}` }),
      ),
    );
    expect(created.filter((account) => account.primary)).toHaveLength(1);
    expect((await racer.bankAccounts.list({ primary: true })).items).toHaveLength(1);
  });

  it('is the database’s own rule: a second primary written by hand is refused', async () => {
    const racer = await merchantSdk('racer');
    const notPrimary = (await racer.bankAccounts.list({ primary: false })).items[0];
    await expect(
      suite.env.prisma
        .$executeRaw`UPDATE bank_accounts SET "primary" = true WHERE id = ${notPrimary.id}::uuid`,
    ).rejects.toThrow(/bank_accounts_primary_key|unique/i);
    await expect(
      suite.env.prisma.$executeRaw`
        UPDATE bank_accounts SET deleted_on = now() WHERE "primary" AND merchant_id = ${suite.merchants.racer.merchant.id}::uuid`,
    ).rejects.toThrow(/cannot be primary/);
  });
});

describe('live accounts and the operator', () => {
  it('starts a live account new, invisible to test mode, until the operator verifies it', async () => {
    await suite.cli('merchant:verify', '--merchant', suite.merchants.live.merchant.id);
    const live = await merchantSdk('live', 'live');
    const account = await live.bankAccounts.create(mizuho);
    expect(account).toMatchObject({ status: BankAccountStatus.NEW, mode: 'live', primary: true });
    expect((await (await merchantSdk('live')).bankAccounts.list()).items).toEqual([]);

    const listed = await suite.cli('bank-accounts', '--merchant', suite.merchants.live.merchant.id);
    expect(listed).toEqual([expect.objectContaining({ id: account.id, status: 'new', last_four: '4567' })]);
    expect(JSON.stringify(listed)).not.toContain('1234567');

    const verified = await suite.cli('bank-account:verify', '--id', account.id, '--status', 'verified');
    expect(verified).toMatchObject({ id: account.id, status: 'verified' });
    expect((await live.bankAccounts.get(account.id)).status).toBe(BankAccountStatus.VERIFIED);

    // a new number is verified again
    const changed = await live.bankAccounts.update(account.id, { accountNumber: '2345678' });
    expect(changed.status).toBe(BankAccountStatus.NEW);
    await expect(
      suite.cli('bank-account:verify', '--id', account.id, '--status', 'approved'),
    ).rejects.toThrow(/--status must be one of/);
    // a test-mode account is not the operator's to judge
    const testAccount = (await shop.bankAccounts.list()).items[0];
    await expect(
      suite.cli('bank-account:verify', '--id', testAccount.id, '--status', 'errored'),
    ).rejects.toThrow(/no live bank account/);
  });

  it('answers 404 PRIMARY_BANK_ACCOUNT_NOT_FOUND to a merchant with no account', async () => {
    const empty = await merchantSdk('empty');
    expect(await sdkError(empty.bankAccounts.getPrimary())).toMatchObject({
      code: 'PRIMARY_BANK_ACCOUNT_NOT_FOUND',
      httpCode: 404,
    });
  });
});

describe('vault:rotate', () => {
  it('moves every bank account number to the first key of VAULT_KEYS, deleted accounts’ too', async () => {
    const [oldKey] = suite.env.config.VAULT_KEYS;
    const before = await suite.env.prisma.bankAccount.findMany({ where: { keyId: oldKey.id } });
    expect(before.some((account) => account.deletedOn !== null)).toBe(true);
    const newKey = randomBytes(32);
    const rotate = () =>
      runCli(['vault:rotate', '--batch', '2'], {
        env: {
          ...suite.env.variables,
          VAULT_KEYS: `rotated:${newKey.toString('base64')},${oldKey.id}:${Buffer.from(oldKey.key).toString('base64')}`,
        },
        credentialsFile: suite.cliCredentialsFile,
        print: () => undefined,
      }) as Promise<any>;
    const first = await rotate();
    expect(first.bank_accounts).toEqual({
      rotated: before.length,
      changed_meanwhile: 0,
      numbers_by_key_before: { [oldKey.id]: before.length },
      numbers_by_key_after: { rotated: before.length },
    });
    // the numbers open with the new key alone, unchanged; the fingerprints are kept
    const newOnly = new BankAccountCipher(
      [{ id: 'rotated', key: newKey }],
      suite.env.config.VAULT_FINGERPRINT_SECRET,
    );
    const oldOnly = new BankAccountCipher([oldKey], suite.env.config.VAULT_FINGERPRINT_SECRET);
    for (const account of before) {
      const after = await suite.env.prisma.bankAccount.findUniqueOrThrow({ where: { id: account.id } });
      expect(after.keyId).toBe('rotated');
      expect(after.fingerprint).toBe(account.fingerprint);
      expect(newOnly.decrypt(after, after.id)).toBe(oldOnly.decrypt(account, account.id));
    }
    // run again: nothing left to move
    expect((await rotate()).bank_accounts).toMatchObject({
      rotated: 0,
      numbers_by_key_after: { rotated: before.length },
    });
  });
});
