import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { PayoutsRepository, type PayoutBook, type PayoutBookRow, type PayoutRunRequest } from '@kessai/db';
import { decidePayout } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { lastPayoutDay } from '@kessai/schedule';
import { effectiveConfiguration } from '@kessai/store-configuration';
import { LedgerMetrics } from './ledger-metrics';

const BATCH = 500;

/** Who the engine's transfers say started them. */
export const PAYOUT_SCHEDULE = 'payout-schedule';

/** The payout day a book owes now, if it was not run yet (null: nothing to do). */
export function payoutDue(book: PayoutBookRow, at: Date): PayoutRunRequest | null {
  const configuration = effectiveConfiguration(book.configuration);
  const schedule = configuration.transfer_schedule;
  const zone = configuration.display_time_zone;
  const day = lastPayoutDay(schedule, zone, at);
  if (book.lastPayoutDay !== null && book.lastPayoutDay >= day.day) return null;
  const previous = lastPayoutDay(schedule, zone, new Date(day.startsAt.getTime() - 1));
  return {
    merchantId: book.merchantId,
    mode: book.mode,
    currency: book.currency,
    payoutDay: day.day,
    cutoff: day.startsAt,
    periodFrom: previous.startsAt,
    minimum: configuration.min_transfer_payout,
    startedBy: PAYOUT_SCHEDULE,
  };
}

/**
 * The payout engine (docs/ledger.md, "Payouts"; decision 0038): every PAYOUT_INTERVAL_MS, for every
 * merchant's book (mode and currency) whose latest payout day in its time zone has not been run,
 * one run: the money owed and not yet covered becomes a transfer to the currency's primary verified
 * bank account when it is positive and at least min_transfer_payout; otherwise it is carried
 * forward. Each run is one database transaction with its keys (PayoutsRepository): any number of
 * replicas, and a process killed mid-run, make each payout day's transfer once.
 */
@Injectable()
export class PayoutEngine extends PeriodicService {
  constructor(
    private readonly payouts: PayoutsRepository,
    private readonly metrics: LedgerMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'payout engine', intervalMs: config.PAYOUT_INTERVAL_MS, runAtStart: true, logger });
  }

  protected async tick(): Promise<void> {
    await this.runOnce(new Date());
  }

  /** One pass over every book at instant `at`; resolves to the transfers it created. */
  async runOnce(at: Date): Promise<string[]> {
    const created: string[] = [];
    let after: PayoutBook | null = null;
    for (;;) {
      const books = await this.payouts.books(after, BATCH);
      for (const book of books) {
        const request = payoutDue(book, at);
        if (!request) continue;
        const result = await this.payouts.run(request, decidePayout);
        if (result.repeat) continue;
        this.metrics.payoutRun(result.decision.outcome);
        if (result.transferId) created.push(result.transferId);
        this.logger.info(
          {
            merchantId: book.merchantId,
            mode: book.mode,
            currency: book.currency,
            payoutDay: request.payoutDay,
            outcome: result.decision.outcome,
            amount: String(result.decision.amount),
            transferId: result.transferId,
          },
          'payout run',
        );
      }
      if (books.length < BATCH) return created;
      after = books[books.length - 1];
    }
  }
}
