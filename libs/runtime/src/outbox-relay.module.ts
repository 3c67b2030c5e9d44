import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Registry } from 'prom-client';
import type { QueueDefinition } from '@kessai/contracts';
import { OutboxRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { contractQueueToken, type ContractQueue } from './contract-queue';
import { OutboxRelay } from './outbox-relay';
import { registerOutboxLag } from './scrape-metrics';

/**
 * The outbox relay of a worker service, for the service module that runs one (charge-service and
 * webhook-service; safe in any number of processes at once): started once the app is up, stopped
 * (its batch in progress finished) when it closes, the outbox lag on the service's /metrics. Needs
 * the worker service's root (Postgres, the queues' producers, the logger, the metrics registry).
 */
@Module({
  providers: [
    {
      provide: OutboxRelay,
      inject: [OutboxRepository, LOGGER, ModuleRef, Registry],
      useFactory: (outbox: OutboxRepository, logger: Logger, modules: ModuleRef, metrics: Registry) => {
        registerOutboxLag(metrics, outbox, logger);
        return new OutboxRelay(outbox, logger, {
          queue: (queue) =>
            modules.get<ContractQueue<QueueDefinition>>(contractQueueToken(queue), { strict: false }),
        });
      },
    },
  ],
  exports: [OutboxRelay],
})
export class OutboxRelayModule {}
