import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { parsePageRequest, presentPage } from '../http/pagination';
import { ChargesService } from '@kessai/payments';
import {
  presentCharge,
  presentPlannedPayment,
  presentScheduledPayment,
  presentSubscription,
  presentSubscriptionListItem,
} from '@kessai/presenters';
import {
  CustomerSubscriptionsService,
  ScheduledPaymentsService,
  SubscriptionBatchesService,
  subscriptionBatchStatus,
  SubscriptionsService,
} from '@kessai/subscriptions';
import { AcceptsCredentials, CurrentPrincipal, PathTarget, type StorePathTarget } from '../auth/decorators';
import { storeScopeOf, subscriptionScopeOf, tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { listChargesFor } from '../charges/charge-list';
import { pollingOf, readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { presentBatch } from './subscription-batch.presenter';
import {
  createSubscriptionSchema,
  listSubscriptionsSchema,
  parseSubscriptionBatch,
  simulatePlanSchema,
  suspendSchema,
  updateSubscriptionSchema,
  updateScheduledPaymentSchema,
  updateTokenSchema,
} from './subscription.schemas';

type Query = Record<string, unknown>;
const context = (request: FastifyRequest) => ({ correlationId: request.id });

/**
 * Subscriptions (api-reference §5.3): the SDK's subscriptions.* and subscriptions.payments.*. POST
 * /subscriptions takes its store from the app token; suspend, unsuspend and token take the store
 * prefix optionally, as the SDK's routes do. All need a secret-bearing app token, but for two that a
 * store customer's token may also call on its own subscriptions (decision 0058): the token change
 * (PATCH /stores/{storeId}/subscriptions/{id}/token) and the cancel. The use cases are
 * libs/subscriptions' SubscriptionsService and CustomerSubscriptionsService.
 */
@Controller()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly payments: ScheduledPaymentsService,
    private readonly batches: SubscriptionBatchesService,
    private readonly charges: ChargesService,
    private readonly customers: CustomerSubscriptionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('subscriptions/simulate_plan')
  @HttpCode(200)
  simulatePlan(@Body() body: unknown) {
    return this.#simulatePlan(body);
  }

  @Post('stores/:storeId/subscriptions/simulate_plan')
  @HttpCode(200)
  async simulatePlanInStore(@PathTarget() { principal, storeId }: StorePathTarget, @Body() body: unknown) {
    await this.subscriptions.checkStoreVisible(principal, storeId);
    return this.#simulatePlan(body);
  }

  @Post('subscriptions')
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const actor = tokenStoreOf(principal);
    const input = parseInput(createSubscriptionSchema, body);
    return presentSubscription(await this.subscriptions.create(actor, input, context(request)));
  }

  /** Up to ten subscriptions and at most one charge, in the app token's store, all or nothing. */
  @Post('subscriptions/batches')
  async createBatch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const actor = tokenStoreOf(principal);
    const input = parseSubscriptionBatch(body);
    return presentBatch(await this.batches.create(actor, input, context(request)));
  }

  /** With `polling=true` an awaiting batch is re-read until its status changes (bounded like charges). */
  @Get('subscriptions/batches/:batchId')
  async getBatch(
    @CurrentPrincipal() principal: Principal,
    @Param('batchId') batchId: string,
    @Query() query: Query,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const polling = pollingOf(query, reply, this.config.CHARGE_POLLING_MAX_WAIT_MS);
    const scope = storeScopeOf(principal, null, 'subscription_batch');
    const read = async () => {
      const batch = await this.batches.find(scope, batchId);
      return { batch, status: subscriptionBatchStatus(batch) };
    };
    const { batch } = await readPolling(read, async () => (await read()).status, {
      ...polling,
      waitingStatus: 'awaiting',
    });
    return presentBatch(batch);
  }

  @Get('subscriptions')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Query) {
    return this.#list(principal, null, query);
  }

  @Get('stores/:storeId/subscriptions')
  listInStore(@PathTarget() { principal, storeId }: StorePathTarget, @Query() query: Query) {
    return this.#list(principal, storeId, query);
  }

  /** With `polling=true` an unverified subscription is re-read until its status changes (bounded). */
  @Get('stores/:storeId/subscriptions/:id')
  async get(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Query() query: Query,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const polling = pollingOf(query, reply, this.config.CHARGE_POLLING_MAX_WAIT_MS);
    const scope = subscriptionScopeOf(principal, storeId, id);
    const subscription = await readPolling(
      () => this.subscriptions.find(scope, id),
      () => this.subscriptions.status(id),
      { ...polling, waitingStatus: 'unverified' },
    );
    return presentSubscription(subscription);
  }

  @Patch('stores/:storeId/subscriptions/:id')
  async update(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const scope = subscriptionScopeOf(principal, storeId, id);
    const subscription = await this.subscriptions.find(scope, id);
    const changes = parseInput(updateSubscriptionSchema, body);
    return presentSubscription(
      await this.subscriptions.update(principal, scope, subscription, changes, context(request)),
    );
  }

  /** Cancel (api-reference §5.3): 204, `canceled` is final. */
  @Delete('stores/:storeId/subscriptions/:id')
  @AcceptsCredentials('app_token', 'customer')
  @HttpCode(204)
  async cancel(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    const scope = subscriptionScopeOf(principal, storeId, id);
    if (principal.customer) {
      await this.customers.cancel(customerOf(principal), id, context(request));
      return;
    }
    await this.subscriptions.cancel(scope, id, context(request));
  }

  @Patch('subscriptions/:id/suspend')
  suspend(@PathTarget() target: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#suspend(target, body, request);
  }

  @Patch('stores/:storeId/subscriptions/:id/suspend')
  suspendInStore(@PathTarget() target: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#suspend(target, body, request);
  }

  @Patch('subscriptions/:id/unsuspend')
  unsuspend(@PathTarget() target: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#unsuspend(target, body, request);
  }

  @Patch('stores/:storeId/subscriptions/:id/unsuspend')
  unsuspendInStore(@PathTarget() target: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#unsuspend(target, body, request);
  }

  @Patch('subscriptions/:id/token')
  updateToken(@PathTarget() target: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#updateToken(target, body, request);
  }

  @Patch('stores/:storeId/subscriptions/:id/token')
  @AcceptsCredentials('app_token', 'customer')
  updateTokenInStore(
    @PathTarget() target: PathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.#updateToken(target, body, request);
  }

  /** GET …/charges: the subscription's charges, with the charge list's filters and pagination. */
  @Get('stores/:storeId/subscriptions/:id/charges')
  async listCharges(@PathTarget() { principal, storeId, id }: StorePathTarget, @Query() query: Query) {
    const subscription = await this.subscriptions.find(subscriptionScopeOf(principal, storeId, id), id);
    const merchant = { merchantId: principal.merchantId, storeId: null };
    return listChargesFor(this.charges, merchant, null, query, { subscriptionId: subscription.id });
  }

  /** GET …/charges/latest: its newest charge; 404 when it has none yet. */
  @Get('stores/:storeId/subscriptions/:id/charges/latest')
  async latestCharge(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    const scope = subscriptionScopeOf(principal, storeId, id);
    return presentCharge(await this.subscriptions.latestCharge(scope, id));
  }

  @Get('stores/:storeId/subscriptions/:id/payments')
  async listPayments(@PathTarget() { principal, storeId, id }: StorePathTarget, @Query() query: Query) {
    const page = parsePageRequest(query);
    const subscription = await this.subscriptions.find(subscriptionScopeOf(principal, storeId, id), id);
    const { rows, totalHits } = await this.payments.list(subscription, page);
    const present = (payment: (typeof rows)[number]) =>
      presentScheduledPayment(payment, subscription.retryInterval);
    return presentPage(rows, page, present, totalHits);
  }

  @Get('stores/:storeId/subscriptions/:id/payments/:paymentId')
  async getPayment(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Param('paymentId') paymentId: string,
  ) {
    const subscription = await this.subscriptions.find(subscriptionScopeOf(principal, storeId, id), id);
    const payment = await this.payments.find(
      subscriptionScopeOf(principal, storeId),
      subscription,
      paymentId,
    );
    return presentScheduledPayment(payment, subscription.retryInterval);
  }

  /**
   * PATCH …/payments/{id}: a pending payment's due date or amount, as the store's
   * subscription_configuration allows.
   */
  @Patch('stores/:storeId/subscriptions/:id/payments/:paymentId')
  async updatePayment(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Param('paymentId') paymentId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const scope = subscriptionScopeOf(principal, storeId);
    const subscription = await this.subscriptions.find(subscriptionScopeOf(principal, storeId, id), id);
    const payment = await this.payments.find(scope, subscription, paymentId);
    const input = parseInput(updateScheduledPaymentSchema, body);
    const updated = await this.payments.update(scope, subscription, payment, input, context(request));
    return presentScheduledPayment(updated, subscription.retryInterval);
  }

  /** GET …/payments/{id}/charges: the charges made for the payment (one per try). */
  @Get('stores/:storeId/subscriptions/:id/payments/:paymentId/charges')
  async listPaymentCharges(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Param('paymentId') paymentId: string,
    @Query() query: Query,
  ) {
    const subscription = await this.subscriptions.find(subscriptionScopeOf(principal, storeId, id), id);
    const payment = await this.payments.find(
      subscriptionScopeOf(principal, storeId),
      subscription,
      paymentId,
    );
    const merchant = { merchantId: principal.merchantId, storeId: null };
    return listChargesFor(this.charges, merchant, null, query, { scheduledPaymentId: payment.id });
  }

  #simulatePlan(body: unknown) {
    const request = parseInput(simulatePlanSchema, body);
    const { payments, retryInterval } = this.subscriptions.simulatePlan(request);
    return payments.map((payment) => presentPlannedPayment(payment, request.currency, retryInterval));
  }

  /** `storeId` from the path, or null for GET /subscriptions (a store token's store, a merchant's all). */
  async #list(principal: Principal, storeId: string | null, query: Query) {
    const page = parsePageRequest(query);
    const filters = parseInput(listSubscriptionsSchema, query);
    const scope = subscriptionScopeOf(principal, storeId);
    const statuses = [
      ...(filters.status ? [filters.status] : []),
      ...(filters.statuses ?? []),
      ...(filters['statuses[]'] ?? []),
    ];
    const where = { statuses, mode: filters.mode, search: filters.search || undefined };
    const { rows, totalHits } = await this.subscriptions.list(scope, storeId, where, page);
    return presentPage(rows, page, presentSubscriptionListItem, totalHits);
  }

  async #suspend({ principal, storeId, id }: PathTarget, body: unknown, request: FastifyRequest) {
    const input = parseInput(suspendSchema, body);
    const scope = subscriptionScopeOf(principal, storeId, id);
    return presentSubscription(await this.subscriptions.suspend(scope, id, input, context(request)));
  }

  async #unsuspend({ principal, storeId, id }: PathTarget, body: unknown, request: FastifyRequest) {
    parseInput(suspendSchema, body);
    const scope = subscriptionScopeOf(principal, storeId, id);
    return presentSubscription(await this.subscriptions.unsuspend(scope, id, context(request)));
  }

  /** PATCH …/token: the token part of PATCH. */
  async #updateToken({ principal, storeId, id }: PathTarget, body: unknown, request: FastifyRequest) {
    const { transaction_token_id: tokenId } = parseInput(updateTokenSchema, body);
    const scope = subscriptionScopeOf(principal, storeId, id);
    if (principal.customer) {
      return presentSubscription(
        await this.customers.updateToken(customerOf(principal), id, tokenId, context(request)),
      );
    }
    const subscription = await this.subscriptions.find(scope, id);
    return presentSubscription(
      await this.subscriptions.updateToken(principal, scope, subscription, tokenId, context(request)),
    );
  }
}

/** The customer a customer token names (its store, mode and email): only set for kind `customer`. */
function customerOf(principal: Principal) {
  const { merchantId, storeId, mode, customer } = principal;
  if (!customer || storeId === null) throw new Error('customerOf used without a customer token');
  return { merchantId, storeId, mode, email: customer.email };
}
