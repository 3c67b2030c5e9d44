/**
 * The processor simulator as a process of its own: the outside world (card acquirer, wallet,
 * online/QR operator) that test-mode charges reach at PROCESSOR_TEST_URL. `npm start` runs it before
 * the workers, docker-compose.yml as the `processor-simulator` service, `npm run simulator` alone.
 * Behaviour and options: docs/processor-simulator.md. Settings (environment first, then .env):
 *
 *   SIMULATOR_PORT (3190), SIMULATOR_HOST (127.0.0.1), SIMULATOR_PUBLIC_BASE_URL (base of the
 *   customer-facing pages: 3-D Secure and operator payment pages; default the listening URL),
 *   SIMULATOR_LATENCY_MS (10), SIMULATOR_LATENCY_JITTER_MS (0), SIMULATOR_TIMEOUT_HOLD_MS (30000),
 *   SIMULATOR_UNAVAILABLE_ATTEMPTS (2), SIMULATOR_OPERATOR_PAYMENT_TTL_MS (900000),
 *   SIMULATOR_CALLBACK_MAX_ATTEMPTS (5), SIMULATOR_CALLBACK_RETRY_BASE_DELAY_MS (500),
 *   SIMULATOR_CALLBACK_TIMEOUT_MS (5000), PROCESSOR_API_KEY (when set, /v1 calls need it),
 *   PROCESSOR_CALLBACK_SECRET (signs the notices; the gateway verifies them with the same value),
 *   LOG_LEVEL (info).
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { createLogger } from '@kessai/observability';
import { SIMULATOR_DEFAULTS, startProcessorSimulator } from './start-simulator';

if (existsSync('.env')) process.loadEnvFile('.env');

const millis = z.coerce.number().int().min(0);
const settingsSchema = z.object({
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(3190),
  SIMULATOR_HOST: z.string().min(1).default(SIMULATOR_DEFAULTS.host),
  SIMULATOR_PUBLIC_BASE_URL: z.string().url().optional(),
  SIMULATOR_LATENCY_MS: millis.default(SIMULATOR_DEFAULTS.latencyMs),
  SIMULATOR_LATENCY_JITTER_MS: millis.default(SIMULATOR_DEFAULTS.latencyJitterMs),
  SIMULATOR_TIMEOUT_HOLD_MS: millis.default(SIMULATOR_DEFAULTS.timeoutHoldMs),
  SIMULATOR_UNAVAILABLE_ATTEMPTS: millis.default(SIMULATOR_DEFAULTS.unavailableAttempts),
  SIMULATOR_OPERATOR_PAYMENT_TTL_MS: millis.default(SIMULATOR_DEFAULTS.operatorPaymentTtlMs),
  SIMULATOR_CALLBACK_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .min(1)
    .default(SIMULATOR_DEFAULTS.callbackMaxAttempts),
  SIMULATOR_CALLBACK_RETRY_BASE_DELAY_MS: millis.default(SIMULATOR_DEFAULTS.callbackRetryBaseDelayMs),
  SIMULATOR_CALLBACK_TIMEOUT_MS: z.coerce.number().int().min(1).default(SIMULATOR_DEFAULTS.callbackTimeoutMs),
  PROCESSOR_API_KEY: z.string().min(1).optional(),
  PROCESSOR_CALLBACK_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

async function main() {
  const parsed = settingsSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  - ${issue.path.join('.')} ${issue.message}`);
    process.stderr.write(`Invalid configuration:\n${problems.join('\n')}\nSee .env.example.\n`);
    process.exit(78);
  }
  const settings = parsed.data;
  const logger = createLogger({ service: 'processor-simulator', level: settings.LOG_LEVEL });
  if (!settings.PROCESSOR_CALLBACK_SECRET) {
    logger.warn(
      'PROCESSOR_CALLBACK_SECRET is not set: notices are signed with a random key the gateway will refuse',
    );
  }

  const simulator = await startProcessorSimulator({
    port: settings.SIMULATOR_PORT,
    host: settings.SIMULATOR_HOST,
    publicBaseUrl: settings.SIMULATOR_PUBLIC_BASE_URL,
    apiKey: settings.PROCESSOR_API_KEY,
    callbackSecret: settings.PROCESSOR_CALLBACK_SECRET,
    latencyMs: settings.SIMULATOR_LATENCY_MS,
    latencyJitterMs: settings.SIMULATOR_LATENCY_JITTER_MS,
    timeoutHoldMs: settings.SIMULATOR_TIMEOUT_HOLD_MS,
    unavailableAttempts: settings.SIMULATOR_UNAVAILABLE_ATTEMPTS,
    operatorPaymentTtlMs: settings.SIMULATOR_OPERATOR_PAYMENT_TTL_MS,
    callbackMaxAttempts: settings.SIMULATOR_CALLBACK_MAX_ATTEMPTS,
    callbackRetryBaseDelayMs: settings.SIMULATOR_CALLBACK_RETRY_BASE_DELAY_MS,
    callbackTimeoutMs: settings.SIMULATOR_CALLBACK_TIMEOUT_MS,
  });
  logger.info(
    {
      url: simulator.url,
      public_base_url: simulator.publicBaseUrl,
      latency_ms: settings.SIMULATOR_LATENCY_MS,
      api_key: Boolean(settings.PROCESSOR_API_KEY),
    },
    'processor simulator listening',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutdown requested');
    // held answers and pending notices die with the process: the simulator keeps nothing anyway
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `processor simulator failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
