import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  APP_TOKEN_DOMAIN,
  AppTokenService,
  isWildcardOverPublicSuffix,
  type TokenManager,
} from '@kessai/accounts';
import { NotFoundError, parsePageRequest, toPage } from '@kessai/domain';
import { z } from 'zod';
import { AppTokenCache } from '../auth/app-token-cache';
import { AcceptsCredentials, CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentAppJwt, presentIssuedAppJwt } from './app-jwt.presenter';

export const createBody = z
  .object({
    mode: z.enum(['test', 'live']).default('test'),
    domains: z
      .array(
        z
          .string()
          .trim()
          .max(253)
          .regex(APP_TOKEN_DOMAIN)
          .refine((domain) => !isWildcardOverPublicSuffix(domain), { params: { reason: 'INVALID_FORMAT' } }),
      )
      .max(50)
      .default([]),
  })
  .strict();

const uuid = z.string().uuid();

/**
 * App tokens (`app_jwts`): the merchant's own under /app_jwts (merchant-scope credentials only), a
 * store's under /stores/{storeId}/app_jwts (the merchant, or that store's own credentials). Secret
 * bearing app tokens and merchant users' login tokens may manage them; public tokens may not.
 */
@Controller()
@AcceptsCredentials('app_token', 'login')
export class AppJwtsController {
  constructor(
    private readonly tokens: AppTokenService,
    private readonly cache: AppTokenCache,
  ) {}

  @Post('app_jwts')
  async createMerchantToken(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const request = parseInput(createBody, body);
    return presentIssuedAppJwt(await this.tokens.issue(managerOf(principal), null, request));
  }

  @Get('app_jwts')
  async listMerchantTokens(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    return toPage(await this.tokens.list(managerOf(principal), null, page), page.limit, presentAppJwt);
  }

  @Get('app_jwts/:id')
  async getMerchantToken(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentAppJwt(await this.tokens.get(managerOf(principal), null, tokenId(id)));
  }

  @Delete('app_jwts/:id')
  @HttpCode(204)
  async revokeMerchantToken(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const revoked = await this.tokens.revoke(managerOf(principal), null, tokenId(id));
    for (const revokedId of revoked.revokedIds) this.cache.forget(revokedId);
  }

  @Post('stores/:storeId/app_jwts')
  async createStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    const request = parseInput(createBody, body);
    return presentIssuedAppJwt(await this.tokens.issue(managerOf(principal), storeIdOf(storeId), request));
  }

  @Get('stores/:storeId/app_jwts')
  async listStoreTokens(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const rows = await this.tokens.list(managerOf(principal), storeIdOf(storeId), page);
    return toPage(rows, page.limit, presentAppJwt);
  }

  @Get('stores/:storeId/app_jwts/:id')
  async getStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return presentAppJwt(await this.tokens.get(managerOf(principal), storeIdOf(storeId), tokenId(id)));
  }

  @Delete('stores/:storeId/app_jwts/:id')
  @HttpCode(204)
  async revokeStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    const revoked = await this.tokens.revoke(managerOf(principal), storeIdOf(storeId), tokenId(id));
    for (const revokedId of revoked.revokedIds) this.cache.forget(revokedId);
  }
}

/** The caller as a token manager: a user, bound to no mode; an app token, to its own (0028). */
function managerOf(principal: Principal): TokenManager {
  const scope = { merchantId: principal.merchantId, storeId: principal.storeId };
  return principal.kind === 'login'
    ? { ...scope, kind: 'user', mode: null }
    : { ...scope, kind: 'app_token', tokenId: appTokenIdOf(principal), mode: principal.mode };
}

function appTokenIdOf(principal: Principal): string {
  // the guard lets only app tokens and logins in here, and the authenticator names every app token
  if (principal.appTokenId === undefined) throw new Error(`no app token id on a ${principal.kind} principal`);
  return principal.appTokenId;
}

/** A malformed id cannot name anything the caller may see: 404 like any unknown id, never 400. */
function storeIdOf(raw: string): string {
  if (!uuid.safeParse(raw).success) throw new NotFoundError('store');
  return raw.toLowerCase();
}

function tokenId(raw: string): string {
  if (!uuid.safeParse(raw).success) throw new NotFoundError('app_token');
  return raw.toLowerCase();
}
