import { Inject, Injectable } from '@nestjs/common';
import { CancelsRepository, type CancelOutcome, type PendingCancel } from '@kessai/db';
import { chargeTransition, operationTransition } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import { paymentError, PaymentProcessors } from '@kessai/processor';
import { askUnderKey, type Attempt } from './attempts';
import { OperationMetrics } from './operation-metrics';

/**
 * Takes cancels to their outcome (docs/refunds-and-cancels.md): the charge's payment is voided at
 * the processor under the cancel's id (one execution per key), then the cancel ends — successful
 * with the charge `canceled`, or failed with the processor's refusal (312) and the charge as it
 * was — and the charge's pending operation is freed, in one statement with the events.
 */
@Injectable()
export class CancelProcessingService {
  constructor(
    private readonly cancels: CancelsRepository,
    private readonly processors: PaymentProcessors,
    private readonly metrics: OperationMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** process_cancel; unknown outcomes are retried by BullMQ, and end `error` on the last attempt. */
  async processCancel(cancelId: string, causeEventId: string | null, attempt: Attempt): Promise<void> {
    const cancel = await this.cancels.findPending(cancelId);
    if (!cancel) return;
    const outcome = await this.#outcome(cancel, attempt);
    const { recorded, chargeMoved } = await this.cancels.record(cancel.id, outcome, causeEventId);
    if (recorded) this.metrics.ended('cancel', outcome.transition.to);
    this.logger.info(
      { cancelId, chargeId: cancel.chargeId, status: outcome.transition.to, recorded, chargeMoved },
      'cancel processed',
    );
  }

  async #outcome(cancel: PendingCancel, attempt: Attempt): Promise<CancelOutcome> {
    const processor = await this.processors.forCharge(
      cancel.chargeId,
      cancel.mode,
      cancel.processorAccountId,
    );
    if (!processor || !cancel.processorReference) {
      return failed(paymentError('CANCEL_UNAVAILABLE', 'the charge has no payment to void'));
    }
    const request = { processorReference: cancel.processorReference, idempotencyKey: cancel.id };
    const context = { cancelId: cancel.id, chargeId: cancel.chargeId };
    const answer = await askUnderKey(
      'void',
      this.processors,
      this.logger,
      context,
      attempt,
      () => processor.void(request),
      () => processor.status(cancel.chargeId),
    );
    if (answer === 'refused')
      return failed(paymentError('CANCEL_UNAVAILABLE', 'the processor refused the void request'));
    if (answer === 'unreachable')
      return {
        transition: operationTransition('cancel', 'pending', 'error'),
        charge: null,
        error: paymentError('PROCESSING_ERROR', 'the processor could not be reached'),
      };
    const { result } = answer;
    if (result.outcome === 'rejected') return failed(result.error);
    return {
      transition: operationTransition('cancel', 'pending', 'successful'),
      // from the status the charge was read in; the statement moves it only from a cancellable one
      charge: chargeTransition(cancel.chargeStatus, 'canceled'),
    };
  }
}

function failed(error: CancelOutcome['error']): CancelOutcome {
  return { transition: operationTransition('cancel', 'pending', 'failed'), charge: null, error };
}
