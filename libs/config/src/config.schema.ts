import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const positiveNumber = z.coerce.number().positive().finite();
const base64Key32 = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

/**
 * Vault keys as "<key-id>:<base64 32-byte key>" pairs separated by commas. The first key encrypts
 * new card numbers; the others only decrypt, which is how a key is rotated.
 */
const vaultKeys = z
  .string()
  .min(1)
  .transform((raw, ctx) => {
    const keys: { id: string; key: Buffer }[] = [];
    for (const entry of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const sep = entry.indexOf(':');
      const id = entry.slice(0, sep);
      const key = Buffer.from(entry.slice(sep + 1), 'base64');
      if (sep <= 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(id) || key.length !== 32) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          message: 'each entry must be <id>:<base64 of 32 bytes>',
        });
        return z.NEVER;
      }
      keys.push({ id, key });
    }
    if (new Set(keys.map((k) => k.id)).size !== keys.length) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'key ids must be unique' });
      return z.NEVER;
    }
    return keys;
  });

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  DATABASE_URL: z
    .string()
    .url()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL'),
  DB_POOL_SIZE: positiveInt.default(10),
  REDIS_URL: z
    .string()
    .url()
    .refine((v) => /^rediss?:\/\//.test(v), 'must be a redis:// or rediss:// URL'),
  /** Prefix of every Redis key and BullMQ queue, so that deployments (and test suites) can share a Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - only')
    .default('kessai'),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** The gateway's HTTP port. */
  PORT: port.default(3000),
  /** The health port of a worker service (each worker needs its own when they share a host). */
  HEALTH_PORT: port.optional(),
  /** Base URL printed for humans and used in links the API hands out. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** HMAC key for app-token JWTs (HS256, pinned). At least 32 characters. */
  JWT_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters'),
  VAULT_KEYS: vaultKeys,
  /**
   * Key of the card fingerprint (a keyed hash recognising the same card without decrypting it); at
   * least 32 characters. Unlike VAULT_KEYS it never rotates: changing it makes every stored card
   * look new to duplicate detection.
   */
  VAULT_FINGERPRINT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /**
   * How long a card's CVV waits in Redis (encrypted) for the first charge's authorization; it is
   * never written to Postgres and is deleted when read (docs/transaction-tokens.md).
   */
  CVV_TTL_SECONDS: positiveInt.max(86_400).default(3_600),
  /**
   * Where outgoing mail (password reset tokens) is written as one JSON file per message, until a mail
   * sender exists. Unset: reset tokens are created and recorded as outbox events but not delivered.
   */
  MAIL_DROP_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),

  // Rate limits (spec "Limits"). Burst = bucket size; refill is continuous, per millisecond; the
  // per-minute cap also holds over any rolling 60 s. Unset refill rates derive as per-minute / 60,000.
  /** off only to measure the limiter's own cost (bench/) or in an emergency; every response then lacks the headers */
  RATE_LIMIT_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  RATE_LIMIT_CHARGE_BURST: positiveInt.default(100),
  RATE_LIMIT_CHARGE_PER_MINUTE: positiveInt.default(3_000),
  RATE_LIMIT_CHARGE_REFILL_PER_MS: positiveNumber.optional(),
  RATE_LIMIT_ROUTE_BURST: positiveInt.default(30),
  RATE_LIMIT_ROUTE_PER_MINUTE: positiveInt.default(1_200),
  RATE_LIMIT_ROUTE_REFILL_PER_MS: positiveNumber.optional(),
  RATE_LIMIT_EXACT_BURST: positiveInt.default(10),
  RATE_LIMIT_EXACT_PER_MINUTE: positiveInt.default(120),
  /** the spec states 0.02/ms for the exact burst (1,200 / 60,000), not 120 / 60,000 */
  RATE_LIMIT_EXACT_REFILL_PER_MS: positiveNumber.default(0.02),
  /** what the gateway does when Redis does not answer the limiter in time: refuse (503) or let requests through */
  RATE_LIMIT_REDIS_FAILURE: z.enum(['closed', 'open']).default('closed'),
  RATE_LIMIT_REDIS_TIMEOUT_MS: positiveInt.default(250),

  // Charges (docs/charges.md)
  /**
   * The processor that test-mode charges go to: the simulator (`npm run simulator`, started by
   * `npm start` and compose). Live-mode charges go to PROCESSOR_LIVE_URL only.
   */
  PROCESSOR_TEST_URL: z.string().url().default('http://127.0.0.1:3190'),
  /** A real acquirer for live-mode charges; unset: live charges end `error` without reaching anyone. */
  PROCESSOR_LIVE_URL: z.string().url().optional(),
  PROCESSOR_API_KEY: z.string().min(1).optional(),
  /** HMAC key of the notices the processor posts to POST /processor/callbacks. At least 32 characters. */
  PROCESSOR_CALLBACK_SECRET: z.string().min(32, 'must be at least 32 characters'),
  /** Base URL the processor posts notices to (the gateway as the processor reaches it); default PUBLIC_BASE_URL. */
  PROCESSOR_CALLBACK_BASE_URL: z.string().url().optional(),
  /** How long one processor call may take before it counts as a timeout (outcome unknown). */
  PROCESSOR_TIMEOUT_MS: positiveInt.default(10_000),
  /** Attempts of one processor call on timeouts and 5xx (same idempotency key), with exponential backoff. */
  PROCESSOR_MAX_ATTEMPTS: positiveInt.max(20).default(4),
  /** `polling=true` on a charge GET holds the request at most this long while the charge is pending. */
  CHARGE_POLLING_MAX_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(5_000),
  /** Charges charge-service processes at once per process (processor calls are I/O). */
  CHARGE_WORKER_CONCURRENCY: positiveInt.max(1_000).default(64),
  /**
   * A pending charge untouched this long is queued again: the safety net for a job lost from Redis
   * or whose retries ran out. Keep it above a job's whole retry chain (~17 min with the charges
   * queue's 10 attempts), or a charge whose job is still retrying gets a second chain.
   */
  CHARGE_STALE_PENDING_SECONDS: positiveInt.default(1_800),
  /** An awaiting charge (3-D Secure, online/QR payment) that nobody completed expires after this long. */
  CHARGE_AWAITING_EXPIRY_SECONDS: positiveInt.default(1_200),
  /** How often charge-service looks for due captures (capture_at), expired and stale charges. */
  CHARGE_SWEEP_INTERVAL_MS: positiveInt.default(1_000),
  /** A charge-service job whose process died is taken over after this long (BullMQ lock duration). */
  CHARGE_JOB_LOCK_MS: positiveInt.min(1_000).default(15_000),

  /**
   * How long a gateway keeps an app-token row in memory instead of reading it per request. A
   * revocation (API or admin CLI) reaches every gateway at once over Redis pub/sub; when that message
   * is lost (Redis down) it takes effect within this time. 0: read the row on every request.
   */
  APP_TOKEN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),

  /** how long a completed Idempotency-Key response is replayed */
  IDEMPOTENCY_TTL_HOURS: positiveInt.default(24),
});

export type AppConfig = z.infer<typeof configSchema>;
export type VaultKey = AppConfig['VAULT_KEYS'][number];

export { base64Key32 };
