import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LedgerRepository, OUTBOX_CURSOR } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { PeriodicService } from '@kessai/runtime';
import { postingsOf } from './fact-postings';
import { LedgerMetrics } from './ledger-metrics';

/**
 * Posts the business facts the outbox carries (docs/ledger.md, "Posting"): every
 * LEDGER_POST_INTERVAL_MS, and at once again while a run found a full batch, it reads up to
 * LEDGER_POST_BATCH charge_finished and refund_finished events past its cursor, of finished
 * database transactions only, and writes their postings and the new cursor in one transaction.
 * Exactly once: the cursor moves with the postings (a process killed before the commit leaves both
 * as they were), a fact's key is unique (a second poster finds it posted), and only one process
 * holds the cursor at a time (the others skip the run). Redis plays no part: a lost queue loses no
 * posting.
 */
@Injectable()
export class LedgerPoster extends PeriodicService {
  readonly #batch: number;

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: LedgerMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'ledger poster', intervalMs: config.LEDGER_POST_INTERVAL_MS, runAtStart: true, logger });
    this.#batch = config.LEDGER_POST_BATCH;
  }

  /** A full batch: the next one at once. */
  protected async tick() {
    return (await this.postOnce()) === this.#batch ? { pauseMs: 0 } : undefined;
  }

  /** One batch; resolves to how many events it read (null: another process holds the cursor). */
  async postOnce(): Promise<number | null> {
    return this.ledger.withCursor(OUTBOX_CURSOR, async (cursor) => {
      const events = await cursor.events(this.#batch);
      if (events.length === 0) return 0;
      const ids = (type: string) => [
        ...new Set(events.filter((e) => e.eventType === type).map((e) => e.aggregateId)),
      ];
      const [sales, refunds] = await Promise.all([
        cursor.saleFacts(ids('charge_finished')),
        cursor.refundFacts(ids('refund_finished')),
      ]);
      const requests = postingsOf(events, sales, refunds);
      const result = await cursor.post(requests);
      for (const conflict of result.conflicts)
        this.logger.error(
          {
            kind: conflict.kind,
            sourceType: conflict.sourceType,
            sourceId: conflict.sourceId,
            stored: {
              ...conflict.stored,
              amount: String(conflict.stored.amount),
              feeAmount: String(conflict.stored.feeAmount),
            },
            wanted: {
              ...conflict.wanted,
              amount: String(conflict.wanted.amount),
              feeAmount: String(conflict.wanted.feeAmount),
            },
          },
          'a fact posted before has other amounts now: not posted again (docs/ledger.md, "When ledger:verify fails")',
        );
      this.metrics.conflicted(result.conflicts.length);
      for (const { kind } of result.written) this.metrics.posted(kind, 1);
      this.metrics.lag((Date.now() - events[events.length - 1].createdOn.getTime()) / 1000);
      this.logger.debug(
        {
          events: events.length,
          written: result.written.length,
          repeated: result.repeated,
          conflicts: result.conflicts.length,
        },
        'ledger postings',
      );
      return events.length;
    });
  }
}
