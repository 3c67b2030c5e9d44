import { Inject, Injectable } from '@nestjs/common';
import { jobId, REFUND_REQUESTED, REFUNDS_CANCELS_QUEUE, type OperationJobData } from '@kessai/contracts';
import {
  RefundsRepository,
  type PendingRefund,
  type RecordedRefundOutcome,
  type RefundOutcome,
} from '@kessai/db';
import { operationTransition } from '@kessai/domain';
import { LOGGER, withCorrelation, type Logger } from '@kessai/observability';
import { isProcessorAmount, paymentError, PaymentProcessors, toProcessorAmount } from '@kessai/processor';
import { Coalescer, ContractQueue, InjectContractQueue } from '@kessai/runtime';
import { askUnderKey, type Attempt } from './attempts';
import { OperationMetrics } from './operation-metrics';

/** One refund of a process_refunds job: its refund_requested command. */
export interface RefundJobRequest {
  refundId: string;
  causeEventId: string | null;
  /** the request the refund comes from: its log lines carry it */
  correlationId?: string | null;
}

/** a refund of a batch is never on its last try: one whose outcome stays unknown gets a job of its own */
const NOT_LAST: Attempt = { last: false };

/**
 * Takes refunds to their outcome through the processor (docs/refunds-and-cancels.md). The refund
 * is reloaded and skipped when no longer pending; the processor is keyed by the refund's id and
 * executes each key once, so a job run twice, concurrently or after a crash refunds once; the
 * outcome is recorded by one conditional statement with its refund_finished event, shared by the
 * outcomes recorded at the same time.
 */
@Injectable()
export class RefundProcessingService {
  /** outcomes recorded concurrently share statements (one round trip, one commit) */
  readonly #outcomes: Coalescer<RecordedRefundOutcome, boolean>;

  constructor(
    private readonly refunds: RefundsRepository,
    private readonly processors: PaymentProcessors,
    private readonly metrics: OperationMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @InjectContractQueue(REFUNDS_CANCELS_QUEUE)
    private readonly queue: ContractQueue<typeof REFUNDS_CANCELS_QUEUE>,
  ) {
    this.#outcomes = new Coalescer(
      async (outcomes) => {
        const moved = await this.refunds.recordMany(outcomes);
        return outcomes.map((outcome) => moved.has(outcome.refundId));
      },
      { maxItems: 200, maxInFlight: 2 },
    );
  }

  /**
   * process_refund. While the processor's answer stays unknown (timeouts, 5xx, a 409 "in progress")
   * the job throws and BullMQ retries it later with the same key; on the last attempt the processor
   * is asked once more and the refund ends `error` when it still cannot say (its amount stays
   * reserved: it may have been executed).
   */
  async processRefund(refundId: string, causeEventId: string | null, attempt: Attempt): Promise<void> {
    const refund = await this.refunds.findPending(refundId);
    if (refund) await this.#process(refund, causeEventId, attempt);
  }

  /**
   * process_refunds: the refunds of one relay batch, read in one query and processed side by side.
   * A refund whose outcome stays unknown (the processor unreachable past its retries, or any other
   * failure) does not hold back or repeat the others: it continues as its own process_refund job,
   * retried with the queue's backoff (and ended `error` on its last attempt). Only when that
   * hand-over fails does the batch job fail, to be retried as a whole (the refunds already recorded
   * are no longer pending, so are skipped).
   */
  async processRefunds(requests: readonly RefundJobRequest[]): Promise<void> {
    // a refund listed twice is processed once, for its first event
    const first = new Map<string, RefundJobRequest>();
    for (const request of requests) if (!first.has(request.refundId)) first.set(request.refundId, request);
    const pending = await this.refunds.findPendingMany([...first.keys()]);
    const settled = await Promise.allSettled(
      pending.map((refund) => {
        const request = first.get(refund.id);
        return withCorrelation(request?.correlationId ?? null, () =>
          this.#process(refund, request?.causeEventId ?? null, NOT_LAST),
        );
      }),
    );
    const unfinished: PendingRefund[] = [];
    settled.forEach((result, i) => {
      const refund = pending[i];
      if (result.status === 'fulfilled' || !refund) return;
      unfinished.push(refund);
      this.logger.warn(
        { refundId: refund.id, chargeId: refund.chargeId, err: result.reason as unknown },
        'refund outcome unknown; retrying it alone',
      );
    });
    if (unfinished.length === 0) return;
    await this.queue.addBulk(
      unfinished.map((refund) => {
        const causeEventId = first.get(refund.id)?.causeEventId ?? null;
        const data: OperationJobData = {
          aggregateId: refund.id,
          eventType: REFUND_REQUESTED,
          ...(causeEventId ? { eventId: causeEventId } : {}),
        };
        return {
          name: 'process_refund' as const,
          data,
          opts: {
            // one per refund and command: a re-driven refund's next command gets a job of its own
            jobId: jobId('process_refund', refund.id, 'retry', causeEventId ?? 'none'),
            delay: REFUNDS_CANCELS_QUEUE.jobOptions.backoff.delay,
          },
        };
      }),
    );
  }

  async #process(refund: PendingRefund, causeEventId: string | null, attempt: Attempt): Promise<void> {
    const outcome = await this.#outcome(refund, attempt);
    const recorded = await this.#outcomes.submit({
      refundId: refund.id,
      chargeId: refund.chargeId,
      outcome,
      causeEventId,
    });
    if (recorded) this.metrics.ended('refund', outcome.transition.to);
    this.logger.info(
      { refundId: refund.id, chargeId: refund.chargeId, status: outcome.transition.to, recorded },
      'refund processed',
    );
  }

  async #outcome(refund: PendingRefund, attempt: Attempt): Promise<RefundOutcome> {
    const processor = await this.processors.forCharge(
      refund.chargeId,
      refund.mode,
      refund.processorAccountId,
    );
    // nothing can have been executed: failed, its amount free again
    if (!processor)
      return ended('failed', paymentError('PROCESSING_ERROR', 'no live processor is configured'));
    if (!refund.processorReference) {
      return ended('failed', paymentError('REFUND_FAILED', 'the charge has no payment at the processor'));
    }
    if (!isProcessorAmount(refund.amount)) {
      return ended(
        'failed',
        paymentError('REFUND_FAILED', 'the amount is beyond what the processor accepts'),
      );
    }
    const request = {
      processorReference: refund.processorReference,
      idempotencyKey: refund.id,
      amount: toProcessorAmount(refund.amount),
      currency: refund.currency,
    };
    const context = { refundId: refund.id, chargeId: refund.chargeId };
    const answer = await askUnderKey(
      'refund',
      this.processors,
      this.logger,
      context,
      attempt,
      () => processor.refund(request),
      () => processor.status(refund.chargeId),
    );
    if (answer === 'refused')
      return ended('failed', paymentError('REFUND_FAILED', 'the processor refused the refund request'));
    if (answer === 'unreachable')
      return {
        transition: operationTransition('refund', 'pending', 'error'),
        error: paymentError('PROCESSING_ERROR', 'the processor could not be reached'),
      };
    const { result } = answer;
    return result.outcome === 'refunded'
      ? {
          transition: operationTransition('refund', 'pending', 'successful'),
          processorReference: result.refundReference,
        }
      : ended('failed', result.error);
  }
}

function ended(to: 'failed' | 'error', error: RefundOutcome['error']): RefundOutcome {
  return { transition: operationTransition('refund', 'pending', to), error };
}
