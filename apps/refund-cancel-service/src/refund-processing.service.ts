import { Inject, Injectable } from '@nestjs/common';
import { RefundsRepository, type PendingRefund, type RefundOutcome } from '@kessai/db';
import { operationTransition } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import { isProcessorAmount, paymentError, PaymentProcessors, toProcessorAmount } from '@kessai/processor';
import { askUnderKey, type Attempt } from './attempts';
import { OperationMetrics } from './operation-metrics';

/**
 * Takes refunds to their outcome through the processor (docs/refunds-and-cancels.md). The refund
 * is reloaded and skipped when no longer pending; the processor is keyed by the refund's id and
 * executes each key once, so a job run twice, concurrently or after a crash refunds once; the
 * outcome is recorded by one conditional statement with its refund_finished event.
 */
@Injectable()
export class RefundProcessingService {
  constructor(
    private readonly refunds: RefundsRepository,
    private readonly processors: PaymentProcessors,
    private readonly metrics: OperationMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * process_refund. While the processor's answer stays unknown (timeouts, 5xx, a 409 "in progress")
   * the job throws and BullMQ retries it later with the same key; on the last attempt the processor
   * is asked once more and the refund ends `error` when it still cannot say (its amount stays
   * reserved: it may have been executed).
   */
  async processRefund(refundId: string, causeEventId: string | null, attempt: Attempt): Promise<void> {
    const refund = await this.refunds.findPending(refundId);
    if (!refund) return;
    const outcome = await this.#outcome(refund, attempt);
    const recorded = await this.refunds.record(refund.id, outcome, causeEventId);
    if (recorded) this.metrics.ended('refund', outcome.transition.to);
    this.logger.info(
      { refundId, chargeId: refund.chargeId, status: outcome.transition.to, recorded },
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
