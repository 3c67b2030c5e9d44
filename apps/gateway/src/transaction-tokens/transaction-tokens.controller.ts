import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { BrowserAllowed, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { TransactionTokensService } from './transaction-tokens.service';

/**
 * Transaction tokens (api-reference §5.1). POST /tokens takes its store from the app token and is
 * the one route a secret-less (public) token may call, from an Origin in its domains: the hosted
 * checkout tokenises cards through it. Everything else needs a secret.
 */
@Controller()
export class TransactionTokensController {
  constructor(private readonly tokens: TransactionTokensService) {}

  @Post('tokens')
  @BrowserAllowed()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.tokens.create(principal, body, { correlationId: request.id });
  }

  @Get('tokens')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.tokens.list(principal, null, query);
  }

  @Get('stores/:storeId/tokens')
  listForStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.tokens.list(principal, storeId, query);
  }

  @Get('stores/:storeId/tokens/:id')
  get(@CurrentPrincipal() principal: Principal, @Param('storeId') storeId: string, @Param('id') id: string) {
    return this.tokens.get(principal, storeId, id);
  }

  @Patch('stores/:storeId/tokens/:id')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.tokens.update(principal, storeId, id, body, { correlationId: request.id });
  }

  @Delete('stores/:storeId/tokens/:id')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.tokens.delete(principal, storeId, id, { correlationId: request.id });
  }
}
