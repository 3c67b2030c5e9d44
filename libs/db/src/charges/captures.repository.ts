import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CAPTURABLE_CHARGE_STATUS } from '@kessai/domain';
import type { Capture, CaptureStatus, ChargeStatus } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import { REQUEST_CAPTURE } from './captures.sql';

export type { Capture };

export interface CaptureRequest {
  chargeId: string;
  /** minor units; the caller has checked it against the authorized amount */
  amount: bigint;
  currency: string;
  correlationId?: string | null;
}

export type RequestCaptureResult =
  /** the capture row (pending) and its capture_requested command were written */
  | { outcome: 'created'; captureId: string }
  /** the charge has a capture already (one per charge) */
  | { outcome: 'already_captured' }
  /** a cancel of the charge is running: of the two, the cancel was accepted first */
  | { outcome: 'cancel_pending' }
  /** the charge is not `authorized` (any more) */
  | { outcome: 'not_authorized'; status: ChargeStatus; captureStatus: CaptureStatus | null }
  | { outcome: 'charge_not_found' };

/** Captures of authorized charges: one per charge (unique charge_id). */
@Injectable()
export class CapturesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Inserts a pending capture and its capture_requested command (payload `{charge_id, capture_id}`)
   * in one statement (REQUEST_CAPTURE), only while the charge is capturable (the charge machine's
   * CAPTURABLE_CHARGE_STATUS, authorized) and has no capture — or only a failed one (the processor
   * refused it, nothing was captured), which is replaced under a new id. Used by POST .../capture
   * and by charge-service for `capture_at`.
   */
  async requestCapture(request: CaptureRequest): Promise<RequestCaptureResult> {
    const captureId = randomUUID();
    const rows = await this.prisma.run(REQUEST_CAPTURE, {
      chargeId: request.chargeId,
      captureId,
      amount: request.amount,
      currency: request.currency,
      correlationId: request.correlationId ?? null,
    });
    const row = rows[0];
    if (!row) return { outcome: 'charge_not_found' };
    if (row.created) return { outcome: 'created', captureId };
    if (row.cancel_pending && row.status === CAPTURABLE_CHARGE_STATUS) return { outcome: 'cancel_pending' };
    if (row.had_capture || row.status === CAPTURABLE_CHARGE_STATUS) return { outcome: 'already_captured' };
    return { outcome: 'not_authorized', status: row.status, captureStatus: row.capture_status };
  }

  findByCharge(chargeId: string): Promise<Capture | null> {
    return this.prisma.capture.findUnique({ where: { chargeId } });
  }
}
