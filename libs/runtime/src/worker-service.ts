import { BullRegistrar, getQueueToken, Processor } from '@nestjs/bullmq';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { ModuleRef, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bullmq';
import { ConfigModule, loadConfigOrExit, type AppConfig, type ProcessName } from '@kessai/config';
import { QUEUES, type QueueDefinition } from '@kessai/contracts';
import { DbModule } from '@kessai/db';
import {
  createLogger,
  LOGGER,
  metricsRegistryProvider,
  NestPinoLogger,
  type Logger,
} from '@kessai/observability';
import { Registry } from 'prom-client';
import { RedisModule } from '@kessai/redis';
import { BullConnections, bullModules } from './bull';
import { HealthController } from './health.controller';
import { JobMetrics } from './job-metrics';
import { MetricsController } from './metrics.controller';
import { OutboxRelay } from './outbox-relay';
import type { ProcessorWorkerOptions, QueueProcessor } from './queue-processor';
import { registerQueueDepth } from './scrape-metrics';
import { WorkerRegistry } from './worker-registry';

export interface WorkerServiceOptions {
  /** the service's name: its logs' `service`, and the `consumer` its queues name in libs/contracts */
  name: string;
  config: AppConfig;
  /** Extra Nest modules of the service (its processors, repositories). */
  imports?: Array<Type | DynamicModule>;
  /**
   * The processors (providers of `imports`) of the queues this service consumes: exactly the
   * queues whose contract names this service as `consumer`, one processor each.
   */
  processors?: Array<Type<QueueProcessor<QueueDefinition>>>;
  healthPort: number;
  /** the process's logger; by default a pino logger named after the service */
  logger?: Logger;
}

export interface RunningWorkerService {
  app: NestFastifyApplication;
  logger: Logger;
  url: string;
  /** Graceful stop: stop taking jobs, finish in-flight ones, then close HTTP, queues, DB and Redis. */
  stop(): Promise<void>;
}

/** The worker services, by name. */
export type WorkerProcessName = Exclude<ProcessName, 'gateway' | 'admin'>;

/** A service started without the processor of a queue it consumes, or with one of another's. */
export class ProcessorMismatchError extends Error {}

/**
 * How often a job may be found stalled (its worker died) before BullMQ fails it. Handlers reload
 * the row and are safe to repeat, so a job survives several crashes rather than one.
 */
const MAX_STALLED_COUNT = 5;

@Module({})
class WorkerRootModule {
  static register(
    options: WorkerServiceOptions,
    logger: Logger,
    connections: BullConnections,
  ): DynamicModule {
    const [bullRoot, queues] = bullModules(connections);
    return {
      module: WorkerRootModule,
      global: true,
      imports: [
        ConfigModule.forRoot(options.config),
        DbModule,
        RedisModule,
        bullRoot,
        queues,
        ...(options.imports ?? []),
      ],
      controllers: [HealthController, MetricsController],
      providers: [WorkerRegistry, { provide: LOGGER, useValue: logger }, metricsRegistryProvider],
      // the service's modules inject the queues' producers (@InjectContractQueue), the logger and the
      // metrics registry
      exports: [LOGGER, queues, Registry],
    };
  }
}

/** The contract check: the service runs a processor for exactly the queues it consumes. */
function checkProcessors(name: string, processors: ReadonlyArray<QueueProcessor<QueueDefinition>>) {
  const served = new Map(processors.map((processor) => [processor.queue.name, processor]));
  for (const processor of processors) {
    if (processor.queue.consumer !== name)
      throw new ProcessorMismatchError(
        `${name} runs a processor of queue ${processor.queue.name}, which ${processor.queue.consumer ?? 'no service'} consumes`,
      );
  }
  const missing = QUEUES.filter((queue) => queue.consumer === name && !served.has(queue.name));
  if (missing.length > 0)
    throw new ProcessorMismatchError(
      `${name} consumes ${missing.map((queue) => queue.name).join(', ')} but has no processor for it`,
    );
}

/**
 * A processor's worker options with BullMQ's stalled check every `checkMs` (at most its lock
 * duration). BullMQ takes a job over when a check finds it marked by the check before and its lock
 * gone: a killed worker's job is taken over at most one check interval after its lock expires. With
 * the check as long as the lock (as before), that was up to twice the lock (15-30 s at 15 s, issue
 * 28); with a short check it is the lock plus a few seconds. Each check is one Lua script over the
 * queue's active list, run by one worker of the queue per interval (its stalled-check key).
 */
export function stalledCheckOptions(
  options: ProcessorWorkerOptions,
  checkMs: number,
): ProcessorWorkerOptions {
  const lockDuration = options.lockDuration ?? 30_000;
  return { ...options, lockDuration, stalledInterval: Math.min(checkMs, lockDuration) };
}

/**
 * Starts a worker service: the Nest container (config, Postgres, Redis, BullMQ, the service's
 * modules), then its queue workers with the options their processors take from the config, the
 * health endpoint; an outbox relay starts with the app when a module imports OutboxRelayModule.
 */
export async function startWorkerService(options: WorkerServiceOptions): Promise<RunningWorkerService> {
  const logger = options.logger ?? createLogger({ service: options.name, level: options.config.LOG_LEVEL });
  // the service's own: its stop closes them, and no one else's (a test's queues, another service's)
  const connections = new BullConnections();
  const app = await NestFactory.create<NestFastifyApplication>(
    WorkerRootModule.register(options, logger, connections),
    new FastifyAdapter(),
    { logger: new NestPinoLogger(logger), abortOnError: false },
  );
  const registry = app.get(WorkerRegistry);
  try {
    await app.init();
    const processors = (options.processors ?? []).map((type) => app.get(type));
    checkProcessors(options.name, processors);
    // @nestjs/bullmq reads a processor's worker options from its @Processor metadata, fixed when the
    // class is declared; the config's values are known only now: the decorator is applied again
    // with them, just before the workers are created (docs/decisions/0003-workers-on-nestjs-bullmq.md)
    (options.processors ?? []).forEach((type, i) => {
      const processor = processors[i];
      Processor(processor.queue.name, {
        ...stalledCheckOptions(processor.workerOptions, options.config.JOB_STALLED_CHECK_MS),
        maxStalledCount: MAX_STALLED_COUNT,
      })(type);
    });
    app.get(BullRegistrar).register();
    const metrics = app.get<Registry>(Registry);
    const jobMetrics = new JobMetrics(metrics);
    // the depth of the queues it consumes; only libs/contracts' queues are registered (a test's are not)
    const consumed = processors.flatMap((processor) =>
      QUEUES.includes(processor.queue)
        ? [app.get<Queue>(getQueueToken(processor.queue.name), { strict: false })]
        : [],
    );
    registerQueueDepth(metrics, consumed, logger);
    for (const processor of processors) {
      const worker = processor.worker;
      worker.on('failed', (job, error) =>
        logger.warn(
          {
            queue: worker.name,
            job: job?.name,
            jobId: job?.id,
            attempt: job?.attemptsMade,
            err: error,
          },
          'job failed',
        ),
      );
      worker.on('error', (error) => logger.error({ queue: worker.name, err: error }, 'worker error'));
      jobMetrics.watch(worker, processor.queue);
      registry.workers.push(worker);
    }
  } catch (error) {
    await registry.close();
    await app.close();
    await connections.close();
    throw error;
  }
  await app.listen(options.healthPort, options.config.HOST);
  const relay = outboxRelayOf(app);
  const url = await app.getUrl();
  logger.info({ url }, `${options.name} started`);

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info(`${options.name} stopping`);
      // the relay (OutboxRelayModule) first: no more jobs from this process; then the workers, whose
      // in-flight jobs still need the queues, Postgres and Redis
      await relay?.stop();
      await registry.close();
      await app.close();
      await connections.close();
      logger.info(`${options.name} stopped`);
    })();
    return stopping;
  };
  return { app, logger, url, stop };
}

/** The service's outbox relay, when one of its modules imports OutboxRelayModule. */
function outboxRelayOf(app: NestFastifyApplication): OutboxRelay | null {
  try {
    // through the root ModuleRef, not the app: the app's proxy logs every failed look-up as an
    // exception, and a service without a relay is no error
    return app.get(ModuleRef).get(OutboxRelay, { strict: false });
  } catch {
    return null;
  }
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
  options: Omit<WorkerServiceOptions, 'config' | 'healthPort' | 'name'> & {
    /** also the process whose secrets the config requires (libs/config, SECRET_USERS) */
    name: WorkerProcessName;
    defaultHealthPort: number;
  },
) {
  const config = loadConfigOrExit(options.name);
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
