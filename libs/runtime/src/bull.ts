import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { QUEUES } from '@kessai/contracts';
import { bullPrefix, createRedisClient, type RedisClient } from '@kessai/redis';
import { contractQueueProviders, contractQueueToken } from './contract-queue';

/** The Cluster connections bullOptions made: BullMQ does not close a connection it was given. */
const clusterConnections = new Set<RedisClient>();

/**
 * How every BullMQ queue and worker of a process reaches Redis: the one connection builder. BullMQ
 * wants `maxRetriesPerRequest: null` (its blocking commands wait instead of failing); keys live under
 * REDIS_PREFIX (a hash tag of it on a Cluster), so that test suites and benchmarks can share one Redis.
 */
export function bullOptions(
  config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_PREFIX' | 'REDIS_CLUSTER'>,
): QueueOptions {
  if (!config.REDIS_CLUSTER) {
    return { connection: { url: config.REDIS_URL, maxRetriesPerRequest: null }, prefix: config.REDIS_PREFIX };
  }
  // BullMQ takes a Cluster only as a connection made already; its workers duplicate it for their
  // blocking commands
  const connection = createRedisClient(config, { maxRetriesPerRequest: null });
  // BullMQ listens while a queue or worker uses it; the connection's errors after that (its nodes
  // gone at shutdown) are not a failure of anything
  connection.on('error', () => undefined);
  clusterConnections.add(connection);
  return { connection, prefix: bullPrefix(config) };
}

/** Closes the Cluster connections bullOptions made (after the queues and workers using them). */
export async function closeBullConnections(): Promise<void> {
  const open = [...clusterConnections];
  clusterConnections.clear();
  await Promise.all(open.map((connection) => connection.quit().catch(() => connection.disconnect())));
}

@Module({})
class ContractQueuesModule {}

/**
 * BullMQ for a worker service: the connection from the config, and every queue of the system
 * (libs/contracts) registered with its job options as defaults, each with its ContractQueue (the
 * typed producer: `@InjectContractQueue(queue)`), through which the service's producers add jobs.
 * Processors are registered by startWorkerService once the container is up (manualRegistration),
 * with their worker options from the config.
 */
export function bullModules(): [root: DynamicModule, queues: DynamicModule] {
  const registered = BullModule.registerQueue(
    ...QUEUES.map((queue) => ({ name: queue.name, defaultJobOptions: { ...queue.jobOptions } })),
  );
  return [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => bullOptions(config),
      extraOptions: { manualRegistration: true },
    }),
    {
      module: ContractQueuesModule,
      imports: [registered],
      providers: contractQueueProviders(QUEUES),
      exports: [registered, ...QUEUES.map((queue) => contractQueueToken(queue))],
    },
  ];
}
