import { z } from 'zod';

/**
 * A cross-replica broadcast: a Redis pub/sub message every live replica hears, at most once, for
 * state kept in memory (caches). Never for work that must happen: that goes through the outbox and
 * a queue. docs/decisions/0004-no-nestjs-microservices.md says why this is not @nestjs/microservices.
 */
export interface BroadcastDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  /** the channel's name under REDIS_PREFIX */
  readonly channel: string;
  /** the message (a string on the wire) */
  readonly message: S;
}

/** An app token changed (revoked): gateways drop their cached copy of it. Message: the token id. */
export const APP_TOKEN_CHANGED = {
  channel: 'app-token-changed',
  message: z.string().uuid(),
} as const satisfies BroadcastDefinition;

/** The Redis channel of a broadcast within one deployment (REDIS_PREFIX). */
export function broadcastChannel(redisPrefix: string, broadcast: BroadcastDefinition): string {
  return `${redisPrefix}:${broadcast.channel}`;
}
