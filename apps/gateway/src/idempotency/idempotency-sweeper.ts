import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyRecordsRepository } from '@kessai/db';

const SWEEP_EVERY_MS = 10 * 60_000;
const BATCH = 1_000;

/** Deletes expired Idempotency-Key records now and then; every replica may run it. */
@Injectable()
export class IdempotencySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly records: IdempotencyRecordsRepository) {}

  onApplicationBootstrap() {
    this.timer = setInterval(() => void this.sweep().catch(() => undefined), SWEEP_EVERY_MS);
    this.timer.unref();
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

  onApplicationShutdown() {
    clearInterval(this.timer);
  }
}
