import { Body, Controller, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { closeSignal } from '../http/polling';
import { RefundsService } from './refunds.service';

/** Refunds of a charge (api-reference §5.4): the SDK's refunds.create/get/list/update/poll. */
@Controller('stores/:storeId/charges/:chargeId/refunds')
export class RefundsController {
  constructor(private readonly refunds: RefundsService) {}

  @Post()
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.refunds.create(principal, storeId, chargeId, body, { correlationId: request.id });
  }

  @Get()
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.refunds.list(principal, storeId, chargeId, query);
  }

  @Get(':id')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.refunds.get(principal, storeId, chargeId, id, query, closeSignal(reply));
  }

  @Patch(':id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.refunds.update(principal, storeId, chargeId, id, body);
  }
}
