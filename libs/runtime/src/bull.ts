import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { QUEUES } from '@kessai/contracts';
import { bullPrefix, createRedisClient, type RedisClient } from '@kessai/redis';
import { contractQueueProviders, contractQueueToken } from './contract-queue';

/**
 * The Cluster connections one owner (a worker service, an admin command, a test) hands to BullMQ,
 * closed together by that owner once its queues and workers are closed. BullMQ closes what it makes
 * itself (a worker's blocking duplicate, a QueueEvents' own copy) but never a connection it was
 * given, so someone must: the owner, and only its own. Closing another owner's too (one process-wide
 * set, as before) broke whoever still used them: a test's queues once the worker service it
 * started had stopped, so that the test's teardown failed and left the rest open (jest hung).
 */
export class BullConnections {
  private readonly open = new Set<RedisClient>();

  /**
   * How a BullMQ queue or worker reaches Redis. BullMQ wants `maxRetriesPerRequest: null` (its
   * blocking commands wait instead of failing); keys live under REDIS_PREFIX (a hash tag of it on a
   * Cluster), so that test suites and benchmarks can share one Redis.
   */
  options(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_PREFIX' | 'REDIS_CLUSTER'>): QueueOptions {
    if (!config.REDIS_CLUSTER) {
      return {
        connection: { url: config.REDIS_URL, maxRetriesPerRequest: null },
        prefix: config.REDIS_PREFIX,
      };
    }
    // BullMQ takes a Cluster only as a connection made already; its workers duplicate it for their
    // blocking commands
    const connection = createRedisClient(config, { maxRetriesPerRequest: null });
    // BullMQ listens while a queue or worker uses it; the connection's errors after that (its nodes
    // gone at shutdown) are not a failure of anything
    connection.on('error', () => undefined);
    this.open.add(connection);
    return { connection, prefix: bullPrefix(config) };
  }

  /** Closes this owner's Cluster connections (after the queues and workers using them). */
  async close(): Promise<void> {
    const open = [...this.open];
    this.open.clear();
    await Promise.all(open.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }
}

/** The connections `bullOptions` hands out: the test suites' and scripts' own, not a service's. */
const processConnections = new BullConnections();

/**
 * BullMQ options for a queue or worker a test or script makes itself; `closeBullConnections` (the
 * test environment's close) closes their Cluster connections. A worker service and an admin command
 * use connections of their own (BullConnections), which their stop closes.
 */
export function bullOptions(
  config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_PREFIX' | 'REDIS_CLUSTER'>,
): QueueOptions {
  return processConnections.options(config);
}

/** Closes the Cluster connections bullOptions made (after the queues and workers using them). */
export function closeBullConnections(): Promise<void> {
  return processConnections.close();
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
export function bullModules(connections: BullConnections): [root: DynamicModule, queues: DynamicModule] {
  const registered = BullModule.registerQueue(
    ...QUEUES.map((queue) => ({ name: queue.name, defaultJobOptions: { ...queue.jobOptions } })),
  );
  return [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => connections.options(config),
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
