import { Body, Controller, Get, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { closeSignal } from '../http/polling';
import { CancelsService } from './cancels.service';

/** Cancels of a charge (api-reference §5.5): the SDK's cancels.create/get/list/poll, and PATCH. */
@Controller('stores/:storeId/charges/:chargeId/cancels')
export class CancelsController {
  constructor(private readonly cancels: CancelsService) {}

  @Post()
  create(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.cancels.create(principal, storeId, chargeId, body, { correlationId: request.id });
  }

  @Get()
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.cancels.list(principal, storeId, chargeId, query);
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
    return this.cancels.get(principal, storeId, chargeId, id, query, closeSignal(reply));
  }

  @Patch(':id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    return this.cancels.update(principal, storeId, chargeId, id, body);
  }
}
