import { Controller, Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import type { AccessScope, Cancel } from '@kessai/db';
import type { PageRequest } from '@kessai/domain';
import { CancelsService, type Metadata } from '@kessai/payments';
import { presentCancel } from '@kessai/presenters';
import { ChargeChildrenController } from '../charges/charge-children.controller';
import { parseInput } from '../http/validation';
import { createCancelSchema, updateCancelSchema } from './cancel.schemas';

/**
 * Cancels of a charge (api-reference §5.5): the SDK's cancels.create/get/list/poll, and PATCH. The
 * use cases are libs/payments' CancelsService; the routes are ChargeChildrenController's.
 */
@Controller('stores/:storeId/charges/:chargeId/cancels')
export class CancelsController extends ChargeChildrenController<
  Cancel,
  { metadata?: Metadata },
  ReturnType<typeof presentCancel>
> {
  constructor(
    private readonly cancels: CancelsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(cancels, createCancelSchema, presentCancel, config);
  }

  /** A page of the charge's cancels (not counted). */
  protected async listOf(scope: AccessScope, chargeId: string, page: PageRequest) {
    return { rows: await this.cancels.list(scope, chargeId, page), totalHits: null };
  }

  /** PATCH: metadata only, replaced whole. */
  protected change(scope: AccessScope, chargeId: string, current: Cancel, body: unknown) {
    const { metadata } = parseInput(updateCancelSchema, body);
    return this.cancels.updateMetadata(scope, chargeId, current, metadata);
  }
}
