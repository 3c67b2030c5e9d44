import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AcceptsCredentials, BrowserAllowed, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { TokenThreeDsService } from './token-three-ds.service';
import { TransactionTokensService } from './transaction-tokens.service';

/**
 * Transaction tokens (api-reference §5.1). POST /tokens takes its store from the app token and is
 * the one route a secret-less (public) token may call, from an Origin in its domains: the hosted
 * checkout tokenises cards through it; so may a checkout link's credentials, for a token of the link's
 * type. Everything else needs a secret.
 */
@Controller()
export class TransactionTokensController {
  constructor(
    private readonly tokens: TransactionTokensService,
    private readonly threeDs: TokenThreeDsService,
  ) {}

  @Post('tokens')
  @BrowserAllowed()
  // the hosted link page tokenises with the link's own credentials (docs/hosted-checkout.md)
  @AcceptsCredentials('app_token', 'checkout_link')
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

  /** The SDK's transactionTokens.confirm: answers 200 with the token. */
  @Post('stores/:storeId/tokens/:id/confirm')
  @HttpCode(200)
  confirm(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.tokens.confirm(principal, storeId, id, body, { correlationId: request.id });
  }

  /** The SDK's transactionTokens.renew: 200 with the new token (`previous_id` the renewed one). */
  @Post('stores/:storeId/tokens/:id/renew')
  @HttpCode(200)
  renewInStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.tokens.renew(principal, storeId, id, body, { correlationId: request.id });
  }

  /** The same without the store: a store token's own store. */
  @Post('tokens/:id/renew')
  @HttpCode(200)
  renew(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.tokens.renew(principal, null, id, body, { correlationId: request.id });
  }

  /** The SDK's transactionTokens.threeDsIssuerToken: the issuer page while the token's 3-D Secure awaits. */
  @Get('stores/:storeId/tokens/:id/three_ds/issuer_token')
  threeDsIssuerToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return this.threeDs.issuerToken(principal, storeId, id);
  }

  /** The SDK's transactionTokens.enableThreeDs: authentication starts again unless it succeeded; 200 with the token. */
  @Post('stores/:storeId/tokens/:id/three_ds')
  @HttpCode(200)
  enableThreeDs(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ) {
    return this.threeDs.enable(principal, storeId, id, { correlationId: request.id });
  }

  /** The SDK's transactionTokens.disableThreeDs: 200 with the token (the SDK reads a body, not a 204). */
  @Delete('stores/:storeId/tokens/:id/three_ds')
  @HttpCode(200)
  disableThreeDs(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ) {
    return this.threeDs.disable(principal, storeId, id, { correlationId: request.id });
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
