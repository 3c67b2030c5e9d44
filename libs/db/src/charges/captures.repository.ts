import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CAPTURABLE_CHARGE_STATUS } from '@kessai/domain';
import type { Capture, CaptureStatus, ChargeStatus } from '../generated/prisma/client';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
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
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /**
   * Inserts a pending capture and its capture_requested command (payload `{charge_id, capture_id}`)
   * in one statement (REQUEST_CAPTURE), only while the charge is capturable (the charge machine's
   * CAPTURABLE_CHARGE_STATUS, authorized) and has no capture — or only a failed one (the processor
   * refused it, nothing was captured), which is replaced under a new id. Used by POST .../capture
   * and by charge-service for `capture_at`. With `audit` (a console write), the statement and the
   * audit row of a created capture share one transaction (the row's target: the capture).
   */
  async requestCapture(
    request: CaptureRequest,
    options: { audit?: AuditEntry } = {},
  ): Promise<RequestCaptureResult> {
    const captureId = randomUUID();
    const params = {
      chargeId: request.chargeId,
      captureId,
      amount: request.amount,
      currency: request.currency,
      correlationId: request.correlationId ?? null,
    };
    const audit = options.audit;
    const rows = audit
      ? await this.prisma.inTransaction(async (client) => {
          const result = await this.prisma.run(REQUEST_CAPTURE, params, { db: client });
          if (result[0]?.created) await this.audit.record({ ...audit, targetId: captureId }, client);
          return result;
        })
      : await this.prisma.run(REQUEST_CAPTURE, params);
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
