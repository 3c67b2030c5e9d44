import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  ChargesRepository,
  RefundsRepository,
  type AccessScope,
  type AuditEntry,
  type Refund,
} from '@kessai/db';
import { BusinessRuleError, isUuid, NotFoundError, ValidationError, type PageRequest } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import type { ChargeScope } from '../actor';
import { resubmitted } from '../resubmitted';
import type { RefundChanges, RefundInput } from './refund-inputs';

/**
 * Refunds of successful charges (api-reference §5.4, docs/refunds-and-cancels.md): accept one
 * (pending, its amount reserved on the charge and its refund_requested command in one statement),
 * read it (optionally holding the answer while it is pending), list, update. refund-cancel-service
 * carries it out at the processor.
 */
@Injectable()
export class RefundsService {
  constructor(
    private readonly refunds: RefundsRepository,
    private readonly charges: ChargesRepository,
  ) {}

  /**
   * Accepts a refund of the scope's charge `chargeId`, within what is left of it to refund.
   * `options.id`: the refund's id, chosen by a front end that makes a resubmitted form a no-op (the
   * second insert of one id is refused by its primary key); `options.audit`: the console's audit
   * row, written in the refund's transaction.
   */
  async create(
    scope: ChargeScope,
    chargeId: string,
    request: RefundInput,
    correlation: Correlation,
    options: { id?: string; audit?: AuditEntry } = {},
  ): Promise<Refund> {
    const storeId = scope.storeId;
    // one statement decides (REQUEST_REFUND): the charge in the scope, its payment type, status,
    // currency and what is left of it to refund
    const result = await this.refunds.request(
      {
        id: options.id ?? randomUUID(),
        merchantId: scope.merchantId,
        storeId,
        chargeId,
        amount: BigInt(request.amount),
        currency: request.currency,
        reason: request.reason ?? null,
        message: request.message ?? null,
        metadata: request.metadata ?? {},
        correlationId: correlation.correlationId,
      },
      { audit: options.audit },
    );
    switch (result.outcome) {
      case 'created':
        return result.refund;
      case 'charge_not_found':
        throw new NotFoundError('charge');
      // money received by bank transfer or at a konbini is not returned through the processor
      // (api-reference §5.4): the merchant returns it to the consumer directly
      case 'payment_type_not_refundable':
        throw new BusinessRuleError('REFUND_NOT_ALLOWED', [
          { field: 'charge_id', reason: 'REFUND_NOT_ALLOWED' },
        ]);
      case 'not_refundable':
        throw new BusinessRuleError('CANNOT_REFUND_UNSUCCESSFUL_CHARGE');
      case 'currency_mismatch':
        throw new BusinessRuleError('CURRENCY_MUST_MATCH_CHARGE', [
          { field: 'currency', reason: 'CURRENCY_MUST_MATCH_CHARGE' },
        ]);
      case 'exceeds_charge':
        throw new BusinessRuleError('REFUND_NOT_WITHIN_BOUNDS', [
          { field: 'amount', reason: 'REFUND_NOT_WITHIN_BOUNDS' },
        ]);
      case 'id_taken':
        return resubmitted(await this.refunds.findInScope(scope, chargeId, options.id ?? ''));
    }
  }

  /** A refund of the scope's charge; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, chargeId: string, id: string): Promise<Refund> {
    return this.findVisible(scope, chargeId, id);
  }

  /** A refund's status alone (a polling read), or null when there is no such refund. */
  status(id: string): Promise<string | null> {
    return this.refunds.findStatus(id);
  }

  /** A page of the charge's refunds, with the total count on a first page. */
  async list(
    scope: AccessScope,
    chargeId: string,
    page: PageRequest,
  ): Promise<{ rows: Refund[]; totalHits: number | null }> {
    if (!(await this.charges.findInScope(scope, chargeId))) throw new NotFoundError('charge');
    const rows = await this.refunds.list(scope, chargeId, page);
    if (page.cursor !== null) return { rows, totalHits: null };
    return { rows, totalHits: await this.refunds.count(scope, chargeId) };
  }

  /** PATCH: reason, message and metadata; `status` is accepted only unchanged. */
  async update(
    scope: AccessScope,
    chargeId: string,
    refund: Refund,
    request: RefundChanges,
  ): Promise<Refund> {
    const id = refund.id;
    if (request.status !== undefined && request.status !== refund.status) {
      throw ValidationError.field('status', 'NOT_ALLOWED');
    }
    const changes = {
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      ...(request.message !== undefined ? { message: request.message } : {}),
      ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    };
    if (Object.keys(changes).length === 0) return refund;
    const updated = await this.refunds.update(scope, chargeId, id, changes);
    if (!updated) throw new NotFoundError('refund');
    return updated;
  }

  private async findVisible(scope: AccessScope, chargeId: string, id: string): Promise<Refund> {
    const refund = isUuid(id) ? await this.refunds.findInScope(scope, chargeId, id) : null;
    if (!refund) throw new NotFoundError('refund');
    return refund;
  }
}
