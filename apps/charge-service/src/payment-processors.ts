import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import {
  DEFAULT_PROCESSOR_RETRY_POLICY,
  HttpPaymentProcessor,
  type PaymentProcessor,
  type ProcessorRetryPolicy,
  withProcessorRetries,
} from '@kessai/processor';
import type { Logger } from '@kessai/observability';

/** Where the processor posts its signed notices: the gateway's POST /processor/callbacks. */
export function processorCallbackUrl(config: AppConfig): string {
  const base =
    config.PROCESSOR_CALLBACK_BASE_URL ?? config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`;
  return `${base.replace(/\/+$/, '')}/processor/callbacks`;
}

/**
 * The processor of each mode: test charges go to PROCESSOR_TEST_URL (the simulator), live ones to
 * PROCESSOR_LIVE_URL, or nowhere when it is not configured.
 */
@Injectable()
export class PaymentProcessors {
  readonly callbackUrl: string;
  readonly #test: PaymentProcessor;
  readonly #live: PaymentProcessor | null;
  readonly #policy: ProcessorRetryPolicy;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const options = { timeoutMs: config.PROCESSOR_TIMEOUT_MS, apiKey: config.PROCESSOR_API_KEY };
    this.#test = new HttpPaymentProcessor({ ...options, baseUrl: config.PROCESSOR_TEST_URL });
    this.#live = config.PROCESSOR_LIVE_URL
      ? new HttpPaymentProcessor({ ...options, baseUrl: config.PROCESSOR_LIVE_URL })
      : null;
    this.#policy = { ...DEFAULT_PROCESSOR_RETRY_POLICY, attempts: config.PROCESSOR_MAX_ATTEMPTS };
    this.callbackUrl = processorCallbackUrl(config);
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
