import { Controller, Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import type { AccessScope, Refund } from '@kessai/db';
import type { PageRequest } from '@kessai/domain';
import { RefundsService, type RefundInput } from '@kessai/payments';
import { presentRefund } from '@kessai/presenters';
import { ChargeChildrenController } from '../charges/charge-children.controller';
import { parseInput } from '../http/validation';
import { createRefundSchema, updateRefundSchema } from './refund.schemas';

/**
 * Refunds of a charge (api-reference §5.4): the SDK's refunds.create/get/list/update/poll. The use
 * cases are libs/payments' RefundsService; the routes are ChargeChildrenController's.
 */
@Controller('stores/:storeId/charges/:chargeId/refunds')
export class RefundsController extends ChargeChildrenController<
  Refund,
  RefundInput,
  ReturnType<typeof presentRefund>
> {
  constructor(
    private readonly refunds: RefundsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(refunds, createRefundSchema, presentRefund, config);
  }

  protected listOf(scope: AccessScope, chargeId: string, page: PageRequest) {
    return this.refunds.list(scope, chargeId, page);
  }

  /** PATCH: reason, message and metadata; `status` is accepted only unchanged. */
  protected change(scope: AccessScope, chargeId: string, current: Refund, body: unknown) {
    return this.refunds.update(scope, chargeId, current, parseInput(updateRefundSchema, body));
  }
}
