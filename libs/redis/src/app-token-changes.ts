import { APP_TOKEN_CHANGED, broadcastChannel } from '@kessai/contracts';
import { createRedisClient, type RedisLocation } from './redis-client';

/** The pub/sub channel on which gateways hear that an app token changed (revoked) and drop their cached copy. */
export function appTokenChangesChannel(redisPrefix: string): string {
  return broadcastChannel(redisPrefix, APP_TOKEN_CHANGED);
}

/**
 * Tells every gateway, from a process without a RedisService (the admin CLI), that a token changed.
 * Best effort: resolves false when Redis does not answer, and gateways then honour the change within
 * APP_TOKEN_CACHE_TTL_MS.
 */
export async function announceAppTokenChange(
  config: RedisLocation & { REDIS_PREFIX: string },
  tokenId: string,
): Promise<boolean> {
  APP_TOKEN_CHANGED.message.parse(tokenId);
  const redis = createRedisClient(config, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.publish(appTokenChangesChannel(config.REDIS_PREFIX), tokenId);
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
