import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LedgerRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { LedgerMetrics } from './ledger-metrics';

/**
 * Every LEDGER_VERIFY_INTERVAL_MS, checks every invariant of the books (what `npm run cli --
 * ledger:verify` prints) and exports the counts as kessai_ledger_imbalance, which must be 0
 * (docs/operations.md, "Alerts"). A broken invariant is also logged as an error.
 */
@Injectable()
export class LedgerVerifier extends PeriodicService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: LedgerMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({
      name: 'ledger verification',
      intervalMs: config.LEDGER_VERIFY_INTERVAL_MS,
      runAtStart: true,
      logger,
    });
  }

  protected async tick(): Promise<void> {
    const verification = await this.ledger.verify();
    this.metrics.verified(verification);
    const { entries, transactions, ...checks } = verification;
    if (Object.values(checks).some((count) => count !== 0))
      this.logger.error({ ...checks, entries, transactions }, 'the ledger does not verify (docs/ledger.md)');
  }
}
