import { Inject, Injectable } from '@nestjs/common';
import { CaptureOutcomesRepository } from '@kessai/db';
import { CAPTURABLE_CHARGE_STATUS, captureTransition, chargeTransition } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import {
  fromProcessorAmount,
  isProcessorAmount,
  paymentError,
  PaymentProcessors,
  ProcessorRequestRejectedError,
  toProcessorAmount,
} from '@kessai/processor';
import { ChargeMetrics } from './charge-metrics';
import { feeOf } from './charge-outcomes';

/**
 * capture_charge: an authorized charge's pending capture carried out at the processor, keyed by
 * the capture id (docs/charges.md, "charge-service"). Every method reloads the row and does nothing when the work no longer applies, and records through one
 * conditional statement, so a job that runs twice, concurrently or after a crash, changes nothing
 * the second time.
 */
@Injectable()
export class ChargeCaptureService {
  constructor(
    private readonly captures: CaptureOutcomesRepository,
    private readonly processors: PaymentProcessors,
    private readonly metrics: ChargeMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * capture_charge: capture the charge's pending capture at the processor, keyed by the capture id.
   * Captured: the charge becomes successful with charged_amount = the captured amount. Refused: the
   * capture fails with the processor's error and the charge stays authorized (the hold is the
   * processor's; nothing was taken).
   */
  async captureCharge(chargeId: string, causeEventId: string | null = null): Promise<void> {
    const capture = await this.captures.findPendingCapture(chargeId);
    if (!capture) return;
    // the charge's account comes with the capture's row: a charge on its mode's default needs no lookup
    const processor = await this.processors.forCharge(chargeId, capture.mode, capture.processorAccountId);
    const refuse = async (reason: string) => {
      const recorded = await this.captures.recordCaptureFailed(
        capture.id,
        captureTransition('pending', 'failed'),
        paymentError('PROCESSING_ERROR', reason),
      );
      if (recorded) this.metrics.captureEnded('failed');
    };
    if (capture.chargeStatus !== CAPTURABLE_CHARGE_STATUS || !capture.processorReference || !processor) {
      await refuse(
        processor
          ? `the charge is ${capture.chargeStatus}, not authorized`
          : 'no live processor is configured',
      );
      return;
    }
    if (!isProcessorAmount(capture.amount)) {
      await refuse('the amount is beyond what the processor accepts');
      return;
    }
    const processorReference = capture.processorReference;
    const amount = toProcessorAmount(capture.amount);
    let result;
    try {
      result = await this.processors.retrying(
        () =>
          processor.capture({
            processorReference,
            idempotencyKey: capture.id,
            amount,
            currency: capture.currency,
          }),
        this.logger,
        { chargeId, captureId: capture.id },
      );
    } catch (error) {
      if (!(error instanceof ProcessorRequestRejectedError)) throw error;
      this.logger.error(
        { chargeId, captureId: capture.id, httpStatus: error.httpStatus, type: error.type },
        'capture refused',
      );
      result = {
        outcome: 'rejected' as const,
        error: paymentError('PROCESSING_ERROR', 'the processor refused the capture request'),
      };
    }
    const recorded =
      result.outcome === 'captured'
        ? await this.captures.recordCaptured(
            capture.id,
            fromProcessorAmount(result.capturedAmount),
            feeOf(fromProcessorAmount(result.capturedAmount), capture.feeTerms),
            {
              capture: captureTransition('pending', 'successful'),
              charge: chargeTransition(capture.chargeStatus, 'successful'),
            },
            causeEventId,
          )
        : await this.captures.recordCaptureFailed(
            capture.id,
            captureTransition('pending', 'failed'),
            result.error,
          );
    if (recorded) {
      this.metrics.captureEnded(result.outcome === 'captured' ? 'successful' : 'failed');
      if (result.outcome === 'captured') this.metrics.chargeMoved('successful');
    }
    this.logger.info({ chargeId, captureId: capture.id, outcome: result.outcome, recorded }, 'capture done');
  }
}
