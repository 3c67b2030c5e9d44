import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LedgerRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { LedgerMetrics } from './ledger-metrics';

const BATCH = 500;

/**
 * Every LEDGER_RELEASE_INTERVAL_MS, moves the pending money whose instant of availability has come
 * to its store's available balance (docs/ledger.md, "Availability"): exactly what each holding
 * holds, under the lock of its account, so that two replicas release it once.
 */
@Injectable()
export class LedgerRelease extends PeriodicService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: LedgerMetrics,
    @Inject(LOGGER) logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({
      name: 'ledger release',
      intervalMs: config.LEDGER_RELEASE_INTERVAL_MS,
      runAtStart: true,
      logger,
    });
  }

  protected async tick() {
    const released = await this.ledger.release(BATCH);
    this.metrics.posted('release', released);
    return released === BATCH ? { pauseMs: 0 } : undefined;
  }
}
