import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LedgerRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicTask } from '@kessai/runtime';
import { LedgerMetrics } from './ledger-metrics';

const BATCH = 500;

/**
 * Every LEDGER_RELEASE_INTERVAL_MS, moves the pending money whose instant of availability has come
 * to its store's available balance (docs/ledger.md, "Availability"): exactly what each holding
 * holds, under the lock of its account, so that two replicas release it once.
 */
@Injectable()
export class LedgerRelease implements OnApplicationBootstrap, OnModuleDestroy {
  readonly #task: PeriodicTask;

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: LedgerMetrics,
    @Inject(LOGGER) logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#task = new PeriodicTask({
      name: 'ledger release',
      intervalMs: config.LEDGER_RELEASE_INTERVAL_MS,
      runAtStart: true,
      run: async () => {
        const released = await this.ledger.release(BATCH);
        this.metrics.posted('release', released);
        return released === BATCH ? { pauseMs: 0 } : undefined;
      },
      logger,
    });
  }

  onApplicationBootstrap() {
    this.#task.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.#task.stop();
  }
}
