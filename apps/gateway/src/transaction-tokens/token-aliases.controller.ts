import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { TokenAliasesService } from '@kessai/transaction-tokens';
import { BrowserAllowed, CurrentPrincipal, PathTarget, type StorePathTarget } from '../auth/decorators';
import { inStoreScopeOf, tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentCreatedTokenAlias, presentTokenAlias } from './token-alias.presenter';
import { createTokenAliasSchema, tokenAliasQuerySchema } from './token-alias.schemas';

/**
 * Temporary token aliases (the SDK's TemporaryTokenAlias, api-reference §5.1; decision 0058). POST
 * /tokens/alias names no store: it takes the app token's, and needs its secret, as deleting does.
 * Reading an alias is also open to the store's secret-less token from an Origin in its domains (a
 * page resolving the key it was handed). An unknown, foreign, expired or deleted key is 404.
 */
@Controller()
export class TokenAliasesController {
  constructor(private readonly aliases: TokenAliasesService) {}

  @Post('tokens/alias')
  async create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    const actor = tokenStoreOf(principal);
    const alias = await this.aliases.create(actor, parseInput(createTokenAliasSchema, body));
    return presentCreatedTokenAlias(alias);
  }

  @Get('stores/:storeId/tokens/alias/:id')
  @BrowserAllowed()
  async get(
    @PathTarget() { principal, storeId, id }: StorePathTarget,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = inStoreScopeOf(principal, storeId, id, 'transaction_token_alias');
    parseInput(tokenAliasQuerySchema, query);
    return presentTokenAlias(await this.aliases.find(scope, id));
  }

  @Delete('stores/:storeId/tokens/alias/:id')
  @HttpCode(204)
  async delete(@PathTarget() { principal, storeId, id }: StorePathTarget): Promise<void> {
    await this.aliases.delete(inStoreScopeOf(principal, storeId, id, 'transaction_token_alias'), id);
  }
}
