import { Injectable } from '@nestjs/common';
import { CHARGE_FINISHED, CHARGE_UPDATED } from '@kessai/contracts';
import { Prisma } from '../generated/prisma/client';
import type { ChargeStatus, PaymentType, ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';

/** A pending charge with what its authorization needs, read in one query. */
export interface PendingCharge {
  id: string;
  mode: ProcessingMode;
  amount: number;
  currency: string;
  capture: boolean;
  descriptor: string | null;
  /** the request's three_ds object {mode, redirect_endpoint, redirect_id} */
  threeDs: { mode?: string; redirect_endpoint?: string | null } | null;
  /** the request's redirect object {endpoint} */
  redirectEndpoint: string | null;
  tokenId: string;
  paymentType: PaymentType;
  /** card tokens: the card fields stored on the token (never the number) */
  card: { cardholder: string; exp_month: number; exp_year: number } | null;
  /** online tokens */
  brand: string | null;
  callMethod: string | null;
  /** qr_scan tokens */
  scannedQr: string | null;
  /** card tokens: the encrypted PAN */
  vault: { keyId: string; iv: Uint8Array; ciphertext: Uint8Array; authTag: Uint8Array } | null;
}

/** A charge whose fate the processor knows better than we do (awaiting, or pending too long). */
export interface ChargeToReconcile {
  id: string;
  status: ChargeStatus;
  mode: ProcessingMode;
  paymentType: PaymentType;
  tokenId: string;
  processorReference: string | null;
  expiresOn: Date | null;
}

/** A capture waiting for the processor, with its charge. */
export interface PendingCapture {
  id: string;
  chargeId: string;
  amount: number;
  currency: string;
  chargeStatus: ChargeStatus;
  mode: ProcessingMode;
  processorReference: string | null;
}

export interface PaymentErrorColumns {
  code: number;
  message: string;
  detail: string | null;
}

/** What a transition writes; columns left undefined keep their value. */
export interface ChargeOutcome {
  status: ChargeStatus;
  error?: PaymentErrorColumns;
  processorReference?: string;
  chargedAmount?: number;
  captureStatus?: 'authorized' | 'captured' | 'not_authorized';
  /** GET .../issuer_token: {issuer_token, call_method, payload, payment_type} */
  issuerToken?: Record<string, unknown>;
  /** GET .../three_ds/issuer_token: ThreeDsIssuerToken */
  threeDsIssuerToken?: Record<string, unknown>;
  expiresOn?: Date;
}

/** One charge's outcome for `recordMany`. */
export interface RecordedOutcome {
  chargeId: string;
  outcome: ChargeOutcome;
  /** the outbox event that led here, whose correlation id the new event carries */
  causeEventId: string | null;
}

const FINAL: readonly ChargeStatus[] = ['successful', 'failed', 'error', 'canceled'];

/** charge_finished for a final status, charge_updated for any other (docs/charges.md). */
export function chargeEventOf(status: ChargeStatus): string {
  return FINAL.includes(status) ? CHARGE_FINISHED : CHARGE_UPDATED;
}

/**
 * charge-service's writes: each outcome is one conditional statement that moves the charge only
 * from the status it was read in and, in the same statement (so the same transaction), appends the
 * outbox event when and only when the row moved. A worker that lost a race writes nothing. Raw SQL
 * because this is the hot path: one round trip to read, one to record.
 */
@Injectable()
export class ChargeOutcomesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The charge if it is still pending, with its token's payment data; null otherwise. */
  async findPending(chargeId: string): Promise<PendingCharge | null> {
    return (await this.findPendingMany([chargeId]))[0] ?? null;
  }

  /** Those of the charges that are still pending, with their tokens' payment data, in one query. */
  async findPendingMany(chargeIds: readonly string[]): Promise<PendingCharge[]> {
    const rows = await this.prisma.sql<PendingChargeRow>(
      Prisma.sql`
      SELECT c.id::text AS id, c.mode::text AS mode, c.requested_amount AS amount,
             c.requested_currency AS currency, c.capture, c.descriptor, c.three_ds,
             c.redirect->>'endpoint' AS redirect_endpoint,
             t.id::text AS token_id, t.payment_type::text AS payment_type,
             t.data->'card'->>'cardholder' AS cardholder,
             (t.data->'card'->>'exp_month')::int AS exp_month,
             (t.data->'card'->>'exp_year')::int AS exp_year,
             t.data->>'brand' AS brand, t.data->>'call_method' AS call_method,
             t.data->>'scanned_qr' AS scanned_qr,
             v.key_id, v.iv, v.ciphertext, v.auth_tag
        FROM charges c
        JOIN transaction_tokens t ON t.id = c.transaction_token_id
        LEFT JOIN card_vault v ON v.transaction_token_id = t.id
       WHERE c.id = ANY(${chargeIds}::uuid[]) AND c.status = 'pending'`,
      { prepareAs: 'charge_outcomes_find_pending' },
    );
    return rows.map(pendingChargeOf);
  }

  /**
   * Moves the charge from one of `from` to the outcome and appends its event, in one statement.
   * False when the charge was no longer in `from` (someone else recorded it): then nothing is written.
   * `causeEventId`: the outbox event that led here, whose correlation id the new event carries.
   */
  async record(
    chargeId: string,
    from: readonly ChargeStatus[],
    outcome: ChargeOutcome,
    causeEventId: string | null = null,
  ): Promise<boolean> {
    const moved = await this.recordMany(from, [{ chargeId, outcome, causeEventId }]);
    return moved.has(chargeId);
  }

  /**
   * `record` for several charges in one statement (atomic as a whole): each moves from one of
   * `from` to its outcome, with its event. Resolves to the ids of the charges that moved; the others
   * were no longer in `from` and nothing was written for them. A charge listed twice is recorded
   * with its first outcome.
   */
  async recordMany(
    from: readonly ChargeStatus[],
    outcomes: readonly RecordedOutcome[],
  ): Promise<Set<string>> {
    const seen = new Set<string>();
    const input = [];
    for (const { chargeId, outcome, causeEventId } of outcomes) {
      if (seen.has(chargeId)) continue;
      seen.add(chargeId);
      input.push({
        id: chargeId,
        status: outcome.status,
        event_type: chargeEventOf(outcome.status),
        error_code: outcome.error?.code ?? null,
        error_message: outcome.error?.message ?? null,
        error_detail: outcome.error?.detail ?? null,
        processor_reference: outcome.processorReference ?? null,
        charged_amount: outcome.chargedAmount ?? null,
        capture_status: outcome.captureStatus ?? null,
        issuer_token: outcome.issuerToken ?? null,
        three_ds_issuer_token: outcome.threeDsIssuerToken ?? null,
        expires_on: outcome.expiresOn?.toISOString() ?? null,
        cause_event_id: causeEventId,
      });
    }
    if (input.length === 0) return new Set();
    // rows in id order, so that two statements touching the same charges lock them in one order
    input.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const rows = await this.prisma.sql<{ id: string }>(
      Prisma.sql`
      WITH outcome AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(input)}::jsonb) AS o(
          id uuid, status charge_status, event_type text, error_code int, error_message text,
          error_detail text, processor_reference text, charged_amount bigint,
          capture_status capture_status, issuer_token jsonb, three_ds_issuer_token jsonb,
          expires_on timestamptz, cause_event_id uuid)
      ), changed AS (
        UPDATE charges c
           SET status = o.status,
               error_code = o.error_code,
               error_message = o.error_message,
               error_detail = o.error_detail,
               processor_reference = COALESCE(o.processor_reference, c.processor_reference),
               charged_amount = COALESCE(o.charged_amount, c.charged_amount),
               charged_currency = CASE WHEN o.charged_amount IS NULL
                                       THEN c.charged_currency ELSE c.requested_currency END,
               capture_status = COALESCE(o.capture_status, c.capture_status),
               issuer_token = COALESCE(o.issuer_token, c.issuer_token),
               three_ds_issuer_token = COALESCE(o.three_ds_issuer_token, c.three_ds_issuer_token),
               expires_on = COALESCE(o.expires_on, c.expires_on),
               updated_on = now()
          FROM outcome o
         -- the ids again as an array: the planner then reaches the rows by primary key, never through
         -- the status index, whose entries of old pending versions pile up between vacuums
         WHERE c.id = ANY(${input.map((row) => row.id)}::uuid[])
           AND c.id = o.id AND c.status = ANY(${from}::charge_status[])
        RETURNING c.id, c.merchant_id, c.store_id, c.status, o.event_type, o.cause_event_id
      ), event AS (
        INSERT INTO outbox_events
               (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
        SELECT merchant_id, store_id, 'charge', id, event_type,
               jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text),
               (SELECT correlation_id FROM outbox_events e WHERE e.id = changed.cause_event_id)
          FROM changed
      )
      SELECT id::text AS id FROM changed`,
      { prepareAs: 'charge_outcomes_record' },
    );
    return new Set(rows.map((row) => row.id));
  }

  /** An awaiting (or pending) charge as reconciliation needs it; null when it is neither. */
  async findToReconcile(chargeId: string): Promise<ChargeToReconcile | null> {
    const rows = await this.prisma.$queryRaw<ChargeToReconcileRow[]>`
      SELECT c.id::text AS id, c.status::text AS status, c.mode::text AS mode,
             t.payment_type::text AS payment_type, t.id::text AS token_id, c.processor_reference,
             c.expires_on
        FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
       WHERE c.id = ${chargeId}::uuid AND c.status IN ('awaiting', 'pending')`;
    const row = rows[0];
    return row
      ? {
          id: row.id,
          status: row.status,
          mode: row.mode,
          paymentType: row.payment_type,
          tokenId: row.token_id,
          processorReference: row.processor_reference,
          expiresOn: row.expires_on,
        }
      : null;
  }

  /** The charge's capture while it is pending (one capture per charge), with the charge's state. */
  async findPendingCapture(chargeId: string): Promise<PendingCapture | null> {
    const rows = await this.prisma.$queryRaw<PendingCaptureRow[]>`
      SELECT k.id::text AS id, k.charge_id::text AS charge_id, k.amount, k.currency,
             c.status::text AS charge_status, c.mode::text AS mode, c.processor_reference
        FROM captures k JOIN charges c ON c.id = k.charge_id
       WHERE k.charge_id = ${chargeId}::uuid AND k.status = 'pending'`;
    const row = rows[0];
    return row
      ? {
          id: row.id,
          chargeId: row.charge_id,
          amount: Number(row.amount),
          currency: row.currency,
          chargeStatus: row.charge_status,
          mode: row.mode,
          processorReference: row.processor_reference,
        }
      : null;
  }

  /**
   * The processor captured: the capture succeeds and its authorized charge becomes successful
   * with charged_amount = what was captured, plus charge_finished, in one statement. False when
   * the capture was no longer pending.
   */
  async recordCaptured(
    captureId: string,
    capturedAmount: number,
    causeEventId: string | null = null,
  ): Promise<boolean> {
    const rows = await this.prisma.$queryRaw<{ captured: boolean }[]>`
      WITH capture AS (
        UPDATE captures SET status = 'successful', updated_on = now()
         WHERE id = ${captureId}::uuid AND status = 'pending'
        RETURNING charge_id, currency
      ), changed AS (
        UPDATE charges c
           SET status = 'successful', capture_status = 'captured',
               charged_amount = ${capturedAmount}::bigint, charged_currency = capture.currency,
               updated_on = now()
          FROM capture
         WHERE c.id = capture.charge_id AND c.status = 'authorized'
        RETURNING c.id, c.merchant_id, c.store_id, c.status
      ), event AS (
        ${this.appendEvent(CHARGE_FINISHED, causeEventId)}
      )
      SELECT EXISTS (SELECT 1 FROM capture) AS captured`;
    return rows[0]?.captured ?? false;
  }

  /** The processor refused the capture: the capture fails, the charge stays authorized. */
  async recordCaptureFailed(captureId: string, error: PaymentErrorColumns): Promise<boolean> {
    const count = await this.prisma.$executeRaw`
      UPDATE captures
         SET status = 'failed', error_code = ${error.code}::int, error_message = ${error.message},
             error_detail = ${error.detail}::text, updated_on = now()
       WHERE id = ${captureId}::uuid AND status = 'pending'`;
    return count > 0;
  }

  /** Authorized charges whose capture_at has come and that have no capture yet. */
  findDueCaptures(limit: number): Promise<{ id: string; amount: bigint; currency: string }[]> {
    return this.prisma.$queryRaw`
      SELECT c.id::text AS id, c.requested_amount AS amount, c.requested_currency AS currency
        FROM charges c
       WHERE c.status = 'authorized' AND c.capture_at <= now()
         AND NOT EXISTS (SELECT 1 FROM captures k WHERE k.charge_id = c.id)
       LIMIT ${limit}`;
  }

  /** Awaiting charges nobody completed in time. */
  async findExpiredAwaiting(limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM charges
       WHERE status = 'awaiting' AND expires_on <= now()
       LIMIT ${limit}`;
    return rows.map((row) => row.id);
  }

  /** Pending charges untouched for `seconds`: their job was lost or keeps failing. */
  async findStalePending(seconds: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM charges
       WHERE status = 'pending' AND updated_on < now() - make_interval(secs => ${seconds})
       LIMIT ${limit}`;
    return rows.map((row) => row.id);
  }

  /** Charges whose capture has been pending for `seconds`. */
  async findStaleCaptures(seconds: number, limit: number): Promise<string[]> {
    const rows = await this.prisma.$queryRaw<{ charge_id: string }[]>`
      SELECT charge_id::text AS charge_id FROM captures
       WHERE status = 'pending' AND updated_on < now() - make_interval(secs => ${seconds})
       LIMIT ${limit}`;
    return rows.map((row) => row.charge_id);
  }

  /** INSERT of the event of every row of the `changed` CTE (payload: charge_id, store_id, status). */
  private appendEvent(eventType: string, causeEventId: string | null): Prisma.Sql {
    return Prisma.sql`
      INSERT INTO outbox_events
             (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
      SELECT merchant_id, store_id, 'charge', id, ${eventType},
             jsonb_build_object('charge_id', id::text, 'store_id', store_id::text, 'status', status::text),
             (SELECT correlation_id FROM outbox_events WHERE id = ${causeEventId}::uuid)
        FROM changed
      RETURNING id::text AS id`;
  }
}

function pendingChargeOf(row: PendingChargeRow): PendingCharge {
  return {
    id: row.id,
    mode: row.mode,
    amount: Number(row.amount),
    currency: row.currency,
    capture: row.capture,
    descriptor: row.descriptor,
    threeDs: row.three_ds,
    redirectEndpoint: row.redirect_endpoint,
    tokenId: row.token_id,
    paymentType: row.payment_type,
    card:
      row.cardholder !== null && row.exp_month !== null && row.exp_year !== null
        ? { cardholder: row.cardholder, exp_month: row.exp_month, exp_year: row.exp_year }
        : null,
    brand: row.brand,
    callMethod: row.call_method,
    scannedQr: row.scanned_qr,
    vault:
      row.key_id && row.iv && row.ciphertext && row.auth_tag
        ? { keyId: row.key_id, iv: row.iv, ciphertext: row.ciphertext, authTag: row.auth_tag }
        : null,
  };
}

interface PendingChargeRow {
  id: string;
  mode: ProcessingMode;
  amount: string;
  currency: string;
  capture: boolean;
  descriptor: string | null;
  three_ds: PendingCharge['threeDs'];
  redirect_endpoint: string | null;
  token_id: string;
  payment_type: PaymentType;
  cardholder: string | null;
  exp_month: number | null;
  exp_year: number | null;
  brand: string | null;
  call_method: string | null;
  scanned_qr: string | null;
  key_id: string | null;
  iv: Uint8Array | null;
  ciphertext: Uint8Array | null;
  auth_tag: Uint8Array | null;
}

interface ChargeToReconcileRow {
  id: string;
  status: ChargeStatus;
  mode: ProcessingMode;
  payment_type: PaymentType;
  token_id: string;
  processor_reference: string | null;
  expires_on: Date | null;
}

interface PendingCaptureRow {
  id: string;
  charge_id: string;
  amount: bigint;
  currency: string;
  charge_status: ChargeStatus;
  mode: ProcessingMode;
  processor_reference: string | null;
}
