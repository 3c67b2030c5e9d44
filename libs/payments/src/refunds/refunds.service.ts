import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { ChargesRepository, RefundsRepository, type AccessScope, type Refund } from '@kessai/db';
import { BusinessRuleError, NotFoundError, ValidationError, parsePageRequest, toPage } from '@kessai/domain';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { getChargeSchema } from '../charges/charge.schemas';
import type { RequestContext } from '../charges/charges.service';
import { readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { presentRefund } from '@kessai/presenters';
import { createRefundSchema, updateRefundSchema } from './refund.schemas';

const uuid = z.string().uuid();
const NOT_REFUNDABLE_PAYMENT_TYPES: readonly string[] = ['bank_transfer', 'konbini'];

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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(
    principal: Principal,
    storeId: string,
    chargeId: string,
    body: unknown,
    context: RequestContext,
  ) {
    const scope = scopeOf(principal, storeId, chargeId);
    const request = parseInput(createRefundSchema, body);
    // money received by bank transfer or at a konbini is not returned through the processor
    // (api-reference §5.4): the merchant returns it to the consumer directly
    const charge = await this.charges.findIssuerTokens(scope, chargeId);
    if (charge && NOT_REFUNDABLE_PAYMENT_TYPES.includes(charge.paymentType)) {
      throw new BusinessRuleError('REFUND_NOT_ALLOWED', [
        { field: 'charge_id', reason: 'REFUND_NOT_ALLOWED' },
      ]);
    }
    const result = await this.refunds.request({
      id: randomUUID(),
      merchantId: scope.merchantId,
      storeId,
      chargeId,
      amount: BigInt(request.amount),
      currency: request.currency,
      reason: request.reason ?? null,
      message: request.message ?? null,
      metadata: request.metadata ?? {},
      correlationId: context.correlationId,
    });
    switch (result.outcome) {
      case 'created':
        return presentRefund(result.refund);
      case 'charge_not_found':
        throw new NotFoundError('charge');
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
    }
  }

  /** With `polling=true` a pending refund is re-read until it ends, at most CHARGE_POLLING_MAX_WAIT_MS. */
  async get(
    principal: Principal,
    storeId: string,
    chargeId: string,
    id: string,
    query: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    const { polling } = parseInput(getChargeSchema, query);
    const scope = scopeOf(principal, storeId, chargeId);
    const refund = await readPolling(
      () => this.findVisible(scope, chargeId, id),
      () => this.refunds.findStatus(id),
      { polling, maxWaitMs: this.config.CHARGE_POLLING_MAX_WAIT_MS, signal },
    );
    return presentRefund(refund);
  }

  async list(principal: Principal, storeId: string, chargeId: string, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const scope = scopeOf(principal, storeId, chargeId);
    if (!(await this.charges.findInScope(scope, chargeId))) throw new NotFoundError('charge');
    const rows = await this.refunds.list(scope, chargeId, page);
    const result = toPage(rows, page.limit, presentRefund);
    if (page.cursor !== null) return result;
    return { ...result, total_hits: await this.refunds.count(scope, chargeId) };
  }

  /** PATCH: reason, message and metadata; `status` is accepted only unchanged. */
  async update(principal: Principal, storeId: string, chargeId: string, id: string, body: unknown) {
    const scope = scopeOf(principal, storeId, chargeId);
    const refund = await this.findVisible(scope, chargeId, id);
    const request = parseInput(updateRefundSchema, body);
    if (request.status !== undefined && request.status !== refund.status) {
      throw ValidationError.field('status', 'NOT_ALLOWED');
    }
    const changes = {
      ...(request.reason !== undefined ? { reason: request.reason } : {}),
      ...(request.message !== undefined ? { message: request.message } : {}),
      ...(request.metadata !== undefined ? { metadata: request.metadata } : {}),
    };
    if (Object.keys(changes).length === 0) return presentRefund(refund);
    const updated = await this.refunds.update(scope, chargeId, id, changes);
    if (!updated) throw new NotFoundError('refund');
    return presentRefund(updated);
  }

  private async findVisible(scope: AccessScope, chargeId: string, id: string): Promise<Refund> {
    const refund = uuid.safeParse(id).success ? await this.refunds.findInScope(scope, chargeId, id) : null;
    if (!refund) throw new NotFoundError('refund');
    return refund;
  }
}

/**
 * The path's store, which a store token must own, as the scope; a malformed store or charge id is
 * the same 404 as an unknown one.
 */
export function scopeOf(
  principal: Principal,
  storeId: string,
  chargeId: string,
): AccessScope & { storeId: string } {
  if (!uuid.safeParse(storeId).success || !uuid.safeParse(chargeId).success)
    throw new NotFoundError('charge');
  if (principal.storeId !== null && principal.storeId !== storeId) throw new NotFoundError('charge');
  return { merchantId: principal.merchantId, storeId };
}
