import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  CancelsRepository,
  ChargesRepository,
  type AccessScope,
  type AuditEntry,
  type Cancel,
} from '@kessai/db';
import { BusinessRuleError, isUuid, NotFoundError, type PageRequest } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import type { ChargeScope, Metadata } from '../actor';
import { resubmitted } from '../resubmitted';

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
  ) {}

  /**
   * Accepts a cancel of the scope's charge `chargeId`, or refuses it at once. `id`: the cancel's id
   * when the front end chose it (the console's form), so that the same form sent twice answers the
   * first cancel; `audit`: the console's audit row, written in the cancel's transaction.
   */
  async create(
    scope: ChargeScope,
    chargeId: string,
    request: { metadata?: Metadata },
    correlation: Correlation,
    options: { id?: string; audit?: AuditEntry } = {},
  ): Promise<Cancel> {
    const result = await this.cancels.request(
      {
        id: options.id ?? randomUUID(),
        merchantId: scope.merchantId,
        storeId: scope.storeId,
        chargeId,
        metadata: request.metadata ?? {},
        correlationId: correlation.correlationId,
      },
      { audit: options.audit },
    );
    switch (result.outcome) {
      case 'created':
        return result.cancel;
      case 'charge_not_found':
        throw new NotFoundError('charge');
      case 'not_cancellable': {
        // the same form again: the charge is being (or was) canceled by that form's cancel
        const existing =
          options.id === undefined ? null : await this.cancels.findInScope(scope, chargeId, options.id);
        if (existing) return existing;
        throw new BusinessRuleError('CANCEL_NOT_ALLOWED');
      }
      case 'id_taken':
        return resubmitted(await this.cancels.findInScope(scope, chargeId, options.id ?? ''));
    }
  }

  /** A cancel of the scope's charge; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, chargeId: string, id: string): Promise<Cancel> {
    return this.findVisible(scope, chargeId, id);
  }

  /** A cancel's status alone (a polling read), or null when there is no such cancel. */
  status(id: string): Promise<string | null> {
    return this.cancels.findStatus(id);
  }

  /** A page of the charge's cancels. */
  async list(scope: AccessScope, chargeId: string, page: PageRequest): Promise<Cancel[]> {
    if (!(await this.charges.findInScope(scope, chargeId))) throw new NotFoundError('charge');
    return this.cancels.list(scope, chargeId, page);
  }

  /** PATCH: metadata only, replaced whole. */
  async updateMetadata(
    scope: AccessScope,
    chargeId: string,
    cancel: Cancel,
    metadata: Metadata | undefined,
  ): Promise<Cancel> {
    if (metadata === undefined) return cancel;
    const updated = await this.cancels.updateMetadata(scope, chargeId, cancel.id, metadata);
    if (!updated) throw new NotFoundError('cancel');
    return updated;
  }

  private async findVisible(scope: AccessScope, chargeId: string, id: string): Promise<Cancel> {
    const cancel = isUuid(id) ? await this.cancels.findInScope(scope, chargeId, id) : null;
    if (!cancel) throw new NotFoundError('cancel');
    return cancel;
  }
}
