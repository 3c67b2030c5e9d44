import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { jobId, REFUNDS_CANCELS_QUEUE, sweepBucket, type OperationJobData } from '@kessai/contracts';
import { RefundsRepository } from '@kessai/db';
import { LOGGER, type Logger } from '@kessai/observability';
import { ContractQueue, InjectContractQueue, PeriodicService } from '@kessai/runtime';

const BATCH = 500;

/**
 * Every REFUND_CANCEL_SWEEP_INTERVAL_MS:
 * - queues again the refunds and cancels pending for REFUND_CANCEL_STALE_SECONDS: their job was
 *   lost (a Redis without persistence, a flushed queue). A job's own retries end it well before
 *   that (the last attempt records `error`). Safe in any number of replicas: one job id per
 *   operation and time bucket, and the jobs are repeatable.
 * - re-drives the refunds in `error` that are due (REFUND_REDRIVE_MAX times at most, the first
 *   REFUND_REDRIVE_BASE_SECONDS after the error, doubling): each is made pending again with a new
 *   refund_requested command in one statement, which the outbox relay publishes. The processor,
 *   asked again under the refund's own key, executes it at most once. Replicas take disjoint rows
 *   (`SKIP LOCKED`), and a refund pending again is no longer in `error`.
 */
@Injectable()
export class RefundCancelSweeper extends PeriodicService {
  readonly #staleSeconds: number;
  readonly #redrive: { max: number; baseSeconds: number };

  constructor(
    private readonly refunds: RefundsRepository,
    @InjectContractQueue(REFUNDS_CANCELS_QUEUE)
    private readonly queue: ContractQueue<typeof REFUNDS_CANCELS_QUEUE>,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super({ name: 'refund/cancel sweep', intervalMs: config.REFUND_CANCEL_SWEEP_INTERVAL_MS, logger });
    this.#staleSeconds = config.REFUND_CANCEL_STALE_SECONDS;
    this.#redrive = { max: config.REFUND_REDRIVE_MAX, baseSeconds: config.REFUND_REDRIVE_BASE_SECONDS };
  }

  protected async tick(): Promise<void> {
    await this.sweep();
    await this.redrive();
  }

  /** One pass; resolves to how many operations it queued again. */
  async sweep(): Promise<number> {
    const stale = await this.refunds.findStaleOperations(this.#staleSeconds, BATCH);
    if (stale.length === 0) return 0;
    const bucket = sweepBucket(this.#staleSeconds);
    await this.queue.addBulk(
      stale.map(({ kind, id }) => {
        const name = kind === 'refund' ? ('process_refund' as const) : ('process_cancel' as const);
        const data: OperationJobData = { aggregateId: id, eventType: `${kind}_sweep` };
        return { name, data, opts: { jobId: jobId(name, id, 'sweep', bucket) } };
      }),
    );
    this.logger.info({ requeued: stale.length }, 'refund/cancel sweep');
    return stale.length;
  }

  /** One pass of re-drives; resolves to the refunds made pending again. */
  async redrive(): Promise<number> {
    if (this.#redrive.max === 0) return 0;
    const redriven = await this.refunds.redriveDue(this.#redrive.max, this.#redrive.baseSeconds, BATCH);
    if (redriven.length > 0)
      this.logger.warn(
        { refunds: redriven.map(({ id, redrives }) => ({ id, redrives })) },
        'refunds in error sent to the processor again',
      );
    return redriven.length;
  }
}
