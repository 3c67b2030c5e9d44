import { APP_CONFIG, type AppConfig, ConfigError } from '@kessai/config';
import type { Logger } from '@kessai/observability';
import { HttpPaymentProcessor } from './http/http-payment-processor';
import { KomojuPaymentProcessor } from './komoju/komoju-payment-processor';
import { StripePaymentProcessor } from './stripe/stripe-payment-processor';
import type { PaymentProcessor } from './payment-processor';
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

/**
 * The processor of each mode: test payments go to PROCESSOR_TEST_URL (the simulator), live ones to
 * KOMOJU when PROCESSOR_LIVE=komoju, to Stripe when PROCESSOR_LIVE=stripe, else to
 * PROCESSOR_LIVE_URL, or nowhere when it is not configured. Shared by the services that call the
 * processor (charge-service, refund-cancel-service), each providing it from its config: a missing
 * KOMOJU_SECRET_KEY or STRIPE_SECRET_KEY stops the service at start (a ConfigError naming it,
 * never its value).
 */
export class PaymentProcessors {
  readonly callbackUrl: string;
  readonly #config: AppConfig;
  readonly #test: PaymentProcessor;
  readonly #live: PaymentProcessor | null;
  readonly #policy: ProcessorRetryPolicy;

  constructor(config: AppConfig) {
    const options = { timeoutMs: config.PROCESSOR_TIMEOUT_MS, apiKey: config.PROCESSOR_API_KEY };
    this.#test = new HttpPaymentProcessor({ ...options, baseUrl: config.PROCESSOR_TEST_URL });
    this.#live = liveProcessor(config, options);
    this.#policy = { ...DEFAULT_PROCESSOR_RETRY_POLICY, attempts: config.PROCESSOR_MAX_ATTEMPTS };
    this.callbackUrl = processorCallbackUrl(config);
    this.#config = config;
  }

  /** Where a hosted processor sends the customer back after 3-D Secure (docs/processors.md, "3-D Secure"). */
  threeDsReturnUrl(reference: string): string {
    return threeDsReturnUrl(this.#config, reference);
  }

  /** null: no processor is configured for this mode. */
  forMode(mode: 'test' | 'live' | 'live_test'): PaymentProcessor | null {
    return mode === 'test' ? this.#test : this.#live;
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

/** The Nest provider of PaymentProcessors, built from the service's config. */
export const paymentProcessorsProvider = {
  provide: PaymentProcessors,
  useFactory: (config: AppConfig) => new PaymentProcessors(config),
  inject: [APP_CONFIG],
};
