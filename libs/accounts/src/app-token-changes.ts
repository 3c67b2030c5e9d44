import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { RedisService, appTokenChangesChannel } from '@kessai/redis';

/**
 * Tells every gateway that an app token changed (revoked), on the broadcast channel their
 * AppTokenCache listens to, so that a revocation made by any front end (the API, the console) stops
 * the token at once everywhere. Best effort: when Redis does not answer, gateways honour the change
 * within APP_TOKEN_CACHE_TTL_MS. Needs the (global) RedisModule.
 */
@Injectable()
export class AppTokenChanges {
  readonly #channel: string;

  constructor(
    private readonly redis: RedisService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#channel = appTokenChangesChannel(config.REDIS_PREFIX);
  }

  async announce(tokenId: string): Promise<void> {
    await this.redis.client.publish(this.#channel, tokenId).catch(() => undefined);
  }
}
