import { Injectable } from '@nestjs/common';
import type { ChargeStatus, ChargeTransition, OperationTransition, PageRequest } from '@kessai/domain';
import type { Cancel, Prisma } from '../generated/prisma/client';
import { listPage } from '../keyset';
import type { AuditEntry } from '../audit/console-audit.repository';
import { ChargeOperationRepository } from './charge-operation.repository';
import { FIND_PENDING_CANCEL, RECORD_CANCEL_OUTCOME, REQUEST_CANCEL } from './refunds-cancels.sql';
import type { PaymentErrorColumns } from '../charges/charge-outcomes.repository';
import { scopeWhere, type AccessScope } from '../scope';

export type { Cancel };

export interface CancelRequest {
  id: string;
  merchantId: string;
  storeId: string;
  chargeId: string;
  metadata: Record<string, unknown>;
  correlationId: string | null;
}

export type RequestCancelResult =
  | { outcome: 'created'; cancel: Cancel }
  | { outcome: 'charge_not_found' }
  /** not cancellable now: its status, a capture or another cancel running, or nothing to void */
  | { outcome: 'not_cancellable'; status: ChargeStatus }
  /** a cancel of this id exists already (a front end's resubmitted form): nothing was written */
  | { outcome: 'id_taken' };

/** A pending cancel with its charge, as the void needs it. */
export interface PendingCancel {
  id: string;
  chargeId: string;
  mode: 'test' | 'live' | 'live_test';
  chargeStatus: ChargeStatus;
  processorReference: string | null;
  /** the processor account the charge was routed to; null: its mode's default */
  processorAccountId: string | null;
}

export interface CancelOutcome {
  transition: OperationTransition;
  /** the charge's move (→ canceled) when the cancel succeeded */
  charge: ChargeTransition | null;
  error?: PaymentErrorColumns | null;
}

/** Cancels of authorized or awaiting charges (docs/refunds-and-cancels.md). */
@Injectable()
export class CancelsRepository extends ChargeOperationRepository {
  /**
   * Marks the charge's pending operation and inserts the cancel (pending) with its cancel_requested
   * command, in one statement (REQUEST_CANCEL): a capture racing it cannot be accepted too. With
   * `audit` (a console write), the statement and the audit row of a created cancel share one
   * transaction.
   */
  async request(request: CancelRequest, options: { audit?: AuditEntry } = {}): Promise<RequestCancelResult> {
    const row = await this.runRequest('cancel', REQUEST_CANCEL, request, options.audit);
    if (row === 'id_taken') return { outcome: 'id_taken' };
    if (!row) return { outcome: 'charge_not_found' };
    if (!row.created) return { outcome: 'not_cancellable', status: row.status };
    const cancel = await this.prisma.cancel.findUniqueOrThrow({ where: { id: request.id } });
    return { outcome: 'created', cancel };
  }

  findInScope(scope: AccessScope, chargeId: string, id: string): Promise<Cancel | null> {
    return this.prisma.cancel.findFirst({ where: { id, chargeId, ...scopeWhere(scope) } });
  }

  async findStatus(id: string): Promise<Cancel['status'] | null> {
    const row = await this.prisma.cancel.findUnique({ where: { id }, select: { status: true } });
    return row?.status ?? null;
  }

  list(scope: AccessScope, chargeId: string, page: PageRequest): Promise<Cancel[]> {
    return listPage(page, { chargeId, ...scopeWhere(scope) } satisfies Prisma.CancelWhereInput, {
      findCursor: (where) => this.prisma.cancel.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.cancel.findMany(args),
    });
  }

  /** PATCH: metadata, replaced whole; null when the scope cannot see the cancel. */
  async updateMetadata(
    scope: AccessScope,
    chargeId: string,
    id: string,
    metadata: Prisma.InputJsonObject,
  ): Promise<Cancel | null> {
    const rows = await this.prisma.cancel.updateManyAndReturn({
      where: { id, chargeId, ...scopeWhere(scope) },
      data: { metadata },
    });
    return rows[0] ?? null;
  }

  async findPending(id: string): Promise<PendingCancel | null> {
    const row = (await this.prisma.run(FIND_PENDING_CANCEL, { cancelId: id }))[0];
    return row
      ? {
          id: row.id,
          chargeId: row.charge_id,
          mode: row.mode,
          chargeStatus: row.charge_status,
          processorReference: row.processor_reference,
          processorAccountId: row.processor_account_id,
        }
      : null;
  }

  /**
   * Ends a pending cancel with its cancel_finished event, frees the charge's pending operation and,
   * when the cancel succeeded, moves the charge to canceled with charge_finished: one statement
   * (RECORD_CANCEL_OUTCOME). `recorded`: the cancel was still `transition.from`.
   */
  async record(
    id: string,
    outcome: CancelOutcome,
    causeEventId: string | null,
  ): Promise<{ recorded: boolean; chargeMoved: boolean }> {
    const rows = await this.prisma.run(RECORD_CANCEL_OUTCOME, {
      cancelId: id,
      from: outcome.transition.from,
      to: outcome.transition.to,
      chargeTo: outcome.charge?.to ?? null,
      chargeEvent: outcome.charge?.event ?? null,
      errorCode: outcome.error?.code ?? null,
      errorMessage: outcome.error?.message ?? null,
      errorDetail: outcome.error?.detail ?? null,
      causeEventId,
    });
    return { recorded: rows[0]?.recorded ?? false, chargeMoved: rows[0]?.charge_moved ?? false };
  }
}
