import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AppTokenService, type TokenManager } from '@kessai/accounts';
import { AppTokenCache } from '../auth/app-token-cache';
import { AcceptsCredentials, CurrentPrincipal } from '../auth/decorators';
import { pathId } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { parseInput } from '../http/validation';
import { presentAppJwt, presentIssuedAppJwt } from './app-jwt.presenter';
import { createAppJwtSchema } from './app-jwt.schemas';

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
    const request = parseInput(createAppJwtSchema, body);
    return presentIssuedAppJwt(await this.tokens.issue(managerOf(principal), null, request));
  }

  @Get('app_jwts')
  async listMerchantTokens(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    return presentPage(await this.tokens.list(managerOf(principal), null, page), page, presentAppJwt);
  }

  @Get('app_jwts/:id')
  async getMerchantToken(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentAppJwt(await this.tokens.get(managerOf(principal), null, pathId(id, 'app_token')));
  }

  @Delete('app_jwts/:id')
  @HttpCode(204)
  async revokeMerchantToken(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    const revoked = await this.tokens.revoke(managerOf(principal), null, pathId(id, 'app_token'));
    for (const revokedId of revoked.revokedIds) this.cache.forget(revokedId);
  }

  @Post('stores/:storeId/app_jwts')
  async createStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    const request = parseInput(createAppJwtSchema, body);
    return presentIssuedAppJwt(
      await this.tokens.issue(managerOf(principal), pathId(storeId, 'store'), request),
    );
  }

  @Get('stores/:storeId/app_jwts')
  async listStoreTokens(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const page = parsePageRequest(query);
    const rows = await this.tokens.list(managerOf(principal), pathId(storeId, 'store'), page);
    return presentPage(rows, page, presentAppJwt);
  }

  @Get('stores/:storeId/app_jwts/:id')
  async getStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    return presentAppJwt(
      await this.tokens.get(managerOf(principal), pathId(storeId, 'store'), pathId(id, 'app_token')),
    );
  }

  @Delete('stores/:storeId/app_jwts/:id')
  @HttpCode(204)
  async revokeStoreToken(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Param('id') id: string,
  ) {
    const revoked = await this.tokens.revoke(
      managerOf(principal),
      pathId(storeId, 'store'),
      pathId(id, 'app_token'),
    );
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
