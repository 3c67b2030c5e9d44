import { APP_CONFIG, type AppConfig, ConfigError, requireSecrets } from '@kessai/config';
import { ProcessorAccountsRepository } from '@kessai/db';
import type { Logger } from '@kessai/observability';
import { ProcessorCredentialsCipher } from '@kessai/vault';
import { HttpPaymentProcessor } from './http/http-payment-processor';
import { KomojuPaymentProcessor } from './komoju/komoju-payment-processor';
import { StripePaymentProcessor } from './stripe/stripe-payment-processor';
import type { PaymentProcessor } from './payment-processor';
import {
  type ProcessorAccountSource,
  type RoutedProcessorAccount,
  StoredProcessorAccounts,
} from './processor-accounts';
import { DEFAULT_PROCESSOR_RETRY_POLICY, type ProcessorRetryPolicy, withProcessorRetries } from './retry';

/** Where the processor posts its signed notices: the gateway's POST /processor/callbacks. */
export function processorCallbackUrl(config: AppConfig): string {
  const base =
    config.PROCESSOR_CALLBACK_BASE_URL ?? config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  return `${base.replace(/\/+$/, '')}/processor/callbacks`;
}

/** The return route of a charge's 3-D Secure at a hosted processor: the customer's browser, so PUBLIC_BASE_URL. */
export function threeDsReturnUrl(config: AppConfig, reference: string): string {
  const base = config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  return `${base.replace(/\/+$/, '')}/processor/three_ds/return/${encodeURIComponent(reference)}`;
}

/** Adapters of processor accounts kept at most, each until its account's credentials change. */
const MAX_CACHED_ACCOUNTS = 1_000;

/**
 * The processor of each charge. A charge routed to a processor account when it was created
 * (decision 0055) goes to that account, with its credentials, for every call: authorization,
 * capture, refunds, cancels, lookups. Any other goes to its mode's default: test payments to
 * PROCESSOR_TEST_URL (the simulator), live ones to KOMOJU when PROCESSOR_LIVE=komoju, to Stripe when
 * PROCESSOR_LIVE=stripe, else to PROCESSOR_LIVE_URL, or nowhere when it is not configured. Shared by
 * the services that call the processor (charge-service, refund-cancel-service), each providing it
 * from its config: a missing KOMOJU_SECRET_KEY or STRIPE_SECRET_KEY stops the service at start (a
 * ConfigError naming it, never its value).
 */
export class PaymentProcessors {
  readonly callbackUrl: string;
  readonly #config: AppConfig;
  readonly #test: PaymentProcessor;
  readonly #live: PaymentProcessor | null;
  readonly #policy: ProcessorRetryPolicy;
  readonly #accounts: ProcessorAccountSource | null;
  readonly #adapters = new Map<string, { version: string; processor: PaymentProcessor | null }>();

  /** `accounts`: where the accounts charges were routed to are found; none, every charge takes its mode's default. */
  constructor(config: AppConfig, accounts: ProcessorAccountSource | null = null) {
    this.#accounts = accounts;
    const options = { timeoutMs: config.PROCESSOR_TIMEOUT_MS, apiKey: config.PROCESSOR_API_KEY };
    this.#test = new HttpPaymentProcessor({ ...options, baseUrl: config.PROCESSOR_TEST_URL });
    this.#live = liveProcessor(config, options);
    this.#policy = { ...DEFAULT_PROCESSOR_RETRY_POLICY, attempts: config.PROCESSOR_MAX_ATTEMPTS };
    this.callbackUrl = processorCallbackUrl(config);
    this.#config = config;
  }

  /** Where a hosted processor sends the customer back after 3-D Secure (docs/connectors.md, "3-D Secure"). */
  threeDsReturnUrl(reference: string): string {
    return threeDsReturnUrl(this.#config, reference);
  }

  /** The mode's default processor; null: none is configured for this mode. */
  forMode(mode: 'test' | 'live' | 'live_test'): PaymentProcessor | null {
    return mode === 'test' ? this.#test : this.#live;
  }

  /**
   * The processor of a charge (or of its capture, refund or cancel): the account it was routed to,
   * else its mode's default. null: no processor can take it. `processorAccountId`, when the caller
   * read the charge's row already: null goes to the default without looking the charge up again.
   */
  async forCharge(
    chargeId: string,
    mode: 'test' | 'live' | 'live_test',
    processorAccountId?: string | null,
  ): Promise<PaymentProcessor | null> {
    if (processorAccountId === null) return this.forMode(mode);
    const account = this.#accounts ? await this.#accounts.accountOfCharge(chargeId) : null;
    return account ? this.#forAccount(account) : this.forMode(mode);
  }

  /**
   * The processor of an account by id: a charge's fallback (decision 0056). null: no such account,
   * or its adapter cannot be built.
   */
  async forAccount(accountId: string): Promise<PaymentProcessor | null> {
    const account = this.#accounts?.account ? await this.#accounts.account(accountId) : null;
    return account ? this.#forAccount(account) : null;
  }

  /**
   * The processor of a card token's check, its 3-D Secure or CVV authorization (decision 0079):
   * the account its attempt was routed to when it started, for every call of the attempt (the
   * hold, its lookups, its void), else its mode's default. null: no processor can take it (the
   * account's adapter cannot be built, or the mode has none).
   */
  forTokenCheck(
    mode: 'test' | 'live' | 'live_test',
    processorAccountId: string | null | undefined,
  ): Promise<PaymentProcessor | null> {
    return processorAccountId ? this.forAccount(processorAccountId) : Promise.resolve(this.forMode(mode));
  }

  #forAccount(account: RoutedProcessorAccount): PaymentProcessor | null {
    const cached = this.#adapters.get(account.id);
    if (cached?.version === account.version) return cached.processor;
    const processor = accountProcessor(this.#config, account);
    if (this.#adapters.size >= MAX_CACHED_ACCOUNTS) this.#adapters.clear();
    this.#adapters.set(account.id, { version: account.version, processor });
    return processor;
  }

  /** Runs an idempotent call, retrying timeouts and 5xx with backoff up to PROCESSOR_MAX_ATTEMPTS. */
  retrying<T>(call: () => Promise<T>, logger: Logger, context: Record<string, unknown>): Promise<T> {
    return withProcessorRetries(call, this.#policy, {
      onRetry: (error, retry, delayMs) =>
        logger.warn(
          { ...context, operation: error.operation, kind: error.kind, retry, delayMs },
          'processor call failed transiently; retrying',
        ),
    });
  }
}

function liveProcessor(
  config: AppConfig,
  options: { timeoutMs: number; apiKey: string | undefined },
): PaymentProcessor | null {
  if (config.PROCESSOR_LIVE === 'komoju') {
    if (!config.KOMOJU_SECRET_KEY)
      throw new ConfigError(['KOMOJU_SECRET_KEY is required when PROCESSOR_LIVE=komoju']);
    return new KomojuPaymentProcessor({
      secretKey: config.KOMOJU_SECRET_KEY,
      baseUrl: config.KOMOJU_API_URL,
      timeoutMs: options.timeoutMs,
    });
  }
  if (config.PROCESSOR_LIVE === 'stripe') {
    if (!config.STRIPE_SECRET_KEY)
      throw new ConfigError(['STRIPE_SECRET_KEY is required when PROCESSOR_LIVE=stripe']);
    return new StripePaymentProcessor({
      secretKey: config.STRIPE_SECRET_KEY,
      baseUrl: config.STRIPE_API_URL,
      timeoutMs: options.timeoutMs,
    });
  }
  return config.PROCESSOR_LIVE_URL
    ? new HttpPaymentProcessor({ ...options, baseUrl: config.PROCESSOR_LIVE_URL })
    : null;
}

/**
 * The adapter of a processor account: the provider's API at the deployment's address for it
 * (KOMOJU_API_URL, STRIPE_API_URL; the simulator's protocol at PROCESSOR_TEST_URL for a test
 * account, PROCESSOR_LIVE_URL for a live one) with the account's credentials. null: it cannot be
 * built (a live simulator account without PROCESSOR_LIVE_URL, an account without its secret key).
 */
function accountProcessor(config: AppConfig, account: RoutedProcessorAccount): PaymentProcessor | null {
  const { secretKey } = account.credentials();
  const timeoutMs = config.PROCESSOR_TIMEOUT_MS;
  switch (account.provider) {
    case 'komoju':
      return secretKey
        ? new KomojuPaymentProcessor({ secretKey, baseUrl: config.KOMOJU_API_URL, timeoutMs })
        : null;
    case 'stripe':
      return secretKey
        ? new StripePaymentProcessor({ secretKey, baseUrl: config.STRIPE_API_URL, timeoutMs })
        : null;
    case 'simulator': {
      const baseUrl = account.mode === 'test' ? config.PROCESSOR_TEST_URL : config.PROCESSOR_LIVE_URL;
      return baseUrl
        ? new HttpPaymentProcessor({ baseUrl, timeoutMs, apiKey: secretKey ?? config.PROCESSOR_API_KEY })
        : null;
    }
  }
}

/**
 * The Nest provider of PaymentProcessors, built from the service's config, with the processor
 * accounts of the database (their credentials opened with VAULT_KEYS, which the service then needs).
 */
export const paymentProcessorsProvider = {
  provide: PaymentProcessors,
  useFactory: (config: AppConfig, accounts: ProcessorAccountsRepository) => {
    const { VAULT_KEYS } = requireSecrets(config, ['VAULT_KEYS'], 'processor accounts');
    return new PaymentProcessors(
      config,
      new StoredProcessorAccounts(accounts, new ProcessorCredentialsCipher(VAULT_KEYS)),
    );
  },
  inject: [APP_CONFIG, ProcessorAccountsRepository],
};
