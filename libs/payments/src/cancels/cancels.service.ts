import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CancelsRepository, ChargesRepository, type AccessScope, type Cancel } from '@kessai/db';
import { BusinessRuleError, NotFoundError, parsePageRequest, toPage } from '@kessai/domain';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { getChargeSchema } from '../charges/charge.schemas';
import type { RequestContext } from '../charges/charges.service';
import { readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { scopeOf } from '../refunds/refunds.service';
import { presentCancel } from '@kessai/presenters';
import { createCancelSchema, updateCancelSchema } from './cancel.schemas';

const uuid = z.string().uuid();

/**
 * Cancels of authorized or awaiting charges (api-reference §5.5, docs/refunds-and-cancels.md):
 * accept one (pending, the charge reserved against a capture and the cancel_requested command, in
 * one statement) or refuse it at once with CANCEL_NOT_ALLOWED; read, list, update metadata.
 * refund-cancel-service voids the payment at the processor.
 */
@Injectable()
export class CancelsService {
  constructor(
    private readonly cancels: CancelsRepository,
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
    const request = parseInput(createCancelSchema, body);
    const result = await this.cancels.request({
      id: randomUUID(),
      merchantId: scope.merchantId,
      storeId,
      chargeId,
      metadata: request.metadata ?? {},
      correlationId: context.correlationId,
    });
    switch (result.outcome) {
      case 'created':
        return presentCancel(result.cancel);
      case 'charge_not_found':
        throw new NotFoundError('charge');
      case 'not_cancellable':
        throw new BusinessRuleError('CANCEL_NOT_ALLOWED');
    }
  }

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
    const cancel = await readPolling(
      () => this.findVisible(scope, chargeId, id),
      () => this.cancels.findStatus(id),
      { polling, maxWaitMs: this.config.CHARGE_POLLING_MAX_WAIT_MS, signal },
    );
    return presentCancel(cancel);
  }

  async list(principal: Principal, storeId: string, chargeId: string, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const scope = scopeOf(principal, storeId, chargeId);
    if (!(await this.charges.findInScope(scope, chargeId))) throw new NotFoundError('charge');
    return toPage(await this.cancels.list(scope, chargeId, page), page.limit, presentCancel);
  }

  /** PATCH: metadata only, replaced whole. */
  async update(principal: Principal, storeId: string, chargeId: string, id: string, body: unknown) {
    const scope = scopeOf(principal, storeId, chargeId);
    const cancel = await this.findVisible(scope, chargeId, id);
    const request = parseInput(updateCancelSchema, body);
    if (request.metadata === undefined) return presentCancel(cancel);
    const updated = await this.cancels.updateMetadata(scope, chargeId, id, request.metadata);
    if (!updated) throw new NotFoundError('cancel');
    return presentCancel(updated);
  }

  private async findVisible(scope: AccessScope, chargeId: string, id: string): Promise<Cancel> {
    const cancel = uuid.safeParse(id).success ? await this.cancels.findInScope(scope, chargeId, id) : null;
    if (!cancel) throw new NotFoundError('cancel');
    return cancel;
  }
}
