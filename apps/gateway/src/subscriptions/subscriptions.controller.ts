import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { SubscriptionsService } from './subscriptions.service';

/**
 * Subscriptions (api-reference §5.3). Today only the plan simulation (the SDK's
 * `subscriptions.simulation`), with or without a store in the path; a secret-bearing app token.
 */
@Controller()
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Post('subscriptions/simulate_plan')
  @HttpCode(200)
  simulatePlan(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.subscriptions.simulatePlan(principal, null, body);
  }

  @Post('stores/:storeId/subscriptions/simulate_plan')
  @HttpCode(200)
  simulatePlanInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    return this.subscriptions.simulatePlan(principal, storeId, body);
  }
}
