import { Body, Controller, Get, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { RefundsService } from '@kessai/payments';
import { presentRefund } from '@kessai/presenters';
import { CurrentPrincipal } from '../auth/decorators';
import { chargeScopeOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { pollingOf, readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { createRefundSchema, updateRefundSchema } from './refund.schemas';

/**
 * Refunds of a charge (api-reference §5.4): the SDK's refunds.create/get/list/update/poll. The use
 * cases are libs/payments' RefundsService.
 */
@Controller('stores/:storeId/charges/:chargeId/refunds')
export class RefundsController {
  constructor(
    private readonly refunds: RefundsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const refund = await this.refunds.create(scope, chargeId, parseInput(createRefundSchema, body), {
      correlationId: request.id,
    });
    return presentRefund(refund);
  }

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const { rows, totalHits } = await this.refunds.list(scope, chargeId, page);
    return presentPage(rows, page, presentRefund, totalHits);
  }

  /** With `polling=true` a pending refund is re-read until it ends, at most CHARGE_POLLING_MAX_WAIT_MS. */
  @Get(':id')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const polling = pollingOf(query, reply, this.config.CHARGE_POLLING_MAX_WAIT_MS);
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const refund = await readPolling(
      () => this.refunds.find(scope, chargeId, id),
      () => this.refunds.status(id),
      polling,
    );
    return presentRefund(refund);
  }

  /** PATCH: reason, message and metadata; `status` is accepted only unchanged. */
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const refund = await this.refunds.find(scope, chargeId, id);
    const changes = parseInput(updateRefundSchema, body);
    return presentRefund(await this.refunds.update(scope, chargeId, refund, changes));
  }
}
