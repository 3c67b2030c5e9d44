import { Injectable } from '@nestjs/common';
import {
  isRefundablePaymentType,
  refundKeepsReservation,
  type OperationTransition,
  type PageRequest,
  type ChargeStatus,
} from '@kessai/domain';
import type { Prisma, Refund, RefundReason } from '../generated/prisma/client';
import { listPage } from '../keyset';
import {
  FIND_PENDING_REFUNDS,
  FIND_STALE_OPERATIONS,
  RECORD_REFUND_OUTCOMES,
  REDRIVE_DUE_REFUNDS,
  REDRIVE_REFUND,
  REQUEST_REFUND,
  type RefundOutcomeInput,
} from './refunds-cancels.sql';
import { ChargeOperationRepository } from './charge-operation.repository';
import type { PaymentErrorColumns } from '../charges/charge-outcomes.repository';
import type { AuditEntry } from '../audit/console-audit.repository';
import { scopeWhere, type AccessScope } from '../scope';

export type { Refund, RefundOutcomeInput, RefundReason };

export interface RefundRequest {
  id: string;
  merchantId: string;
  storeId: string;
  chargeId: string;
  /** minor units, > 0 */
  amount: bigint;
  currency: string;
  reason: RefundReason | null;
  message: string | null;
  metadata: Record<string, unknown>;
  correlationId: string | null;
}

export type RequestRefundResult =
  | { outcome: 'created'; refund: Refund }
  | { outcome: 'charge_not_found' }
  /** bank transfer and konbini: the merchant returns the money itself (api-reference §5.4) */
  | { outcome: 'payment_type_not_refundable'; paymentType: string }
  /** the charge is not successful: nothing to refund */
  | { outcome: 'not_refundable'; status: ChargeStatus }
  | { outcome: 'currency_mismatch'; chargedCurrency: string }
  /** the amount plus the refunds pending and successful would exceed charged_amount */
  | { outcome: 'exceeds_charge' }
  /** a refund of this id exists already (a front end's resubmitted form): nothing was written */
  | { outcome: 'id_taken' };

/** A pending refund with what its processor call needs. */
export interface PendingRefund {
  id: string;
  chargeId: string;
  mode: 'test' | 'live' | 'live_test';
  amount: bigint;
  currency: string;
  /** the charge's payment at the processor */
  processorReference: string | null;
  /** the processor account the charge was routed to; null: its mode's default */
  processorAccountId: string | null;
}

/** A refund sent to the processor again after `error`, and how many times that has now been done. */
export interface RefundRedrive {
  id: string;
  redrives: number;
}

export interface RefundOutcome {
  transition: OperationTransition;
  processorReference?: string | null;
  error?: PaymentErrorColumns | null;
}

/** One refund's outcome for `recordMany`. */
export interface RecordedRefundOutcome {
  refundId: string;
  /** the refund's charge: the input is ordered by it, so that statements lock charges in one order */
  chargeId: string;
  outcome: RefundOutcome;
  /** the outbox event that led here, whose correlation id refund_finished carries */
  causeEventId: string | null;
}

/** Refunds of successful charges (docs/refunds-and-cancels.md). */
@Injectable()
export class RefundsRepository extends ChargeOperationRepository {
  /**
   * Reserves the amount on the charge and inserts the refund (pending) with its refund_requested
   * command, in one statement (REQUEST_REFUND): atomic against any number of concurrent refunds.
   * The create is a `write`: an answer lost after sending is WriteOutcomeUnknownError. With `audit`
   * (a console write), the statement and the audit row of a created refund share one transaction,
   * whose lost COMMIT answer is WriteOutcomeUnknownError as well.
   */
  async request(request: RefundRequest, options: { audit?: AuditEntry } = {}): Promise<RequestRefundResult> {
    const row = await this.runRequest('refund', REQUEST_REFUND, request, options.audit);
    if (row === 'id_taken') return { outcome: 'id_taken' };
    if (!row) return { outcome: 'charge_not_found' };
    if (row.created && row.mode !== null && row.created_on !== null) {
      // the row as the statement inserted it: no second round trip to read it back
      const refund: Refund = {
        id: request.id,
        merchantId: request.merchantId,
        storeId: request.storeId,
        chargeId: request.chargeId,
        mode: row.mode,
        status: 'pending',
        amount: request.amount,
        currency: request.currency,
        reason: request.reason,
        message: request.message,
        processorReference: null,
        errorCode: null,
        errorMessage: null,
        errorDetail: null,
        metadata: request.metadata as Prisma.JsonValue,
        redrives: 0,
        ledgerId: null,
        createdOn: row.created_on,
        updatedOn: row.created_on,
      };
      return { outcome: 'created', refund };
    }
    if (!isRefundablePaymentType(row.payment_type))
      return { outcome: 'payment_type_not_refundable', paymentType: row.payment_type };
    if (row.status !== 'successful') return { outcome: 'not_refundable', status: row.status };
    if (row.charged_currency !== request.currency) {
      return { outcome: 'currency_mismatch', chargedCurrency: row.charged_currency ?? '' };
    }
    return { outcome: 'exceeds_charge' };
  }

  findInScope(scope: AccessScope, chargeId: string, id: string): Promise<Refund | null> {
    return this.prisma.refund.findFirst({ where: { id, chargeId, ...scopeWhere(scope) } });
  }

  /** Refunds in `error` (what an operator settles or re-drives), of one merchant when given, oldest first. */
  findInError(limit: number, merchantId?: string): Promise<Refund[]> {
    return this.prisma.refund.findMany({
      where: { status: 'error', ...(merchantId ? { merchantId } : {}) },
      orderBy: [{ updatedOn: 'asc' }, { id: 'asc' }],
      take: limit,
    });
  }

  async findStatus(id: string): Promise<Refund['status'] | null> {
    const row = await this.prisma.refund.findUnique({ where: { id }, select: { status: true } });
    return row?.status ?? null;
  }

  list(scope: AccessScope, chargeId: string, page: PageRequest): Promise<Refund[]> {
    return listPage(page, { chargeId, ...scopeWhere(scope) } satisfies Prisma.RefundWhereInput, {
      findCursor: (where) => this.prisma.refund.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.refund.findMany(args),
    });
  }

  count(scope: AccessScope, chargeId: string): Promise<number> {
    return this.prisma.refund.count({ where: { chargeId, ...scopeWhere(scope) } });
  }

  /** PATCH: reason, message and metadata; null when the scope cannot see the refund. */
  async update(
    scope: AccessScope,
    chargeId: string,
    id: string,
    changes: { reason?: RefundReason | null; message?: string | null; metadata?: Prisma.InputJsonObject },
  ): Promise<Refund | null> {
    const rows = await this.prisma.refund.updateManyAndReturn({
      where: { id, chargeId, ...scopeWhere(scope) },
      data: changes,
    });
    return rows[0] ?? null;
  }

  /**
   * Refunds and cancels pending for `seconds` or more (FIND_STALE_OPERATIONS): their job was lost
   * from Redis, and the sweeper queues them again. At most `limit` of each, oldest first.
   */
  findStaleOperations(seconds: number, limit: number): Promise<{ kind: 'refund' | 'cancel'; id: string }[]> {
    return this.prisma.run(FIND_STALE_OPERATIONS, { seconds, limit });
  }

  /**
   * The sweeper's re-drives (REDRIVE_DUE_REFUNDS): up to `limit` refunds in `error`, re-driven fewer
   * than `maxRedrives` times and due by `baseSeconds × 2^redrives`, made pending again with a new
   * refund_requested command each. Answers the ids re-driven and each one's count.
   */
  redriveDue(maxRedrives: number, baseSeconds: number, limit: number): Promise<RefundRedrive[]> {
    return this.prisma.run(REDRIVE_DUE_REFUNDS, { maxRedrives, baseSeconds, limit });
  }

  /** An operator's re-drive of one refund in `error` (REDRIVE_REFUND); null when it is not in `error`. */
  async redrive(id: string, correlationId: string | null): Promise<RefundRedrive | null> {
    return (await this.prisma.run(REDRIVE_REFUND, { refundId: id, correlationId }))[0] ?? null;
  }

  async findPending(id: string): Promise<PendingRefund | null> {
    return (await this.findPendingMany([id]))[0] ?? null;
  }

  /** Those of the refunds that are still pending, with what their processor calls need, in one query. */
  async findPendingMany(ids: readonly string[]): Promise<PendingRefund[]> {
    if (ids.length === 0) return [];
    const rows = await this.prisma.run(FIND_PENDING_REFUNDS, { ids });
    return rows.map((row) => ({
      id: row.id,
      chargeId: row.charge_id,
      mode: row.mode,
      amount: row.amount,
      currency: row.currency,
      processorReference: row.processor_reference,
      processorAccountId: row.processor_account_id,
    }));
  }

  /**
   * Ends a pending refund with its refund_finished event and settles its amount on the charge, in
   * one statement (RECORD_REFUND_OUTCOMES); false when it was no longer `transition.from`.
   */
  async record(
    id: string,
    chargeId: string,
    outcome: RefundOutcome,
    causeEventId: string | null,
  ): Promise<boolean> {
    return (await this.recordMany([{ refundId: id, chargeId, outcome, causeEventId }])).has(id);
  }

  /**
   * `record` for several refunds in one statement (atomic as a whole), each from its transition's
   * `from`, which must be the same for all. Resolves to the ids of the refunds that moved; the
   * others were no longer `from` and nothing was written for them. A refund listed twice is
   * recorded with its first outcome.
   */
  async recordMany(outcomes: readonly RecordedRefundOutcome[]): Promise<Set<string>> {
    const first = outcomes[0];
    if (!first) return new Set();
    const from = first.outcome.transition.from;
    const seen = new Set<string>();
    const input: (RefundOutcomeInput & { charge: string })[] = [];
    for (const { refundId, chargeId, outcome, causeEventId } of outcomes) {
      if (outcome.transition.from !== from)
        throw new Error(`refund outcomes from ${from} and ${outcome.transition.from} in one statement`);
      if (seen.has(refundId)) continue;
      seen.add(refundId);
      input.push({
        charge: chargeId,
        id: refundId,
        status: outcome.transition.to,
        releases: !refundKeepsReservation(outcome.transition.to),
        processor_reference: outcome.processorReference ?? null,
        error_code: outcome.error?.code ?? null,
        error_message: outcome.error?.message ?? null,
        error_detail: outcome.error?.detail ?? null,
        cause_event_id: causeEventId,
      });
    }
    // by charge, then refund: two statements settling the same charges lock them in one order
    input.sort((a, b) => compare(a.charge, b.charge) || compare(a.id, b.id));
    const rows = await this.prisma.run(RECORD_REFUND_OUTCOMES, {
      outcomes: input.map(({ charge: _charge, ...row }) => row),
      ids: input.map((row) => row.id),
      from,
    });
    return new Set(rows.map((row) => row.id));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
