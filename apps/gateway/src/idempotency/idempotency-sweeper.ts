import { Inject, Injectable } from '@nestjs/common';
import { IdempotencyRecordsRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';

const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 1_000;

/** Deletes expired Idempotency-Key records now and then; every replica may run it. */
@Injectable()
export class IdempotencySweeper extends PeriodicService {
  constructor(
    private readonly records: IdempotencyRecordsRepository,
    @Inject(LOGGER) logger: Logger,
  ) {
    // a failed sweep is logged (it was swallowed before) and tried again at the next interval
    super({ name: 'idempotency sweep', intervalMs: SWEEP_EVERY_MS, logger });
  }

  protected async tick(): Promise<void> {
    await this.sweep();
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
}
