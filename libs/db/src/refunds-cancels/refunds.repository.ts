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
  FIND_PENDING_REFUND,
  FIND_STALE_OPERATIONS,
  RECORD_REFUND_OUTCOME,
  REDRIVE_DUE_REFUNDS,
  REDRIVE_REFUND,
  REQUEST_REFUND,
} from './refunds-cancels.sql';
import { ChargeOperationRepository } from './charge-operation.repository';
import type { PaymentErrorColumns } from '../charges/charge-outcomes.repository';
import type { AuditEntry } from '../audit/console-audit.repository';
import { scopeWhere, type AccessScope } from '../scope';

export type { Refund, RefundReason };

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
    const row = (await this.prisma.run(FIND_PENDING_REFUND, { refundId: id }))[0];
    return row
      ? {
          id: row.id,
          chargeId: row.charge_id,
          mode: row.mode,
          amount: row.amount,
          currency: row.currency,
          processorReference: row.processor_reference,
          processorAccountId: row.processor_account_id,
        }
      : null;
  }

  /**
   * Ends a pending refund with its refund_finished event and settles its amount on the charge, in
   * one statement (RECORD_REFUND_OUTCOME); false when it was no longer `transition.from`.
   */
  async record(id: string, outcome: RefundOutcome, causeEventId: string | null): Promise<boolean> {
    const rows = await this.prisma.run(RECORD_REFUND_OUTCOME, {
      refundId: id,
      from: outcome.transition.from,
      to: outcome.transition.to,
      releases: !refundKeepsReservation(outcome.transition.to),
      processorReference: outcome.processorReference ?? null,
      errorCode: outcome.error?.code ?? null,
      errorMessage: outcome.error?.message ?? null,
      errorDetail: outcome.error?.detail ?? null,
      causeEventId,
    });
    return rows[0]?.recorded ?? false;
  }
}
