import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
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
  /** `production` in deployments; `test` in the test suites. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** PostgreSQL (`postgres://` or `postgresql://`). */
  DATABASE_URL: z
    .string()
    .url()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), 'must be a postgres:// or postgresql:// URL'),
  /** Connections per process in its pg pool (Prisma and plain SQL share it). */
  DB_POOL_SIZE: positiveInt.default(10),
  /**
   * Write requests of one merchant a gateway process runs at once (its share of DB_POOL_SIZE); unset:
   * the pool less a quarter of it (at least 2), which no one merchant can take from the others.
   */
  TENANT_WRITE_CONCURRENCY: positiveInt.optional(),
  /** How long a merchant's write beyond its share waits for a slot before it answers 503. */
  TENANT_WRITE_WAIT_MS: positiveInt.default(10_000),
  /** Redis (`redis://` or `rediss://`): rate-limit buckets, idempotency, BullMQ queues, pub/sub. */
  REDIS_URL: z
    .string()
    .url()
    .refine((v) => /^rediss?:\/\//.test(v), 'must be a redis:// or rediss:// URL'),
  /**
   * true: REDIS_URL is a node of a Redis Cluster, which seeds the connection (docs/operations.md,
   * "Redis Cluster"); BullMQ's keys are then under `{REDIS_PREFIX}`, one hash slot.
   */
  REDIS_CLUSTER: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Prefix of every Redis key and BullMQ queue, so that deployments (and test suites) can share a Redis. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, 'letters, digits, _ and - only')
    .default('kessai'),
  /** The address the gateway (PORT) and a worker service's health port (HEALTH_PORT) listen on. */
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * The reverse proxies in front of the gateway whose X-Forwarded-For and X-Forwarded-Proto it
   * believes: comma-separated addresses or CIDR ranges (e.g. `10.0.0.0/8`). Unset, the client IP is
   * the connection's own address, so behind a proxy every per-IP limit (unauthenticated requests,
   * sign-ins, refused callback signatures) would count the proxy as one client.
   */
  TRUST_PROXY: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .refine((entries) => entries.every(isAddressOrRange), 'comma-separated IP addresses or CIDR ranges')
    .optional(),
  /** The gateway's HTTP port. */
  PORT: port.default(3000),
  /** The merchant console's HTTP port (apps/console, docs/console.md). */
  CONSOLE_PORT: port.default(3300),
  /**
   * Key of the merchant console's session cookie (HMAC-signed session id) and of its CSRF tokens
   * (derived from the session). At least 32 characters; changing it signs everyone out.
   */
  CONSOLE_SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * How long a console session lasts from sign-in; signing in again is needed afterwards (its
   * login_sessions row expires then).
   */
  CONSOLE_SESSION_TTL_MS: positiveInt.max(7 * 86_400_000).default(8 * 3_600_000),
  /** The health port of a worker service (each worker needs its own when they share a host). */
  HEALTH_PORT: port.optional(),
  /**
   * The gateway as its callers and consumers' browsers reach it (scheme, host, port; e.g. the TLS
   * proxy's https://pay.example.com): the absolute URLs the API hands out (a store's logo, the link
   * page a 3-D Secure page returns to) and the Origin the hosted pages call from; charge-service
   * builds from it the return route KOMOJU and Stripe send a customer back to after 3-D Secure.
   * Required in production; in development and tests it defaults to the request's own Host (a
   * worker's, to http://127.0.0.1:PORT).
   */
  PUBLIC_BASE_URL: z
    .string()
    .refine(isBaseUrl, 'an http(s) URL without a query or fragment, e.g. https://pay.example.com')
    .optional(),
  /**
   * HMAC key for app-token and login-token JWTs and checkout links' credentials (HS256, pinned). At
   * least 32 characters.
   */
  JWT_SIGNING_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Key of the Idempotency-Key records: the fingerprint of each request and the encryption of the
   * stored response are derived from it. At least 32 characters. Replaces the material derived from
   * JWT_SIGNING_KEY, still accepted for records stored before (decision 0027).
   */
  IDEMPOTENCY_KEY_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Vault keys, `<id>:<base64 of 32 bytes>`, comma-separated: the first encrypts new card numbers, bank
   * account numbers, processor account credentials and webhooks' secrets (signing secrets and
   * auth tokens, decision 0086), the others only decrypt (key rotation, docs/operations.md).
   * webhook-service and the console need them for webhooks' secrets.
   */
  VAULT_KEYS: vaultKeys.optional(),
  /**
   * Key of the card fingerprint (a keyed hash recognising the same card without decrypting it); at
   * least 32 characters. Unlike VAULT_KEYS it never rotates: changing it makes every stored card
   * look new to duplicate detection.
   */
  VAULT_FINGERPRINT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * How long a card's CVV waits in Redis (encrypted) for the first charge's authorization; it is
   * never written to Postgres and is deleted when read (docs/transaction-tokens.md).
   */
  CVV_TTL_SECONDS: positiveInt.max(86_400).default(3_600),
  /**
   * Where outgoing mail (password reset tokens, token confirmation codes, store customers' login
   * codes) is written as one JSON file per message, until a mail sender exists. Unset: they are
   * created and recorded (reset tokens as outbox events, codes as hashes) but not delivered.
   */
  MAIL_DROP_DIR: z.string().min(1).optional(),
  /**
   * The SMTP server outgoing mail is sent through (`smtp://user:password@host:587`, or `smtps://` for
   * TLS from the start): the link page's payment instructions (docs/hosted-checkout.md), recorded by
   * the gateway and sent by charge-service (set it on both). Unset: none are recorded or sent (the
   * consumer still sees them on the page). It carries a password: keep it as secret as DATABASE_URL.
   */
  SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), 'must be an smtp:// or smtps:// URL')
    .optional(),
  /** The From of the mail Kessai sends through SMTP_URL, an address or `Name <address>`. */
  MAIL_FROM: z.string().min(3).max(320).default('Kessai <no-reply@kessai.invalid>'),
  /** How often charge-service looks for payment instructions mails to send (with SMTP_URL set). */
  PAYMENT_MAIL_INTERVAL_MS: positiveInt.default(2_000),
  /** The pino log level of the process. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The largest request body the gateway accepts (larger: 413 in the error envelope). */
  BODY_LIMIT_BYTES: positiveInt.default(1_048_576),
  /** How long a process may take to stop gracefully on SIGTERM before it exits anyway (exit code 1). */
  SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * When set, GET /metrics (gateway and worker health ports) answers only
   * `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open and must not be reachable publicly.
   */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * true: the gateway serves a read-only queue dashboard (Bull Board) at /admin/queues, behind HTTP
   * Basic authentication with QUEUE_DASHBOARD_USERNAME and QUEUE_DASHBOARD_PASSWORD (required then).
   * Keep it on the operators' network (docs/operations.md, "Queue dashboard").
   */
  QUEUE_DASHBOARD_ENABLED: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** The user name the queue dashboard asks for. */
  QUEUE_DASHBOARD_USERNAME: z
    .string()
    .regex(/^[^:\s]{1,64}$/, 'at most 64 characters, no colon or whitespace')
    .default('admin'),
  /** The queue dashboard's password, at least 16 characters; required when QUEUE_DASHBOARD_ENABLED=true. */
  QUEUE_DASHBOARD_PASSWORD: z.string().min(16, 'must be at least 16 characters').optional(),

  // Rate limits (spec "Limits"). Burst = bucket size; refill is continuous, per millisecond; the
  // per-minute cap also holds over any rolling 60 s. Unset refill rates derive as per-minute / 60,000.
  /** off only to measure the limiter's own cost (bench/) or in an emergency; every response then lacks the headers */
  RATE_LIMIT_ENABLED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  /** POST /charges: the bucket size per app token. */
  RATE_LIMIT_CHARGE_BURST: positiveInt.default(100),
  /** POST /charges: requests per app token per minute. */
  RATE_LIMIT_CHARGE_PER_MINUTE: positiveInt.default(3_000),
  /** POST /charges: refill per millisecond; unset: per minute / 60,000. */
  RATE_LIMIT_CHARGE_REFILL_PER_MS: positiveNumber.optional(),
  /** Any other route: the bucket size per app token and route. */
  RATE_LIMIT_ROUTE_BURST: positiveInt.default(30),
  /** Any other route: requests per app token and route per minute. */
  RATE_LIMIT_ROUTE_PER_MINUTE: positiveInt.default(1_200),
  /** Any other route: refill per millisecond; unset: per minute / 60,000. */
  RATE_LIMIT_ROUTE_REFILL_PER_MS: positiveNumber.optional(),
  /** The same request repeated (method, path and body): the bucket size. */
  RATE_LIMIT_EXACT_BURST: positiveInt.default(10),
  /** The same request repeated: requests per minute. */
  RATE_LIMIT_EXACT_PER_MINUTE: positiveInt.default(120),
  /** the spec states 0.02/ms for the exact burst (1,200 / 60,000), not 120 / 60,000 */
  RATE_LIMIT_EXACT_REFILL_PER_MS: positiveNumber.default(0.02),
  /**
   * POST /processor/callbacks from one client IP: how many refused signatures it may send in a
   * burst before the IP is refused (429, before its body is read) until the bucket refills. Only
   * refused signatures count: a processor that signs right is never limited.
   */
  RATE_LIMIT_CALLBACK_FAILURE_BURST: positiveInt.default(20),
  /** POST /processor/callbacks from one client IP: refused signatures per minute. */
  RATE_LIMIT_CALLBACK_FAILURES_PER_MINUTE: positiveInt.default(60),
  /** what the gateway does when Redis is unreachable for the limiter: refuse (503) or let requests through */
  RATE_LIMIT_REDIS_FAILURE: z.enum(['closed', 'open']).default('closed'),
  /** How long the limiter waits for Redis; a connected Redis slower than this lets the request through uncounted. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: positiveInt.default(250),

  // Charges (docs/charges.md)
  /**
   * The processor that test-mode charges go to: the simulator (`npm run simulator`, started by
   * `npm start` and compose). Live-mode charges go to PROCESSOR_LIVE_URL only.
   */
  PROCESSOR_TEST_URL: z.string().url().default('http://127.0.0.1:3190'),
  /** A real acquirer for live-mode charges; unset: live charges end `error` without reaching anyone. */
  PROCESSOR_LIVE_URL: z.string().url().optional(),
  /**
   * Who takes live-mode charges: `http`, a processor speaking the simulator's protocol at
   * PROCESSOR_LIVE_URL, `komoju`, KOMOJU's Payments API at KOMOJU_API_URL with KOMOJU_SECRET_KEY,
   * or `stripe`, Stripe's PaymentIntents at STRIPE_API_URL with STRIPE_SECRET_KEY
   * (docs/connectors.md). Test-mode charges always go to PROCESSOR_TEST_URL.
   */
  PROCESSOR_LIVE: z.enum(['http', 'komoju', 'stripe']).default('http'),
  /** KOMOJU's API base; a fake's in the test suites. */
  KOMOJU_API_URL: z.string().url().default('https://komoju.com/api/v1'),
  /** KOMOJU's secret key (sk_live_…): charge-service and refund-cancel-service need it when PROCESSOR_LIVE=komoju. */
  KOMOJU_SECRET_KEY: z.string().min(1).optional(),
  /** The secret token of the KOMOJU webhook: the gateway needs it when PROCESSOR_LIVE=komoju. At least 16 characters. */
  KOMOJU_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Stripe's API base; a fake's in the test suites. */
  STRIPE_API_URL: z.string().url().default('https://api.stripe.com'),
  /**
   * Stripe's secret key (sk_live_… or a restricted rk_live_…): charge-service and refund-cancel-service
   * need it when PROCESSOR_LIVE=stripe. The account must have Stripe's raw card data APIs enabled.
   */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** The signing secret of the Stripe webhook endpoint (whsec_…): the gateway needs it when PROCESSOR_LIVE=stripe. */
  STRIPE_WEBHOOK_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Sent as `Authorization: Bearer <key>` on processor calls (the simulator then requires it too). */
  PROCESSOR_API_KEY: z.string().min(1).optional(),
  /** HMAC key of the notices the processor posts to POST /processor/callbacks. At least 32 characters. */
  PROCESSOR_CALLBACK_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
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
  /**
   * An awaiting charge (3-D Secure, online/QR payment), or a card token's awaiting 3-D Secure, that
   * nobody completed expires after this long (voided and failed).
   */
  CHARGE_AWAITING_EXPIRY_SECONDS: positiveInt.default(1_200),
  /**
   * A card token's CVV authorization still pending after this long (its job lost: Redis flushed, a
   * job dropped) is given its job again by charge-service's sweeper, at most once per this window.
   * Keep it above a job's retry chain (~17 min, as CHARGE_STALE_PENDING_SECONDS) and below
   * CVV_TTL_SECONDS: a CVV no longer held fails the authorization (CARD_CVV_INVALID).
   */
  TOKEN_CVV_AUTHORIZE_STALE_SECONDS: positiveInt.default(1_800),
  /**
   * A card token's 3-D Secure still pending after this long (its authenticate_token job lost: Redis
   * flushed, a job dropped) is given its job again by charge-service's sweeper, at most once per this
   * window. Keep it above a job's retry chain (~17 min, as CHARGE_STALE_PENDING_SECONDS) and below
   * CVV_TTL_SECONDS: the authentication's hold is made with the token's pending CVV.
   */
  TOKEN_THREE_DS_STALE_SECONDS: positiveInt.default(1_800),
  /** How often charge-service looks for due captures (capture_at), expired and stale charges. */
  CHARGE_SWEEP_INTERVAL_MS: positiveInt.default(1_000),
  /**
   * How often BullMQ looks for jobs whose worker died (its stalled check, at most the job lock): a
   * killed worker's job is taken over within its *_JOB_LOCK_MS plus this.
   */
  JOB_STALLED_CHECK_MS: positiveInt.min(100).default(2_000),
  /** A charge-service job whose process died is taken over after this long plus JOB_STALLED_CHECK_MS (BullMQ lock duration). */
  CHARGE_JOB_LOCK_MS: positiveInt.min(1_000).default(15_000),
  /** Refunds and cancels refund-cancel-service carries out at once per process (processor calls are I/O). */
  REFUND_CANCEL_WORKER_CONCURRENCY: positiveInt.max(1_000).default(32),
  /** A refund-cancel-service job whose process died is taken over after this long (BullMQ lock duration). */
  REFUND_CANCEL_JOB_LOCK_MS: positiveInt.min(1_000).default(15_000),
  /**
   * A refund or cancel pending this long is queued again: the safety net for a job lost from Redis.
   * Keep it above a job's whole retry chain (~17 min), whose last attempt ends the operation.
   */
  REFUND_CANCEL_STALE_SECONDS: positiveInt.default(1_800),
  /** How often refund-cancel-service looks for stale refunds and cancels. */
  REFUND_CANCEL_SWEEP_INTERVAL_MS: positiveInt.default(10_000),
  /**
   * A refund that ended `error` (the processor unreachable through every retry) is sent to the
   * processor again under its own key, at most this many times (0: never; an operator may still
   * with `refund:retry`), by the same sweep (docs/refunds-and-cancels.md, "Re-driving a refund in
   * error").
   */
  REFUND_REDRIVE_MAX: z.coerce.number().int().min(0).max(10).default(6),
  /**
   * The first re-drive comes this long after the refund ended `error`, each next one twice as long
   * after the one before (5, 10, 20, … minutes). The whole schedule, REFUND_REDRIVE_BASE_SECONDS ×
   * (2^REFUND_REDRIVE_MAX − 1), must end within 12 hours: a processor keeps an idempotency key for a
   * day or more (Stripe, 24 hours), and the refund's last try must still find its key.
   */
  REFUND_REDRIVE_BASE_SECONDS: positiveInt.default(300),

  /**
   * The ledger (docs/ledger.md): how often ledger-service's poster reads the outbox for the facts it
   * posts (charges that succeeded, refunds); at once again after a full batch.
   */
  LEDGER_POST_INTERVAL_MS: positiveInt.default(500),
  /** The most outbox events the poster posts in one database transaction. */
  LEDGER_POST_BATCH: positiveInt.max(5_000).default(500),
  /** How often pending money that became available is released to its store's available balance. */
  LEDGER_RELEASE_INTERVAL_MS: positiveInt.default(60_000),
  /** How often ledger-service checks the books (every entry read once: kessai_ledger_imbalance). */
  LEDGER_VERIFY_INTERVAL_MS: positiveInt.default(600_000),
  /**
   * How often ledger-service's payout engine looks for payout days that have come (docs/ledger.md,
   * "Payouts"): each merchant's transfer of each currency, once per payout day.
   */
  PAYOUT_INTERVAL_MS: positiveInt.default(60_000),

  /**
   * Subscriptions (docs/subscriptions.md, "The engine"). Settlement jobs (charge_finished batches)
   * one subscription-service process runs at once.
   */
  SUBSCRIPTION_WORKER_CONCURRENCY: positiveInt.max(100).default(4),
  /** A subscription-service job whose process died is taken over after this long. */
  SUBSCRIPTION_JOB_LOCK_MS: positiveInt.min(1_000).default(15_000),
  /** Due payments the scheduler claims and charges per transaction. */
  SUBSCRIPTION_SCHEDULER_BATCH: positiveInt.max(5_000).default(500),
  /** How long the scheduler waits before looking again when nothing was due. */
  SUBSCRIPTION_SCHEDULER_IDLE_MS: positiveInt.max(60_000).default(200),
  /**
   * A payment whose charge has been final this long without being settled is settled by the
   * sweeper: the safety net for a settle_payments job lost from Redis.
   */
  SUBSCRIPTION_STALE_SECONDS: positiveInt.default(120),
  /** How often subscription-service looks for payments to settle that their job missed. */
  SUBSCRIPTION_SWEEP_INTERVAL_MS: positiveInt.default(10_000),
  /**
   * Processing payments the sweeper reads per pass, oldest first; the next pass goes on after them,
   * so a pass costs the same however many payments are in flight.
   */
  SUBSCRIPTION_SWEEP_WINDOW: positiveInt.max(100_000).default(5_000),

  /**
   * Webhook deliveries (docs/webhooks.md). Tries one webhook-service process has in flight at once,
   * all endpoints together: the global cap of its delivery pool. A try over it waits in the process
   * (see WEBHOOK_ENDPOINT_WAIT_MS).
   */
  WEBHOOK_WORKER_CONCURRENCY: positiveInt.max(1_000).default(64),
  /** How long one try waits for a 2xx answer before it counts as failed. */
  WEBHOOK_TIMEOUT_MS: positiveInt.max(120_000).default(15_000),
  /**
   * Jobs of the webhook-events queue one webhook-service process takes at once (its BullMQ worker's
   * concurrency). Their tries share WEBHOOK_WORKER_CONCURRENCY, and a job whose tries wait for a
   * slot holds none, so this may be well above that cap.
   */
  WEBHOOK_JOB_CONCURRENCY: positiveInt.max(5_000).default(256),
  /** A pending delivery whose try is this overdue is queued again (its job was lost from Redis). */
  WEBHOOK_STALE_SECONDS: positiveInt.default(600),
  /** How often webhook-service looks for deliveries whose job was lost. */
  WEBHOOK_SWEEP_INTERVAL_MS: positiveInt.default(60_000),
  /** A webhook whose every try has failed for this long is turned off (and says why); 0: never. */
  WEBHOOK_DISABLE_AFTER_FAILING_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .default(5 * 86_400),
  /** After a secret rotation, deliveries are signed with the old secret too for this long. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .default(86_400),
  /**
   * Tries in flight at once to one webhook per process: a slow or dead endpoint holds at most this
   * many of the global slots (WEBHOOK_WORKER_CONCURRENCY). A try over it waits; see
   * WEBHOOK_ENDPOINT_WAIT_MS.
   */
  WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt.max(1_000).default(8),
  /**
   * How long a try waits in the process for a slot (its webhook's, under
   * WEBHOOK_ENDPOINT_CONCURRENCY, and a global one) before it is put back as a delayed job, which is
   * not a failed try.
   */
  WEBHOOK_ENDPOINT_WAIT_MS: positiveInt.max(60_000).default(5_000),
  /**
   * The delay, ± half, of the delayed job a try is put back as when it waited
   * WEBHOOK_ENDPOINT_WAIT_MS without a slot.
   */
  WEBHOOK_ENDPOINT_BUSY_DELAY_MS: positiveInt.default(1_000),
  /** A webhook-service job whose process died is taken over after this long (BullMQ lock duration). */
  WEBHOOK_JOB_LOCK_MS: positiveInt.min(1_000).default(30_000),
  /**
   * The retry schedule: try n+1 comes WEBHOOK_RETRY_BASE_MS × WEBHOOK_RETRY_FACTOR^(n-1) after try n
   * failed, at most WEBHOOK_RETRY_MAX_DELAY_MS, ± WEBHOOK_RETRY_JITTER of it, for WEBHOOK_MAX_ATTEMPTS
   * tries in all. The defaults span about three days (docs/webhooks.md has the table).
   */
  WEBHOOK_MAX_ATTEMPTS: positiveInt.max(100).default(12),
  /** The delay before the second try. */
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(30_000),
  /** Each further delay is the previous one times this. */
  WEBHOOK_RETRY_FACTOR: z.coerce.number().min(1).max(10).default(4),
  /** The longest delay between two tries. */
  WEBHOOK_RETRY_MAX_DELAY_MS: positiveInt.default(12 * 3_600_000),
  /** Each delay varies by ± this fraction of itself. */
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.25),
  /**
   * true: webhooks may reach any address, loopback and private networks included (a receiver on the
   * developer's machine). Development and tests only: a production deployment (NODE_ENV=production)
   * refuses to start with it (docs/security.md, "Webhook targets (SSRF)"; decision 0024). Off, a
   * webhook reaches global unicast addresses only, plus WEBHOOK_ALLOWED_PRIVATE_TARGETS.
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /**
   * Exact non-public targets webhooks may reach all the same, production included: comma-separated
   * `address:port` (IPv6 as `[address]:port`), IP addresses only, checked against the address each
   * try connects to (e.g. `10.0.4.7:8443` for a receiver on the operator's own network).
   */
  WEBHOOK_ALLOWED_PRIVATE_TARGETS: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const entries = (raw ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      for (const entry of entries)
        if (!isAddressAndPort(entry)) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: `each entry must be <IPv4>:<port> or [<IPv6>]:<port> (${JSON.stringify(entry)} is not)`,
          });
          return z.NEVER;
        }
      return entries;
    }),

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

/**
 * The secrets only some processes use, and the processes that need each: a process requires at
 * start exactly the ones it uses (loadConfig), so that a worker that never reads a card or signs a
 * JWT is not handed the keys to do so. Every other setting has a default or is optional.
 */
export const SECRET_USERS = {
  JWT_SIGNING_KEY: ['gateway', 'admin', 'console'],
  IDEMPOTENCY_KEY_SECRET: ['gateway'],
  VAULT_KEYS: ['gateway', 'charge-service', 'refund-cancel-service', 'webhook-service', 'console', 'admin'],
  VAULT_FINGERPRINT_SECRET: ['gateway', 'charge-service', 'admin'],
  PROCESSOR_CALLBACK_SECRET: ['gateway'],
  CONSOLE_SESSION_SECRET: ['console'],
} as const satisfies Record<string, readonly ProcessName[]>;

/** Kessai's processes (the admin CLI is `admin`). */
export type ProcessName =
  | 'gateway'
  | 'charge-service'
  | 'refund-cancel-service'
  | 'subscription-service'
  | 'webhook-service'
  | 'ledger-service'
  | 'console'
  | 'admin';

export type ProcessSecret = keyof typeof SECRET_USERS;

/** The secrets process P needs. */
export type SecretsOf<P extends ProcessName> = {
  [K in ProcessSecret]: P extends (typeof SECRET_USERS)[K][number] ? K : never;
}[ProcessSecret];

/** A config whose secrets K are set (loadConfig checked them). */
export type ConfigWith<K extends ProcessSecret> = AppConfig & {
  readonly [S in K]-?: NonNullable<AppConfig[S]>;
};

/** The config of process P: its own secrets set. */
export type ProcessConfig<P extends ProcessName> = ConfigWith<SecretsOf<P>>;

/** The gateway's config (it uses every secret). */
export type GatewayConfig = ProcessConfig<'gateway'>;

/** Every secret set: the test suites' and benchmarks' config, which runs every process. */
export type FullConfig = ConfigWith<ProcessSecret>;

/** The secrets process `process` needs (SECRET_USERS). */
export function secretsOf(process: ProcessName): ProcessSecret[] {
  return (Object.keys(SECRET_USERS) as ProcessSecret[]).filter((name) =>
    (SECRET_USERS[name] as readonly ProcessName[]).includes(process),
  );
}

/** Which of `needs` the config lacks. */
export function missingSecrets(config: Partial<AppConfig>, needs: readonly ProcessSecret[]): ProcessSecret[] {
  return needs.filter((name) => config[name] === undefined);
}

/** The placeholder values .env.example ships (scripts/make-env.js replaces them with fresh keys). */
export const PLACEHOLDER_SECRET = /change-me|replace[_-]with/i;

/** The secrets a deployment must never run with a published placeholder of. */
const SECRETS = [
  'JWT_SIGNING_KEY',
  'IDEMPOTENCY_KEY_SECRET',
  'VAULT_FINGERPRINT_SECRET',
  'PROCESSOR_CALLBACK_SECRET',
  'METRICS_TOKEN',
  'KOMOJU_SECRET_KEY',
  'KOMOJU_WEBHOOK_SECRET',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'CONSOLE_SESSION_SECRET',
] as const;

/** `10.0.0.1`, `::1`, `10.0.0.0/8` or `fd00::/8`. */
function isAddressOrRange(entry: string): boolean {
  return entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
}

/** An absolute http(s) URL that paths can be appended to: no query, no fragment. */
function isBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !/[?#]/.test(value);
  } catch {
    return false;
  }
}

/** An address only this machine reaches (where /metrics may stay open). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** The longest a refund's re-drive schedule may last (REFUND_REDRIVE_BASE_SECONDS). */
const REFUND_REDRIVE_WINDOW_SECONDS = 12 * 3_600;

/** Problems of settings that depend on each other, which the schema's fields cannot see one by one. */
export function crossFieldProblems(config: AppConfig): string[] {
  const problems: string[] = [];
  const redriveSchedule = config.REFUND_REDRIVE_BASE_SECONDS * (2 ** config.REFUND_REDRIVE_MAX - 1);
  if (redriveSchedule > REFUND_REDRIVE_WINDOW_SECONDS)
    problems.push(
      `REFUND_REDRIVE_BASE_SECONDS × (2^REFUND_REDRIVE_MAX − 1) is ${redriveSchedule} s: keep it within ` +
        `${REFUND_REDRIVE_WINDOW_SECONDS} s (12 hours), while the processor still knows the refund's key`,
    );
  if (config.PROCESSOR_LIVE === 'komoju' && config.PROCESSOR_LIVE_URL !== undefined)
    problems.push('PROCESSOR_LIVE_URL is for PROCESSOR_LIVE=http: unset it when live charges go to KOMOJU');
  if (config.PROCESSOR_LIVE === 'stripe' && config.PROCESSOR_LIVE_URL !== undefined)
    problems.push('PROCESSOR_LIVE_URL is for PROCESSOR_LIVE=http: unset it when live charges go to Stripe');
  if (config.QUEUE_DASHBOARD_ENABLED && config.QUEUE_DASHBOARD_PASSWORD === undefined)
    problems.push('QUEUE_DASHBOARD_PASSWORD is required when QUEUE_DASHBOARD_ENABLED=true');
  // anyone can read .env.example: its placeholders are no secret outside one's own machine
  if (config.NODE_ENV !== 'development') {
    for (const name of SECRETS) {
      if (PLACEHOLDER_SECRET.test(config[name] ?? ''))
        problems.push(`${name} is .env.example's placeholder: set a random value (node scripts/make-env.js)`);
    }
  }
  // /metrics takes no app token: in production it is open only where nothing else reaches it
  if (config.NODE_ENV === 'production' && config.METRICS_TOKEN === undefined && !isLoopbackHost(config.HOST))
    problems.push(
      `METRICS_TOKEN is required in production when HOST (${config.HOST}) is not a loopback address: /metrics would be open`,
    );
  // absolute URLs and the hosted pages' own Origin come from configuration, never from the
  // request's Host header, which a client or a misconfigured proxy controls
  if (config.NODE_ENV === 'production' && config.PUBLIC_BASE_URL === undefined)
    problems.push(
      'PUBLIC_BASE_URL is required in production (e.g. https://pay.example.com): the URLs the API hands out are built from it',
    );
  if (config.NODE_ENV === 'production' && config.WEBHOOK_ALLOW_PRIVATE_TARGETS)
    problems.push(
      'WEBHOOK_ALLOW_PRIVATE_TARGETS=true is refused when NODE_ENV=production (it lets webhooks reach ' +
        'internal addresses); list exact receivers in WEBHOOK_ALLOWED_PRIVATE_TARGETS instead',
    );
  return problems;
}
export type VaultKey = NonNullable<AppConfig['VAULT_KEYS']>[number];

export { base64Key32 };

/** `a.b.c.d:port` or `[v6]:port`, the port 1-65535. */
function isAddressAndPort(entry: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(entry);
  if (!match) return false;
  const port = Number(match[3]);
  const family = match[1] !== undefined ? (isIP(match[1]) === 6 ? 6 : 0) : isIP(match[2] ?? '') === 4 ? 4 : 0;
  return family !== 0 && port >= 1 && port <= 65_535;
}
