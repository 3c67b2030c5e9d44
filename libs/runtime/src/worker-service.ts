import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigModule, loadConfigOrExit, type AppConfig } from '@kessai/config';
import { DbModule, PrismaService } from '@kessai/db';
import { createLogger, NestPinoLogger, type Logger } from '@kessai/observability';
import { HealthController } from './health.controller';
import { OutboxRelay } from './outbox-relay';
import { QueueWorkers, type QueueConsumer } from './queue-workers';
import { RedisService } from '@kessai/redis';

export interface WorkerServiceOptions {
  name: string;
  config: AppConfig;
  /** Extra Nest modules of the service (its processors, repositories). */
  imports?: Array<Type | DynamicModule>;
  /** The queues this service consumes, resolved from the Nest container once it is up. */
  consumers?: (app: NestFastifyApplication) => QueueConsumer[];
  healthPort: number;
  /** Run an outbox relay in this process (safe in any number of processes at once). */
  outboxRelay?: boolean;
}

export interface RunningWorkerService {
  app: NestFastifyApplication;
  workers: QueueWorkers;
  logger: Logger;
  url: string;
  /** Graceful stop: stop taking jobs, finish in-flight ones, then close HTTP, DB and Redis. */
  stop(): Promise<void>;
}

@Module({})
class WorkerRootModule {
  static register(options: WorkerServiceOptions): DynamicModule {
    return {
      module: WorkerRootModule,
      imports: [ConfigModule.forRoot(options.config), DbModule, ...(options.imports ?? [])],
      controllers: [HealthController],
      providers: [RedisService],
    };
  }
}

export async function startWorkerService(options: WorkerServiceOptions): Promise<RunningWorkerService> {
  const logger = createLogger({ service: options.name, level: options.config.LOG_LEVEL });
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerRootModule.register(options),
    new FastifyAdapter(),
    { logger: new NestPinoLogger(logger), abortOnError: false },
  );
  let workers: QueueWorkers;
  try {
    await app.init();
    workers = new QueueWorkers(
      options.consumers?.(app) ?? [],
      { url: options.config.REDIS_URL, prefix: options.config.REDIS_PREFIX },
      logger,
    );
  } catch (error) {
    await app.close();
    throw error;
  }
  await app.listen(options.healthPort, options.config.HOST);
  workers.start();
  const relay = options.outboxRelay
    ? new OutboxRelay(app.get(PrismaService), logger, {
        connection: { url: options.config.REDIS_URL, prefix: options.config.REDIS_PREFIX },
      })
    : null;
  relay?.start();
  const url = await app.getUrl();
  logger.info({ url }, `${options.name} started`);

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info(`${options.name} stopping`);
      await relay?.stop();
      await workers.close();
      await app.close();
      logger.info(`${options.name} stopped`);
    })();
    return stopping;
  };
  return { app, workers, logger, url, stop };
}

/** Entry-point helper: SIGTERM/SIGINT stop the service gracefully within the configured time. */
export function stopOnSignals(service: { stop(): Promise<void>; logger: Logger }, timeoutMs: number): void {
  let requested = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // a second signal (e.g. from both a supervisor and the terminal) must not kill in-flight work
    if (requested) return;
    requested = true;
    service.logger.info({ signal }, 'shutdown requested');
    const timer = setTimeout(() => {
      service.logger.error({ timeoutMs }, 'graceful shutdown timed out');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** The whole entry point of a worker service: config, start, graceful stop on signals. */
export function runWorkerMain(
  options: Omit<WorkerServiceOptions, 'config' | 'healthPort'> & { defaultHealthPort: number },
) {
  const config = loadConfigOrExit();
  startWorkerService({
    ...options,
    config,
    healthPort: config.HEALTH_PORT ?? options.defaultHealthPort,
  }).then(
    (service) => stopOnSignals(service, config.SHUTDOWN_TIMEOUT_MS),
    (error: unknown) => {
      process.stderr.write(
        `${options.name} failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
