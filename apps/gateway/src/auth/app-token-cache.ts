import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AppTokensRepository, type AuthenticatedAppToken } from '@kessai/db';
import { APP_TOKEN_CHANGED } from '@kessai/contracts';
import { RedisService, appTokenChangesChannel, duplicateRedisClient, type RedisClient } from '@kessai/redis';

/** Cached entries at most; beyond it the cache starts over (a bound, not an LRU: misses only cost a read). */
const MAX_ENTRIES = 10_000;

/**
 * The app-token rows behind authentication, kept in memory for APP_TOKEN_CACHE_TTL_MS so that a
 * request does not read the row every time (the hot path of POST /charges).
 *
 * Revocation stays immediate: the gateway (or admin service) that revokes publishes the id on
 * `<prefix>:app-token-changed`, and every gateway drops it on receipt. What is not covered — a lost
 * pub/sub message, a read racing the revocation — is bounded by the TTL (1 s by default). 0 turns
 * the cache off.
 */
@Injectable()
export class AppTokenCache implements OnModuleInit, OnModuleDestroy {
  readonly #entries = new Map<string, { token: AuthenticatedAppToken | null; expiresAt: number }>();
  /** reads under way: concurrent requests of one credential share the read */
  readonly #reading = new Map<string, Promise<AuthenticatedAppToken | null>>();
  readonly #ttlMs: number;
  readonly #channel: string;
  #subscriber: RedisClient | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly appTokens: AppTokensRepository,
    private readonly redis: RedisService,
  ) {
    this.#ttlMs = config.APP_TOKEN_CACHE_TTL_MS;
    this.#channel = appTokenChangesChannel(config.REDIS_PREFIX);
  }

  async onModuleInit() {
    if (this.#ttlMs === 0) return;
    const subscriber = duplicateRedisClient(this.redis.client, {
      lazyConnect: true,
      enableOfflineQueue: true,
      enableAutoPipelining: false,
    });
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, message: string) => {
      // the broadcast's contract (libs/contracts): anything else on the channel is ignored
      const id = APP_TOKEN_CHANGED.message.safeParse(message);
      if (id.success) this.#forget(id.data);
    });
    // a reconnect re-subscribes (ioredis autoResubscribe); entries read meanwhile expire with the TTL
    subscriber.on('ready', () => this.#entries.clear());
    await subscriber.connect();
    await subscriber.subscribe(this.#channel);
    this.#subscriber = subscriber;
  }

  async onModuleDestroy() {
    await this.#subscriber?.quit().catch(() => this.#subscriber?.disconnect());
  }

  async find(id: string): Promise<AuthenticatedAppToken | null> {
    if (this.#ttlMs === 0) return this.appTokens.findById(id);
    const now = Date.now();
    const cached = this.#entries.get(id);
    if (cached && cached.expiresAt > now) return cached.token;
    const under = this.#reading.get(id);
    if (under) return under;
    const reading: Promise<AuthenticatedAppToken | null> = this.appTokens.findById(id).then(
      (token) => {
        // a revocation that arrived meanwhile (#forget) may not be in what this read saw: not cached
        if (this.#reading.get(id) !== reading) return token;
        this.#reading.delete(id);
        if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
        this.#entries.set(id, { token, expiresAt: now + this.#ttlMs });
        return token;
      },
      (error: unknown) => {
        if (this.#reading.get(id) === reading) this.#reading.delete(id);
        throw error;
      },
    );
    this.#reading.set(id, reading);
    return reading;
  }

  /**
   * After a revocation the use case announced itself (AppTokenService.revoke): forget it here at
   * once, before this gateway's answer, without waiting for the broadcast to come back.
   */
  forget(id: string): void {
    this.#forget(id);
  }

  /** After a token changed (revoked): forget it here and tell every other gateway. */
  async invalidate(id: string): Promise<void> {
    this.#forget(id);
    if (this.#ttlMs === 0) return;
    await this.redis.client.publish(this.#channel, id).catch(() => undefined);
  }

  /** Drops the entry, and lets a read under way answer without caching what it read. */
  #forget(id: string): void {
    this.#entries.delete(id);
    this.#reading.delete(id);
  }
}
