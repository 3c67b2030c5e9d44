import { BullModule } from '@nestjs/bullmq';
import type { DynamicModule } from '@nestjs/common';
import type { QueueOptions } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { QUEUES } from '@kessai/contracts';

/**
 * How every BullMQ queue and worker of a process reaches Redis: the one connection builder. BullMQ
 * wants `maxRetriesPerRequest: null` (its blocking commands wait instead of failing); keys live under
 * REDIS_PREFIX, so that test suites and benchmarks can share one Redis.
 */
export function bullOptions(config: Pick<AppConfig, 'REDIS_URL' | 'REDIS_PREFIX'>): QueueOptions {
  return {
    connection: { url: config.REDIS_URL, maxRetriesPerRequest: null },
    prefix: config.REDIS_PREFIX,
  };
}

/**
 * BullMQ for a worker service: the connection from the config, and every queue of the system
 * (libs/contracts) registered with its job options as defaults, so that `@InjectQueue(name)` and the
 * outbox relay add jobs with them. Processors are registered by startWorkerService once the
 * container is up (manualRegistration), with their worker options from the config.
 */
export function bullModules(): [root: DynamicModule, queues: DynamicModule] {
  return [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => bullOptions(config),
      extraOptions: { manualRegistration: true },
    }),
    BullModule.registerQueue(
      ...QUEUES.map((queue) => ({ name: queue.name, defaultJobOptions: { ...queue.jobOptions } })),
    ),
  ];
}
