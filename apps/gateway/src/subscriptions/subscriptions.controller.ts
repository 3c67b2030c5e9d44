import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { closeSignal } from '../http/polling';
import { ScheduledPaymentsService } from './scheduled-payments.service';
import { SubscriptionBatchesService } from './subscription-batches.service';
import { SubscriptionsService } from './subscriptions.service';

type Query = Record<string, unknown>;
const context = (request: FastifyRequest) => ({ correlationId: request.id });

/**
 * Subscriptions (api-reference §5.3): the SDK's subscriptions.* and subscriptions.payments.*. POST
 * /subscriptions takes its store from the app token; suspend, unsuspend and token take the store
 * prefix optionally, as the SDK's routes do. All need a secret-bearing app token.
 */
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly payments: ScheduledPaymentsService,
    private readonly batches: SubscriptionBatchesService,
  ) {}

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

  @Post('subscriptions')
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.subscriptions.create(principal, body, context(request));
  }

  @Post('subscriptions/batches')
  createBatch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.batches.create(principal, body, context(request));
  }

  @Get('subscriptions/batches/:batchId')
  getBatch(
    @CurrentPrincipal() principal: Principal,
    @Param('batchId') batchId: string,
    @Query() query: Query,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.batches.get(principal, batchId, query, closeSignal(reply));
  }

  @Get('subscriptions')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Query) {
    return this.subscriptions.list(principal, null, query);
  }

  @Get('stores/:storeId/subscriptions')
  listInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Query,
  ) {
    return this.subscriptions.list(principal, storeId, query);
  }

  @Get('stores/:storeId/subscriptions/:id')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Query() query: Query,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.subscriptions.get(principal, storeId, id, query, closeSignal(reply));
  }

  @Patch('stores/:storeId/subscriptions/:id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.update(principal, storeId, id, body, context(request));
  }

  /** Cancel (api-reference §5.3): 204, `canceled` is final. */
  @Delete('stores/:storeId/subscriptions/:id')
  @HttpCode(204)
  async cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.subscriptions.cancel(principal, storeId, id, context(request));
  }

  @Patch('subscriptions/:id/suspend')
  suspend(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.suspend(principal, null, id, body, context(request));
  }

  @Patch('stores/:storeId/subscriptions/:id/suspend')
  suspendInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.suspend(principal, storeId, id, body, context(request));
  }

  @Patch('subscriptions/:id/unsuspend')
  unsuspend(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.unsuspend(principal, null, id, body, context(request));
  }

  @Patch('stores/:storeId/subscriptions/:id/unsuspend')
  unsuspendInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.unsuspend(principal, storeId, id, body, context(request));
  }

  @Patch('subscriptions/:id/token')
  updateToken(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.updateToken(principal, null, id, body, context(request));
  }

  @Patch('stores/:storeId/subscriptions/:id/token')
  updateTokenInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.subscriptions.updateToken(principal, storeId, id, body, context(request));
  }

  @Get('stores/:storeId/subscriptions/:id/charges')
  listCharges(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Query() query: Query,
  ) {
    return this.subscriptions.listCharges(principal, storeId, id, query);
  }

  @Get('stores/:storeId/subscriptions/:id/charges/latest')
  latestCharge(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.subscriptions.latestCharge(principal, storeId, id);
  }

  @Get('stores/:storeId/subscriptions/:id/payments')
  listPayments(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Query() query: Query,
  ) {
    return this.payments.list(principal, storeId, id, query);
  }

  @Get('stores/:storeId/subscriptions/:id/payments/:paymentId')
  getPayment(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Param('paymentId') paymentId: string,
  ) {
    return this.payments.get(principal, storeId, id, paymentId);
  }

  @Patch('stores/:storeId/subscriptions/:id/payments/:paymentId')
  updatePayment(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Param('paymentId') paymentId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.payments.update(principal, storeId, id, paymentId, body, context(request));
  }

  @Get('stores/:storeId/subscriptions/:id/payments/:paymentId/charges')
  listPaymentCharges(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Param('paymentId') paymentId: string,
    @Query() query: Query,
  ) {
    return this.payments.listCharges(principal, storeId, id, paymentId, query);
  }
}
