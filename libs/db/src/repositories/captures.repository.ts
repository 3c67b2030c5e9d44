import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CAPTURE_REQUESTED } from '@kessai/contracts';
import type { Capture, CaptureStatus, ChargeStatus, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

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
  /** the charge is not `authorized` (any more) */
  | { outcome: 'not_authorized'; status: ChargeStatus; captureStatus: CaptureStatus | null }
  | { outcome: 'charge_not_found' };

interface RequestCaptureRow {
  status: ChargeStatus;
  capture_status: CaptureStatus | null;
  had_capture: boolean;
  created: boolean;
}

/** Captures of authorized charges: one per charge (unique charge_id). */
@Injectable()
export class CapturesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Inserts a pending capture and its capture_requested command (payload `{charge_id, capture_id}`)
   * in one statement, only while the charge is `authorized` and has no capture — or only a failed
   * one (the processor refused it, nothing was captured): that row is replaced under a new id, which
   * is the processor's idempotency key, so the new attempt is a new request. The charge row is
   * locked (FOR UPDATE) so the status seen is the latest, not a snapshot racing charge-service.
   * Used by POST .../capture and by charge-service for `capture_at`; pass `db` to join a transaction.
   */
  async requestCapture(
    request: CaptureRequest,
    db: Prisma.TransactionClient = this.prisma,
  ): Promise<RequestCaptureResult> {
    const captureId = randomUUID();
    const payload = JSON.stringify({ charge_id: request.chargeId, capture_id: captureId });
    const rows = await db.$queryRaw<RequestCaptureRow[]>`
      WITH target AS (
        SELECT id, merchant_id, store_id, status, capture_status,
               EXISTS (SELECT 1 FROM captures WHERE charge_id = charges.id AND status <> 'failed') AS had_capture
          FROM charges
         WHERE id = ${request.chargeId}::uuid
           FOR UPDATE
      ),
      created AS (
        INSERT INTO captures (id, charge_id, amount, currency)
        SELECT ${captureId}::uuid, id, ${request.amount}::bigint, ${request.currency}
          FROM target
         WHERE status = 'authorized' AND NOT had_capture
        ON CONFLICT (charge_id) DO UPDATE
           SET id = EXCLUDED.id, amount = EXCLUDED.amount, currency = EXCLUDED.currency, status = 'pending',
               error_code = NULL, error_message = NULL, error_detail = NULL, updated_on = now()
         WHERE captures.status = 'failed'
        RETURNING id
      ),
      event AS (
        INSERT INTO outbox_events (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
        SELECT merchant_id, store_id, 'charge', id, ${CAPTURE_REQUESTED}, ${payload}::jsonb, ${request.correlationId ?? null}
          FROM target
         WHERE EXISTS (SELECT 1 FROM created)
      )
      SELECT status, capture_status, had_capture, EXISTS (SELECT 1 FROM created) AS created FROM target`;
    const row = rows[0];
    if (!row) return { outcome: 'charge_not_found' };
    if (row.created) return { outcome: 'created', captureId };
    if (row.had_capture || row.status === 'authorized') return { outcome: 'already_captured' };
    return { outcome: 'not_authorized', status: row.status, captureStatus: row.capture_status };
  }

  findByCharge(chargeId: string): Promise<Capture | null> {
    return this.prisma.capture.findUnique({ where: { chargeId } });
  }
}
