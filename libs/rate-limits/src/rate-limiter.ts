import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { RateLimitedError, ServiceUnavailableError } from '@kessai/domain';
import { RedisService, type RedisClient } from '@kessai/redis';
import { TOKEN_BUCKET_SCRIPT } from './token-bucket.script';
import { rateLimitSettings, type BucketCheck, type RateLimitSettings } from './rate-limit.policy';

export interface RateLimitOutcome {
  allowed: boolean;
  /** how long until every refused bucket can take one more request */
  retryAfterMs: number;
  /** remaining whole requests per bucket, in the order they were given */
  remaining: number[];
}

/**
 * The Redis limiter could not answer: Redis unreachable (`slow` false), or connected and ready but
 * slower than RATE_LIMIT_REDIS_TIMEOUT_MS (`slow` true: on a loaded machine, not a Redis that is down).
 */
export class RateLimiterUnavailableError extends Error {
  constructor(
    cause: unknown,
    readonly slow: boolean,
  ) {
    super(slow ? 'rate limiter slow' : 'rate limiter unavailable', { cause });
  }
}

type TakeTokens = (...keysThenArgs: Array<string | number>) => Promise<number[]>;

const COMMAND = 'kessaiTakeTokens';

/** Token buckets in Redis: all buckets of one request checked and taken in one script call. */
@Injectable()
export class RateLimiter {
  readonly settings: RateLimitSettings;
  private readonly client: RedisClient;
  private readonly keyPrefix: string;
  private readonly timeoutMs: number;
  private readonly commands = new Map<number, TakeTokens>();

  private readonly enabled: boolean;
  private readonly failOpen: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig, redis: RedisService) {
    this.settings = rateLimitSettings(config);
    this.enabled = config.RATE_LIMIT_ENABLED;
    this.failOpen = config.RATE_LIMIT_REDIS_FAILURE === 'open';
    this.client = redis.client;
    this.keyPrefix = `${redis.prefix}:rl`;
    this.timeoutMs = config.RATE_LIMIT_REDIS_TIMEOUT_MS;
    // every shape of call defined before the first one (a plan has one or two buckets: two or four
    // keys): ioredis's auto-pipeline copies the client's commands when it is created, so a command
    // defined while a pipeline is being filled is missing from it, and its call crashed the process
    // ("results[i] is not iterable"; found by test:chaos on a gateway restarted under load)
    for (const buckets of [1, 2]) this.command(buckets * 2);
  }

  /**
   * The script as a command taking `keyCount` keys (two per bucket), defined on first use: EVALSHA,
   * falling back to EVAL once when Redis does not have the script cached yet. Its key count is
   * fixed, so a call's first argument is its first key: on a Cluster, ioredis's auto-pipelining
   * routes a call by its first argument, and a leading key count sent calls for different masters
   * into one pipeline ("All keys in the pipeline should belong to the same slots allocation
   * group", ioredis#2109), and every such request got a 503.
   */
  private command(keyCount: number): TakeTokens {
    let command = this.commands.get(keyCount);
    if (!command) {
      const name = `${COMMAND}${keyCount}`;
      this.client.defineCommand(name, { lua: TOKEN_BUCKET_SCRIPT, numberOfKeys: keyCount });
      command = (this.client as unknown as Record<string, TakeTokens>)[name].bind(this.client);
      this.commands.set(keyCount, command);
    }
    return command;
  }

  /**
   * `take` for a throttle outside the gateway's hooks (a sign-in, a customer's login code): nothing
   * when rate limits are off; 429 RateLimitedError when a bucket is empty; when Redis fails, let
   * through if it was only slow or RATE_LIMIT_REDIS_FAILURE is open, else 503.
   */
  async enforce(subject: string, buckets: BucketCheck[]): Promise<void> {
    if (!this.enabled) return;
    let outcome: RateLimitOutcome;
    try {
      outcome = await this.take(subject, buckets);
    } catch (error) {
      if (error instanceof RateLimiterUnavailableError && (error.slow || this.failOpen)) return;
      throw new ServiceUnavailableError();
    }
    if (!outcome.allowed) throw new RateLimitedError(Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)));
  }

  /**
   * Takes one request from every bucket of `subject` (a credential or a client IP), or from none.
   * Every key carries the subject as its hash tag, so one call touches one Cluster slot.
   */
  async take(subject: string, buckets: BucketCheck[]): Promise<RateLimitOutcome> {
    const keys: string[] = [];
    const args: Array<string | number> = [randomUUID()];
    for (const bucket of buckets) {
      const base = `${this.keyPrefix}:{${subject}}:${bucket.name}`;
      keys.push(`${base}:b`, `${base}:w`);
      args.push(bucket.limits.burst, bucket.limits.refillPerMs, bucket.limits.perMinute);
    }
    const reply = await this.withTimeout(this.command(keys.length)(...keys, ...args));
    const [allowed, retryAfterMs, ...remaining] = reply;
    return { allowed: allowed === 1, retryAfterMs, remaining };
  }

  /**
   * Takes one failure from `bucket` of `subject` (a client IP's refused callback signature); the
   * failure that finds it empty blocks the subject for as long as the bucket needs to refill.
   */
  async penalize(subject: string, bucket: BucketCheck): Promise<void> {
    const outcome = await this.take(subject, [bucket]);
    if (!outcome.allowed)
      await this.withTimeout(
        this.client.set(this.blockKey(subject, bucket), '1', 'PX', Math.max(1_000, outcome.retryAfterMs)),
      );
  }

  /** How long `subject` is still blocked for `bucket` (penalize), in ms; 0 when it is not. */
  async blockedFor(subject: string, bucket: BucketCheck): Promise<number> {
    const ttl = await this.withTimeout(this.client.pttl(this.blockKey(subject, bucket)));
    return ttl > 0 ? ttl : 0;
  }

  private blockKey(subject: string, bucket: BucketCheck): string {
    return `${this.keyPrefix}:{${subject}}:${bucket.name}:blocked`;
  }

  private async withTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([promise, timeout]);
    } catch (error) {
      // a late answer or failure of the abandoned call must not surface as an unhandled rejection
      promise.catch(() => undefined);
      throw new RateLimiterUnavailableError(error, timedOut && this.client.status === 'ready');
    } finally {
      clearTimeout(timer);
    }
  }
}
