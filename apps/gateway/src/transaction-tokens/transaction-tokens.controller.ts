import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { presentToken, presentTokenListItem } from '@kessai/presenters';
import { TokenThreeDsService, TransactionTokensService, type TokenCreator } from '@kessai/transaction-tokens';
import {
  AcceptsCredentials,
  BrowserAllowed,
  CurrentPrincipal,
  PathTarget,
  type StorePathTarget,
} from '../auth/decorators';
import { inStoreScopeOf, tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { parseInput } from '../http/validation';
import { presentTokenThreeDsIssuerToken } from './token-three-ds.presenter';
import {
  confirmTokenSchema,
  listFiltersSchema,
  parseTokenCreation,
  renewTokenSchema,
  updateTokenSchema,
} from './transaction-token.schemas';

const correlationOf = (request: FastifyRequest) => ({ correlationId: request.id });

/**
 * Transaction tokens (api-reference §5.1). POST /tokens takes its store from the app token and is
 * the one route a secret-less (public) token may call, from an Origin in its domains: the hosted
 * checkout tokenises cards through it; so may a checkout link's credentials, for a token of the link's
 * type. Everything else needs a secret. The use cases are libs/transaction-tokens'; every route on
 * one token reads it first (a malformed, unknown or foreign one is 404), then parses its body.
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
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const creator = creatorOf(principal);
    const token = await this.tokens.create(creator, parseTokenCreation(body), correlationOf(request));
    return presentToken(token);
  }

  @Get('tokens')
  list(@PathTarget() { principal, storeId }: PathTarget, @Query() query: Record<string, unknown>) {
    return this.#list(principal, storeId, query);
  }

  @Get('stores/:storeId/tokens')
  listForStore(@PathTarget() { principal, storeId }: PathTarget, @Query() query: Record<string, unknown>) {
    return this.#list(principal, storeId, query);
  }

  @Get('stores/:storeId/tokens/:id')
  async get(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    return presentToken(await this.#find(principal, storeId, id));
  }

  @Patch('stores/:storeId/tokens/:id')
  async update(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const token = await this.#find(principal, storeId, id);
    const changes = parseInput(updateTokenSchema, body);
    return presentToken(await this.tokens.update(principal, token, changes, correlationOf(request)));
  }

  /** The SDK's transactionTokens.confirm: answers 200 with the token. */
  @Post('stores/:storeId/tokens/:id/confirm')
  @HttpCode(200)
  async confirm(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const token = await this.#find(principal, storeId, id);
    const { confirmation_code } = parseInput(confirmTokenSchema, body);
    return presentToken(await this.tokens.confirm(token, confirmation_code, correlationOf(request)));
  }

  /** The SDK's transactionTokens.renew: 200 with the new token (`previous_id` the renewed one). */
  @Post('stores/:storeId/tokens/:id/renew')
  @HttpCode(200)
  renewInStore(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.#renew(principal, storeId, id, body, request);
  }

  /** The same without the store: a store token's own store. */
  @Post('tokens/:id/renew')
  @HttpCode(200)
  renew(@PathTarget() { principal, id }: PathTarget, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.#renew(principal, tokenStoreOf(principal).storeId, id, body, request);
  }

  /** The SDK's transactionTokens.threeDsIssuerToken: the issuer page while the token's 3-D Secure awaits. */
  @Get('stores/:storeId/tokens/:id/three_ds/issuer_token')
  async threeDsIssuerToken(@PathTarget() { principal, storeId, id }: StorePathTarget) {
    const token = await this.#find(principal, storeId, id);
    return presentTokenThreeDsIssuerToken(this.threeDs.issuerToken(token));
  }

  /** The SDK's transactionTokens.enableThreeDs: authentication starts again unless it succeeded; 200 with the token. */
  @Post('stores/:storeId/tokens/:id/three_ds')
  @HttpCode(200)
  enableThreeDs(@PathTarget() { principal, storeId, id }: StorePathTarget, @Req() request: FastifyRequest) {
    return this.#switchThreeDs(principal, storeId, id, 'enable', request);
  }

  /** The SDK's transactionTokens.disableThreeDs: 200 with the token (the SDK reads a body, not a 204). */
  @Delete('stores/:storeId/tokens/:id/three_ds')
  @HttpCode(200)
  disableThreeDs(@PathTarget() { principal, storeId, id }: StorePathTarget, @Req() request: FastifyRequest) {
    return this.#switchThreeDs(principal, storeId, id, 'disable', request);
  }

  /** Deactivates the token (it stays readable, inactive) and forgets its pending CVV. */
  @Delete('stores/:storeId/tokens/:id')
  @HttpCode(204)
  async delete(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.tokens.delete(await this.#find(principal, storeId, id), correlationOf(request));
  }

  /** The path's token: its store (which a store token must own) and its id, both well-formed. */
  #find(principal: Principal, storeId: string, id: string) {
    return this.tokens.find(inStoreScopeOf(principal, storeId, id, 'transaction_token'), id);
  }

  /** The path's token with its 3-D Secure switched on (authentication started again) or off. */
  async #switchThreeDs(
    principal: Principal,
    storeId: string,
    id: string,
    to: 'enable' | 'disable',
    request: FastifyRequest,
  ) {
    const token = await this.#find(principal, storeId, id);
    return presentToken(await this.threeDs[to](token, correlationOf(request)));
  }

  /** `storeId` from the path, or null for GET /tokens (a store token's own store, a merchant's all). */
  async #list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const filters = parseInput(listFiltersSchema, query);
    const { rows, totalHits } = await this.tokens.list(
      principal,
      storeId,
      {
        type: filters.type,
        mode: filters.mode,
        paymentType: filters.payment_type,
        search: filters.search || undefined,
        customerId: filters.customer_id,
        previousId: filters.previous_transaction_token_id,
      },
      page,
    );
    return presentPage(rows, page, presentTokenListItem, totalHits);
  }

  /** A recurring or subscription card token's renewal (its store's: the path's, or the store token's). */
  async #renew(principal: Principal, storeId: string, id: string, body: unknown, request: FastifyRequest) {
    const token = await this.#find(principal, storeId, id);
    const renewal = parseInput(renewTokenSchema, body);
    return presentToken(await this.tokens.renew(principal, token, renewal, correlationOf(request)));
  }
}

/** POST /tokens names no store: it acts in the app token's (api-reference §1.2). */
function creatorOf(principal: Principal): TokenCreator {
  const { merchantId, storeId, mode } = tokenStoreOf(principal);
  return { merchantId, storeId, mode, hasSecret: principal.hasSecret, checkoutLink: principal.checkoutLink };
}
