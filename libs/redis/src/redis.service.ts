import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { createRedisClient, type RedisClient } from './redis-client';

/**
 * The process's Redis connection for commands (rate-limit scripts, health). Commands fail fast
 * instead of queueing forever while Redis is away, so requests answer rather than hang.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnModuleDestroy {
  readonly client: RedisClient;
  readonly prefix: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.prefix = config.REDIS_PREFIX;
    this.client = createRedisClient(config, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2_000,
      commandTimeout: 2_000,
      lazyConnect: true,
      // commands issued in the same tick (concurrent requests' limiter scripts, CVV reads) leave in
      // one write: on this kind of machine a socket write costs as much as Redis's own work
      enableAutoPipelining: true,
    });
    // errors surface on the commands that fail; the connection event itself needs no crash
    this.client.on('error', () => undefined);
  }

  /** A process connects at boot: one that cannot reach Redis does not start. */
  async onModuleInit() {
    await this.client.connect();
  }

  async isHealthy(): Promise<boolean> {
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async onModuleDestroy() {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
