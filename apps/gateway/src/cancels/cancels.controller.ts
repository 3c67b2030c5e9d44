import { Body, Controller, Get, Inject, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CancelsService } from '@kessai/payments';
import { presentCancel } from '@kessai/presenters';
import { CurrentPrincipal } from '../auth/decorators';
import { chargeScopeOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { pollingOf, readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { createCancelSchema, updateCancelSchema } from './cancel.schemas';

/**
 * Cancels of a charge (api-reference §5.5): the SDK's cancels.create/get/list/poll, and PATCH. The
 * use cases are libs/payments' CancelsService.
 */
@Controller('stores/:storeId/charges/:chargeId/cancels')
export class CancelsController {
  constructor(
    private readonly cancels: CancelsService,
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
    const cancel = await this.cancels.create(scope, chargeId, parseInput(createCancelSchema, body), {
      correlationId: request.id,
    });
    return presentCancel(cancel);
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
    return presentPage(await this.cancels.list(scope, chargeId, page), page, presentCancel);
  }

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
    const cancel = await readPolling(
      () => this.cancels.find(scope, chargeId, id),
      () => this.cancels.status(id),
      polling,
    );
    return presentCancel(cancel);
  }

  /** PATCH: metadata only, replaced whole. */
  @Patch(':id')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('chargeId') chargeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
  ) {
    const scope = chargeScopeOf(principal, storeId, chargeId);
    const cancel = await this.cancels.find(scope, chargeId, id);
    const { metadata } = parseInput(updateCancelSchema, body);
    return presentCancel(await this.cancels.updateMetadata(scope, chargeId, cancel, metadata));
  }
}
