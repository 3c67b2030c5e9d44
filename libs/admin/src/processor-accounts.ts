import { randomUUID } from 'node:crypto';
import type { ProcessConfig } from '@kessai/config';
import type { MerchantsRepository, ProcessorAccount, ProcessorAccountsRepository } from '@kessai/db';
import { isUuid } from '@kessai/domain';
import { ProcessorCredentialsCipher, type ProcessorCredentials } from '@kessai/vault';
import { AdminError } from './admin.service';

/**
 * The operator's processor accounts (docs/connectors.md, "Processor accounts"; decision 0055): a
 * merchant's accounts at KOMOJU, Stripe or the simulator, their credentials read from the
 * environment or standard input (never from the command line, which shell history and `ps` keep),
 * encrypted with the vault's keys, and never printed: a listing shows what identifies an account,
 * not what opens it.
 */

export const PROVIDERS = ['simulator', 'komoju', 'stripe'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The variables the credentials may come in, instead of standard input. */
export const SECRET_KEY_VARIABLE = 'PROCESSOR_ACCOUNT_SECRET_KEY';
export const WEBHOOK_SECRET_VARIABLE = 'PROCESSOR_ACCOUNT_WEBHOOK_SECRET';

/** As KOMOJU_WEBHOOK_SECRET and STRIPE_WEBHOOK_SECRET are held to. */
const MIN_WEBHOOK_SECRET = 16;
const MAX_SECRET = 512;

/** Where the credentials come from: the two variables when the first is set, else standard input. */
export interface CredentialsInput {
  env: NodeJS.ProcessEnv;
  /** standard input to its end: the secret key on its first line, the webhook secret on its second */
  readStdin?: () => Promise<string>;
}

type Repositories = { processorAccounts: ProcessorAccountsRepository; merchants: MerchantsRepository };
type VaultConfig = Pick<ProcessConfig<'admin'>, 'VAULT_KEYS'>;

export async function createProcessorAccount(
  repositories: Repositories,
  config: VaultConfig,
  input: { merchantId: string; provider: string; mode: 'test' | 'live'; name?: string },
  source: CredentialsInput,
) {
  const provider = providerOf(input.provider);
  const merchant = isUuid(input.merchantId)
    ? await repositories.merchants.findById(input.merchantId.toLowerCase())
    : null;
  if (!merchant) throw new AdminError(`no merchant ${input.merchantId}`);
  const name = (input.name ?? `${provider} ${input.mode}`).trim();
  if (!name || name.length > 100) throw new AdminError('--name must be 1 to 100 characters');
  const credentials = checkedCredentials(provider, await readCredentials(source));
  const id = randomUUID();
  const sealed = new ProcessorCredentialsCipher(config.VAULT_KEYS).seal(credentials, id);
  const account = await repositories.processorAccounts.create({
    id,
    merchantId: merchant.id,
    provider,
    mode: input.mode,
    name,
    ...sealed,
  });
  return describeProcessorAccount(account);
}

export async function listProcessorAccounts(repositories: Repositories, merchantId: string) {
  if (!isUuid(merchantId)) throw new AdminError(`no merchant ${merchantId}`);
  const accounts = await repositories.processorAccounts.listForMerchant(merchantId.toLowerCase());
  return accounts.map(describeProcessorAccount);
}

/**
 * New credentials for an account (the provider's key rolled): sealed with the active vault key.
 * The charges the account took keep using it, and so its new credentials from their next call.
 */
export async function rotateProcessorAccount(
  repositories: Repositories,
  config: VaultConfig,
  id: string,
  source: CredentialsInput,
) {
  const account = await accountOf(repositories, id);
  const credentials = checkedCredentials(account.provider, await readCredentials(source));
  const sealed = new ProcessorCredentialsCipher(config.VAULT_KEYS).seal(credentials, account.id);
  const rotated = await repositories.processorAccounts.replaceCredentials(account.id, sealed);
  if (!rotated) throw new AdminError(`no processor account ${id}`);
  return describeProcessorAccount(rotated);
}

/** A disabled account takes no new charge; the charges it took keep it for their capture, refund and cancel. */
export async function disableProcessorAccount(repositories: Repositories, id: string) {
  const account = await accountOf(repositories, id);
  const disabled = await repositories.processorAccounts.setStatus(account.id, 'disabled');
  if (!disabled) throw new AdminError(`no processor account ${id}`);
  return describeProcessorAccount(disabled);
}

/** What the operator sees of an account: never its credentials, nor anything derived from them. */
export function describeProcessorAccount(account: ProcessorAccount) {
  return {
    id: account.id,
    merchant_id: account.merchantId,
    provider: account.provider,
    mode: account.mode,
    name: account.name,
    status: account.status,
    key_id: account.keyId,
    created_on: account.createdOn.toISOString(),
    updated_on: account.updatedOn.toISOString(),
  };
}

async function accountOf(repositories: Repositories, id: string): Promise<ProcessorAccount> {
  const account = isUuid(id) ? await repositories.processorAccounts.find(id.toLowerCase()) : null;
  if (!account) throw new AdminError(`no processor account ${id}`);
  return account;
}

function providerOf(value: string): Provider {
  if ((PROVIDERS as readonly string[]).includes(value)) return value as Provider;
  throw new AdminError(`--provider must be one of ${PROVIDERS.join(', ')}`);
}

async function readCredentials(source: CredentialsInput): Promise<ProcessorCredentials> {
  const fromEnv = source.env[SECRET_KEY_VARIABLE];
  if (fromEnv !== undefined) {
    return {
      secretKey: blankToNull(fromEnv),
      webhookSecret: blankToNull(source.env[WEBHOOK_SECRET_VARIABLE]),
    };
  }
  if (!source.readStdin)
    throw new AdminError(
      `give the credentials in ${SECRET_KEY_VARIABLE} (and ${WEBHOOK_SECRET_VARIABLE}) or on standard input`,
    );
  const [secretKey, webhookSecret] = (await source.readStdin()).split(/\r?\n/);
  return { secretKey: blankToNull(secretKey), webhookSecret: blankToNull(webhookSecret) };
}

/**
 * The credentials a provider's adapter needs: KOMOJU and Stripe a secret key and a webhook secret
 * (the gateway verifies their deliveries with it); the simulator's protocol an API key at most.
 * Refusals name what is wrong, never a value.
 */
function checkedCredentials(provider: Provider, credentials: ProcessorCredentials): ProcessorCredentials {
  const { secretKey, webhookSecret } = credentials;
  for (const [label, value] of [
    ['the secret key', secretKey],
    ['the webhook secret', webhookSecret],
  ] as const) {
    if (value !== null && (value.length > MAX_SECRET || /\s/.test(value)))
      throw new AdminError(`${label} must be at most ${MAX_SECRET} characters without spaces`);
  }
  if (provider === 'simulator') {
    if (webhookSecret !== null)
      throw new AdminError(
        'a simulator account has no webhook secret (its notices are signed with PROCESSOR_CALLBACK_SECRET)',
      );
    return credentials;
  }
  if (secretKey === null) throw new AdminError(`a ${provider} account needs its secret key`);
  if (webhookSecret === null || webhookSecret.length < MIN_WEBHOOK_SECRET)
    throw new AdminError(
      `a ${provider} account needs its webhook secret, at least ${MIN_WEBHOOK_SECRET} characters`,
    );
  return credentials;
}

function blankToNull(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
