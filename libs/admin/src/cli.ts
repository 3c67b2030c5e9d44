/**
 * The admin CLI's commands (`npm run cli -- <command> [options]`); scripts/cli.ts is its entry point.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '@kessai/config';
import { StandaloneDatabase, type MerchantUser } from '@kessai/db';
import { AdminError, AdminService, describeMerchant, describeStore, describeUser } from './admin.service';
import { bootstrapDemo } from './bootstrap';
import { listFailedJobs, retryFailedJobs, rotateVault, sealWebhookSecrets } from './operations';
import { adjustLedger, verifyLedger } from './ledger';
import { listBankAccounts, verifyBankAccount } from './bank-accounts';
import { approveTransfer, cancelTransfer, listTransfers } from './transfers';
import { refundsInError, retryRefund } from './refunds';
import { strayDeposits } from './stray-deposits';
import { reviewVerification, showVerification } from './verifications';
import { listExchangeRates, setExchangeRate } from './exchange-rates';
import { removeStoreLogo, setStoreLogo } from './store-logo';
import {
  createProcessorAccount,
  disableProcessorAccount,
  listProcessorAccounts,
  rotateProcessorAccount,
  SECRET_KEY_VARIABLE,
  WEBHOOK_SECRET_VARIABLE,
} from './processor-accounts';
import {
  clearProcessorRoute,
  listProcessorRoutes,
  setProcessorRoute,
  showChargeProcessing,
  showTokenProcessing,
  type RouteInput,
} from './processor-routes';
import { advanceTestClock, createTestClock, showTestClock } from './test-clocks';
import {
  createCheckoutForm,
  createCheckoutProduct,
  listCheckoutForms,
  listCheckoutProducts,
  showCheckoutForm,
  updateCheckoutForm,
  updateCheckoutProduct,
} from './checkout';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  merchant:create --name NAME --email EMAIL [--verified]
  merchant:pci --merchant ID [--off]          mark a merchant PCI DSS compliant (or not, with --off)
  merchant:verify --merchant ID [--off]       mark a merchant verified (live mode opens to it) or not
                                              (closes), without its verification data
  verification:show --merchant ID             the merchant's verification (onboarding data) and review
  verification:approve --merchant ID --by NAME
                                              approve it: the merchant is verified, live mode opens
  verification:reject --merchant ID --by NAME --reason TEXT
                                              reject it: the merchant is not verified, live mode closes
  exchange-rate:set --from CUR --to CUR --rate DECIMAL --by NAME
                                              the operator's rate of a pair (units of --to per unit
                                              of --from, e.g. JPY→USD 0.0067), docs/exchange-rates.md
  exchange-rate:list                          every rate, with who set it and when
  merchant:configure --merchant ID --set JSON
                                              change the merchant's configuration (docs/configuration.md):
                                              keys given replace, null removes, others are kept
  store:create --merchant ID --name NAME
  store:configure --store ID --set JSON       the same for a store, over its merchant's settings
                                              (checkout_colors: the hosted checkout's colours)
  store:logo --store ID (--file PATH | --remove)
                                              the store's checkout logo: a PNG, JPEG or WebP of at
                                              most 256 KiB, served by the gateway
  token:create --merchant ID [--store ID] [--mode test|live] [--domain HOST]...
                                              store-scoped with --store, else merchant-scoped;
                                              the secret is printed once and stored only as a hash
  token:list --merchant ID [--store ID]
  token:revoke --id ID                        also revokes every token it issued, transitively
  user:create --merchant ID --email EMAIL --password PASSWORD [--name NAME] [--role owner|admin|developer|viewer]
                                              a merchant user, who signs in with POST /authenticate
  clock:create --merchant ID --time ISO [--name NAME]
                                              a test clock at that instant (docs/subscriptions.md)
  clock:show --merchant ID --id ID            a test clock and its status (advancing or ready)
  clock:advance --merchant ID --id ID --time ISO
                                              move it later: the engine charges what falls due
  checkout:form:create --store ID --app-token ID --name NAME [--set JSON]
                                              a hosted checkout form design of the store, acting
                                              with that store app token (its mode is the form's);
                                              --set: the design, snake_case (docs/hosted-checkout.md)
  checkout:form:update --id ID --set JSON     change the fields given (null clears one)
  checkout:form:show --id ID
  checkout:form:list --store ID
  checkout:product:create --store ID --name NAME --amount N --currency CUR [--code CODE] [--set JSON]
                                              a product the store's links may sell (amount in
                                              minor units; the code is unique in the store)
  checkout:product:update --id ID --set JSON  e.g. {"active": false}
  checkout:product:list --store ID
  processor-account:create --merchant ID --provider simulator|komoju|stripe --mode test|live [--name NAME]
                                              a merchant's account at a processor (docs/connectors.md);
                                              its secret key and webhook secret from
                                              ${SECRET_KEY_VARIABLE} and ${WEBHOOK_SECRET_VARIABLE}, else
                                              standard input (line 1 the key, line 2 the webhook
                                              secret), never from the command line; stored encrypted
  processor-account:list --merchant ID        its accounts, without their credentials
  processor-account:rotate --id ID            new credentials for the account, read as for :create
  processor-account:disable --id ID           the account takes no new charge (its charges keep it)
  processor-route:set --store ID --mode test|live --payment-type card|konbini|bank_transfer|online
                      [--currency CUR] --account ID [--fallback ID]
                                              the account that takes the store's new charges of that
                                              mode, payment type (online: online and QR) and
                                              currency (* or none: any; a code's route wins), and the
                                              one that takes those it provably did not execute
                                              (connection refused, DNS failure, "not processed")
  processor-route:clear --store ID --mode M --payment-type T [--currency CUR]
                                              back to the mode's default processor
  processor-route:list --store ID             the store's routes
  charge:processing --id ID                   the processor account that took a charge (its route's,
                                              or the fallback it failed over to) and the provider's
                                              payment id (never in the merchant's API)
  token:processing --id ID                    the processor account each of a card token's own
                                              checks (3-D Secure, CVV authorization) went to, and
                                              the provider's payment id (never in the merchant's API)
  vault:rotate [--batch N]                    re-encrypt every stored card and bank account number,
                                              processor account credentials and webhook secrets,
                                              still under an older key with VAULT_KEYS' first
                                              (docs/operations.md)
  webhooks:seal [--batch N]                   seal the webhooks' secrets an older release stored in
                                              plaintext, clearing it (idempotent; docs/operations.md)
  jobs:failed --queue NAME [--limit N]        a queue's dead jobs, newest first (default 20)
  jobs:retry --queue NAME (--id JOB | --all)  dead jobs back to waiting
  deposits:stray [--merchant ID] [--limit N]  money recorded but paying no charge: deposits for no
                                              charge of ours, and deposits that came after their
                                              charge ended (of one merchant's charges with --merchant)
  refunds:errored [--merchant ID] [--limit N] refunds the processor never answered (status error,
                                              amount still reserved), oldest first (default 100)
  refund:retry --id ID                        send a refund in error to the processor again under its
                                              own key (executed at most once), now
  ledger:verify                               check every invariant of the books (docs/ledger.md):
                                              exits 1 when one fails
  ledger:adjust --store ID --amount N --currency CUR --reason TEXT --by NAME [--mode test|live] [--id ID]
                                              correct what a store is owed (minor units; negative:
                                              owed less), recorded with the reason and the operator
  bank-accounts --merchant ID                 a merchant's bank accounts of every mode, deleted ones
                                              too (numbers as their last four)
  bank-account:verify --id ID --status S      a live bank account's verification outcome: verified,
                                              unable_to_verify or errored (docs/ledger.md)
  transfer:list [--merchant ID] [--mode M] [--status S] [--limit N]
                                              transfers, newest first (docs/ledger.md)
  transfer:approve --id ID --by NAME          approve a live transfer (its bank account verified)
  transfer:cancel --id ID --by NAME --reason TEXT
                                              cancel a transfer not sent yet: its money is
                                              available again, paid on the next payout day
  bootstrap [--json]                          create or reuse the demo merchant, store, test token
                                              and user
`;

const options = {
  name: { type: 'string' },
  email: { type: 'string' },
  verified: { type: 'boolean' },
  merchant: { type: 'string' },
  store: { type: 'string' },
  mode: { type: 'string' },
  domain: { type: 'string', multiple: true },
  id: { type: 'string' },
  password: { type: 'string' },
  off: { type: 'boolean' },
  set: { type: 'string' },
  time: { type: 'string' },
  'app-token': { type: 'string' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  code: { type: 'string' },
  limit: { type: 'string' },
  json: { type: 'boolean' },
  queue: { type: 'string' },
  batch: { type: 'string' },
  all: { type: 'boolean' },
  file: { type: 'string' },
  remove: { type: 'boolean' },
  reason: { type: 'string' },
  role: { type: 'string' },
  by: { type: 'string' },
  status: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  rate: { type: 'string' },
  provider: { type: 'string' },
  'payment-type': { type: 'string' },
  account: { type: 'string' },
  fallback: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function required(value: string | undefined, flag: string): string {
  if (!value) throw new AdminError(`--${flag} is required`);
  return value;
}

function jsonOf(text: string, flag: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AdminError(`--${flag} must be JSON`);
  }
}

/** --set as a JSON object ({} when absent). */
function objectOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  const value = jsonOf(text, 'set');
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new AdminError('--set must be a JSON object');
  return value as Record<string, unknown>;
}

function integer(text: string, flag: string): number {
  if (!/^\d{1,13}$/.test(text)) throw new AdminError(`--${flag} must be a whole number`);
  return Number(text);
}

/** --amount as signed minor units (ledger:adjust). */
function signedAmount(text: string): bigint {
  if (!/^-?\d{1,13}$/.test(text)) throw new AdminError('--amount must be a whole number of minor units');
  return BigInt(text);
}

function positiveInt(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1 || value > 10_000)
    throw new AdminError(`--${flag} must be an integer from 1 to 10000`);
  return value;
}

function mode(value: string | undefined): 'test' | 'live' {
  if (value === undefined || value === 'test') return 'test';
  if (value === 'live') return 'live';
  throw new AdminError('--mode must be test or live');
}

export function baseUrlOf(config: { PUBLIC_BASE_URL?: string; PORT: number }): string {
  return config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
}

export interface CliContext {
  env: NodeJS.ProcessEnv;
  /** where `bootstrap` remembers the demo credentials */
  credentialsFile: string;
  print(text: string): void;
  /** standard input to its end, where a processor account's credentials may come from */
  readStdin?: () => Promise<string>;
}

/** Runs one command; resolves to the JSON-able result (undefined when usage was printed). */
export async function runCli(argv: string[], context: CliContext): Promise<unknown> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
  const command = positionals[0];
  if (!command || values.help) {
    context.print(USAGE);
    return undefined;
  }
  const config = loadConfig(context.env, 'admin');
  const database = new StandaloneDatabase(config);
  const admin = new AdminService(database, config);
  try {
    switch (command) {
      case 'merchant:create':
        return describeMerchant(
          await admin.createMerchant({
            name: required(values.name, 'name'),
            email: required(values.email, 'email'),
            verified: values.verified ?? false,
          }),
        );
      case 'merchant:pci':
        return describeMerchant(
          await admin.setPciDssCompliant(required(values.merchant, 'merchant'), !values.off),
        );
      case 'merchant:verify':
        return describeMerchant(await admin.setVerified(required(values.merchant, 'merchant'), !values.off));
      case 'verification:show':
        return await showVerification(database, required(values.merchant, 'merchant'));
      case 'verification:approve':
      case 'verification:reject': {
        const approved = command === 'verification:approve';
        return await reviewVerification(database, admin, required(values.merchant, 'merchant'), {
          status: approved ? 'approved' : 'rejected',
          by: required(values.by, 'by'),
          reason: approved ? null : required(values.reason, 'reason'),
        });
      }
      case 'exchange-rate:set':
        return await setExchangeRate(database, {
          from: required(values.from, 'from'),
          to: required(values.to, 'to'),
          rate: required(values.rate, 'rate'),
          by: required(values.by, 'by'),
        });
      case 'exchange-rate:list':
        return await listExchangeRates(database);
      case 'merchant:configure':
        return await admin.configureMerchant(
          required(values.merchant, 'merchant'),
          jsonOf(required(values.set, 'set'), 'set'),
        );
      case 'store:configure':
        return await admin.configureStore(
          required(values.store, 'store'),
          jsonOf(required(values.set, 'set'), 'set'),
        );
      case 'store:logo': {
        const storeId = required(values.store, 'store');
        if (values.remove) return await removeStoreLogo(database, storeId);
        return await setStoreLogo(database, storeId, required(values.file, 'file'), baseUrlOf(config));
      }
      case 'store:create':
        return describeStore(
          await admin.createStore({
            merchantId: required(values.merchant, 'merchant'),
            name: required(values.name, 'name'),
          }),
        );
      case 'token:create':
        return await admin.issueAppToken({
          merchantId: required(values.merchant, 'merchant'),
          storeId: values.store ?? null,
          mode: mode(values.mode),
          domains: values.domain ?? [],
        });
      case 'token:list':
        return await admin.listAppTokens(required(values.merchant, 'merchant'), values.store);
      case 'token:revoke':
        return await admin.revokeAppToken(required(values.id, 'id'));
      case 'user:create':
        return describeUser(
          await admin.createUser({
            merchantId: required(values.merchant, 'merchant'),
            email: required(values.email, 'email'),
            password: required(values.password, 'password'),
            name: values.name,
            role: values.role === undefined ? undefined : userRole(values.role),
          }),
        );
      case 'clock:create':
        return await createTestClock(database, {
          merchantId: required(values.merchant, 'merchant'),
          time: required(values.time, 'time'),
          name: values.name,
        });
      case 'clock:show':
        return await showTestClock(
          database,
          required(values.merchant, 'merchant'),
          required(values.id, 'id'),
        );
      case 'clock:advance':
        return await advanceTestClock(database, {
          merchantId: required(values.merchant, 'merchant'),
          id: required(values.id, 'id'),
          time: required(values.time, 'time'),
        });
      case 'checkout:form:create':
        return await createCheckoutForm(database, {
          storeId: required(values.store, 'store'),
          appTokenId: required(values['app-token'], 'app-token'),
          name: required(values.name, 'name'),
          design: values.set === undefined ? undefined : jsonOf(values.set, 'set'),
        });
      case 'checkout:form:update':
        return await updateCheckoutForm(
          database,
          required(values.id, 'id'),
          jsonOf(required(values.set, 'set'), 'set'),
        );
      case 'checkout:form:show':
        return await showCheckoutForm(database, required(values.id, 'id'));
      case 'checkout:form:list':
        return await listCheckoutForms(database, required(values.store, 'store'));
      case 'checkout:product:create':
        return await createCheckoutProduct(database, {
          storeId: required(values.store, 'store'),
          product: {
            ...objectOf(values.set),
            name: required(values.name, 'name'),
            amount: integer(required(values.amount, 'amount'), 'amount'),
            currency: required(values.currency, 'currency'),
            ...(values.code !== undefined ? { code: values.code } : {}),
          },
        });
      case 'checkout:product:update':
        return await updateCheckoutProduct(
          database,
          required(values.id, 'id'),
          jsonOf(required(values.set, 'set'), 'set'),
        );
      case 'checkout:product:list':
        return await listCheckoutProducts(database, required(values.store, 'store'));
      case 'processor-account:create':
        return await createProcessorAccount(
          database,
          config,
          {
            merchantId: required(values.merchant, 'merchant'),
            provider: required(values.provider, 'provider'),
            mode: mode(required(values.mode, 'mode')),
            name: values.name,
          },
          context,
        );
      case 'processor-account:list':
        return await listProcessorAccounts(database, required(values.merchant, 'merchant'));
      case 'processor-account:rotate':
        return await rotateProcessorAccount(database, config, required(values.id, 'id'), context);
      case 'processor-account:disable':
        return await disableProcessorAccount(database, required(values.id, 'id'));
      case 'processor-route:set':
        return await setProcessorRoute(
          database,
          routeInput(values),
          required(values.account, 'account'),
          values.fallback ?? null,
        );
      case 'processor-route:clear':
        return await clearProcessorRoute(database, routeInput(values));
      case 'processor-route:list':
        return await listProcessorRoutes(database, required(values.store, 'store'));
      case 'charge:processing':
        return await showChargeProcessing(database, required(values.id, 'id'));
      case 'token:processing':
        return await showTokenProcessing(database, required(values.id, 'id'));
      case 'vault:rotate':
        return await rotateVault(
          database,
          config,
          values.batch === undefined ? 500 : Math.max(1, integer(values.batch, 'batch')),
        );
      case 'webhooks:seal':
        return await sealWebhookSecrets(
          database.webhooks,
          config,
          values.batch === undefined ? 500 : Math.max(1, integer(values.batch, 'batch')),
        );
      case 'jobs:failed':
        return await listFailedJobs(
          config,
          required(values.queue, 'queue'),
          values.limit === undefined ? 20 : Math.max(1, integer(values.limit, 'limit')),
        );
      case 'jobs:retry':
        return await retryFailedJobs(config, required(values.queue, 'queue'), {
          id: values.id,
          all: values.all,
        });
      case 'deposits:stray':
        return await strayDeposits(database, {
          merchantId: values.merchant,
          limit: values.limit === undefined ? 100 : positiveInt(values.limit, 'limit'),
        });
      case 'refunds:errored':
        return await refundsInError(database, {
          merchantId: values.merchant,
          limit: values.limit === undefined ? 100 : positiveInt(values.limit, 'limit'),
        });
      case 'refund:retry':
        return await retryRefund(database, required(values.id, 'id'));
      case 'ledger:verify': {
        const verification = await verifyLedger(database);
        if (!verification.ok)
          throw new AdminError(
            `the ledger does not verify (docs/ledger.md): ${JSON.stringify(verification)}`,
          );
        return verification;
      }
      case 'ledger:adjust':
        return await adjustLedger(database, {
          storeId: required(values.store, 'store'),
          mode: mode(values.mode),
          amount: signedAmount(required(values.amount, 'amount')),
          currency: required(values.currency, 'currency').toUpperCase(),
          reason: required(values.reason, 'reason'),
          by: required(values.by, 'by'),
          id: values.id,
        });
      case 'bank-accounts':
        return await listBankAccounts(database, required(values.merchant, 'merchant'));
      case 'bank-account:verify':
        return await verifyBankAccount(
          database,
          required(values.id, 'id'),
          required(values.status, 'status'),
        );
      case 'transfer:list':
        return await listTransfers(database, {
          merchantId: values.merchant,
          mode: values.mode === undefined ? undefined : mode(values.mode),
          status: values.status,
          limit: values.limit === undefined ? 100 : positiveInt(values.limit, 'limit'),
        });
      case 'transfer:approve':
        return await approveTransfer(database, required(values.id, 'id'), required(values.by, 'by'));
      case 'transfer:cancel':
        return await cancelTransfer(
          database,
          required(values.id, 'id'),
          required(values.by, 'by'),
          required(values.reason, 'reason'),
        );
      case 'bootstrap':
        return await bootstrapDemo(admin, baseUrlOf(config), context.credentialsFile);
      default:
        throw new AdminError(`unknown command ${command}\n\n${USAGE}`);
    }
  } finally {
    await database.close();
  }
}

/** A route's key from --store, --mode, --payment-type and --currency. */
function routeInput(values: {
  store?: string;
  mode?: string;
  'payment-type'?: string;
  currency?: string;
}): RouteInput {
  return {
    storeId: required(values.store, 'store'),
    mode: mode(required(values.mode, 'mode')),
    paymentType: required(values['payment-type'], 'payment-type'),
    currency: values.currency,
  };
}

/** A merchant user's console role (docs/console.md); owner when not given. */
function userRole(value: string): MerchantUser['role'] {
  if (value === 'owner' || value === 'admin' || value === 'developer' || value === 'viewer') return value;
  throw new AdminError(`--role must be owner, admin, developer or viewer, not ${JSON.stringify(value)}`);
}
