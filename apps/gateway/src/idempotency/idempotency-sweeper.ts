import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { IdempotencyRecordsRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicTask } from '@kessai/runtime';

const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 1_000;

/** Deletes expired Idempotency-Key records now and then; every replica may run it. */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  readonly #task: PeriodicTask;

  constructor(
    private readonly records: IdempotencyRecordsRepository,
    @Inject(LOGGER) logger: Logger,
  ) {
    // a failed sweep is logged (it was swallowed before) and tried again at the next interval
    this.#task = new PeriodicTask({
      name: 'idempotency sweep',
      intervalMs: SWEEP_EVERY_MS,
      run: async () => {
        await this.sweep();
      },
      logger,
    });
  }

  onApplicationBootstrap() {
    this.#task.start();
  }

  /** Deletes in batches so that one sweep never holds a long transaction. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.records.deleteExpired(BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
    }
  }

  /** Lets the sweep in progress finish (before Postgres closes: DbModule is destroyed last). */
  onModuleDestroy(): Promise<void> {
    return this.#task.stop();
  }
}
