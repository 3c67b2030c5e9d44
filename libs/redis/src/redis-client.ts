import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A connection to Kessai's Redis: one server, or a Redis Cluster (REDIS_CLUSTER). */
export type RedisClient = Redis | Cluster;

/** Where Kessai's Redis is: a server's URL, or with REDIS_CLUSTER a node of a Cluster (its seed). */
export interface RedisLocation {
  REDIS_URL: string;
  REDIS_CLUSTER: boolean;
}

/**
 * The one way a process connects to Redis (docs/operations.md, "Redis Cluster"): `new Redis(url)`,
 * or with REDIS_CLUSTER an ioredis `Cluster` seeded with REDIS_URL's node, which finds the others
 * (CLUSTER SLOTS) and follows MOVED/ASK. The URL's credentials and TLS (`rediss://`) apply to every
 * node. Options that are the Cluster's own (lazyConnect, enableOfflineQueue, enableAutoPipelining)
 * go to it, the others to each node's connection.
 */
export function createRedisClient(location: RedisLocation, options: RedisOptions = {}): RedisClient {
  if (!location.REDIS_CLUSTER) return new Redis(location.REDIS_URL, options);
  const url = new URL(location.REDIS_URL);
  const { lazyConnect, enableOfflineQueue, enableAutoPipelining, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    lazyConnect,
    enableOfflineQueue,
    enableAutoPipelining,
    // a command waits through a failover's redirections rather than failing at the first
    retryDelayOnFailover: 200,
    redisOptions: {
      ...nodeOptions,
      ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
      ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], clusterOptions);
}

/**
 * BullMQ's key prefix: REDIS_PREFIX, wrapped as a hash tag on a Cluster, as BullMQ requires (a
 * queue's Lua scripts touch several of its keys, which must live in one slot). Every queue is then
 * in the slot of `{REDIS_PREFIX}`, on one master.
 */
export function bullPrefix(config: { REDIS_PREFIX: string; REDIS_CLUSTER: boolean }): string {
  return config.REDIS_CLUSTER ? `{${config.REDIS_PREFIX}}` : config.REDIS_PREFIX;
}

/** A second connection like `client` (a subscriber, say), on the same server or Cluster. */
export function duplicateRedisClient(
  client: RedisClient,
  options: Pick<RedisOptions, 'lazyConnect' | 'enableOfflineQueue' | 'enableAutoPipelining'>,
): RedisClient {
  return client instanceof Cluster ? client.duplicate(undefined, options) : client.duplicate(options);
}

/** The servers holding the keys: a Cluster's masters, or the one server (to SCAN or INFO each). */
export function masterNodes(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}
