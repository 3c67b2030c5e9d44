import { Injectable } from '@nestjs/common';
import type { CaptureTransition, ChargeStatus, ChargeTransition, FeeTerms } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';
import { FIND_PENDING_CAPTURE, RECORD_CAPTURED, RECORD_CAPTURE_FAILED } from './capture-outcomes.sql';
import type { PaymentErrorColumns } from './charge-outcomes.repository';
import { feeTermsOfRow } from './fee-terms';

/** A capture waiting for the processor, with its charge. */
export interface PendingCapture {
  id: string;
  chargeId: string;
  /** minor units */
  amount: bigint;
  currency: string;
  chargeStatus: ChargeStatus;
  mode: ProcessingMode;
  processorReference: string | null;
  /** the account that took the charge (decisions 0055, 0056); null: its mode's default processor */
  processorAccountId: string | null;
  /** the charge's fee terms; null on charges older than fees */
  feeTerms: FeeTerms | null;
}

/**
 * The processor's outcomes of captures: what charge-service's capture_charge reads and records.
 * Like a charge's outcome, each is one conditional statement that moves the capture only from the
 * status it was read in (and its charge, with the charge's event, when it was captured), so a worker
 * that lost a race writes nothing. The request that creates a capture is CapturesRepository's; the
 * statements are capture-outcomes.sql.ts.
 */
@Injectable()
export class CaptureOutcomesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The charge's capture while it is pending (one capture per charge), with the charge's state. */
  async findPendingCapture(chargeId: string): Promise<PendingCapture | null> {
    const row = (await this.prisma.run(FIND_PENDING_CAPTURE, { chargeId }))[0];
    return row
      ? {
          id: row.id,
          chargeId: row.charge_id,
          amount: row.amount,
          currency: row.currency,
          chargeStatus: row.charge_status,
          mode: row.mode,
          processorReference: row.processor_reference,
          processorAccountId: row.processor_account_id,
          feeTerms: feeTermsOfRow(row),
        }
      : null;
  }

  /**
   * The processor captured: the capture moves (`moves.capture`: pending → successful) and its
   * charge (`moves.charge`: authorized → successful) with charged_amount = what was captured and
   * `feeAmount` its fee, plus the charge's event, in one statement. False when the capture was no
   * longer pending.
   */
  async recordCaptured(
    captureId: string,
    capturedAmount: bigint,
    feeAmount: bigint | null,
    moves: { capture: CaptureTransition; charge: ChargeTransition },
    causeEventId: string | null = null,
  ): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_CAPTURED, {
      captureId,
      capturedAmount,
      feeAmount,
      captureFrom: moves.capture.from,
      captureTo: moves.capture.to,
      chargeFrom: moves.charge.from,
      chargeTo: moves.charge.to,
      event: moves.charge.event,
      causeEventId,
    });
    return rows[0]?.captured ?? false;
  }

  /**
   * The processor refused the capture: the capture moves (`transition`: pending → failed) with the
   * error; the charge stays as it is. False when the capture was no longer pending.
   */
  async recordCaptureFailed(
    captureId: string,
    transition: CaptureTransition,
    error: PaymentErrorColumns,
  ): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_CAPTURE_FAILED, {
      captureId,
      from: transition.from,
      to: transition.to,
      errorCode: error.code,
      errorMessage: error.message,
      errorDetail: error.detail,
    });
    return rows.length > 0;
  }
}
