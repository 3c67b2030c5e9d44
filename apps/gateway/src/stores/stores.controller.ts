import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { StoresService } from '@kessai/accounts';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AppTokenCache } from '../auth/app-token-cache';
import { CurrentPrincipal } from '../auth/decorators';
import { pathId } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { formInput } from '../http/form-body';
import { parsePageRequest, presentPage } from '../http/pagination';
import { publicBaseUrl } from '../http/public-base-url';
import { parseInput } from '../http/validation';
import { presentStoreListItem, presentStoreWithMerchant } from './store.presenter';
import { customerIdRequest, listFilters, storeCreation, storeUpdate } from './store.schemas';

/**
 * The store routes (api-reference §5.7); POST and PATCH take JSON or, with a logo,
 * multipart/form-data. The use cases are libs/accounts' StoresService.
 */
@Controller('stores')
export class StoresController {
  constructor(
    private readonly stores: StoresService,
    private readonly appTokens: AppTokenCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Merchant credentials only (a store token names a store already). */
  @Post()
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const merchant = this.stores.merchantOf(principal);
    const input = parseInput(storeCreation, formInput(storeCreation, body));
    const store = await this.stores.create(merchant, input);
    return presentStoreWithMerchant(store, publicBaseUrl(this.config, request));
  }

  /** Merchant credentials only: the store is deactivated, its app tokens stop working at once. */
  @Delete(':storeId')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Req() request: FastifyRequest,
  ) {
    const merchant = this.stores.merchantOf(principal);
    const deleted = await this.stores.delete(merchant, storeId, { correlationId: request.id });
    // the use case told every gateway; this one forgets them before it answers
    for (const id of deleted.revokedAppTokenIds) this.appTokens.forget(id);
  }

  @Get()
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    const page = parsePageRequest(query);
    const { search } = parseInput(listFilters, query);
    const baseUrl = publicBaseUrl(this.config, request);
    const rows = await this.stores.list(principal, page, search);
    return presentPage(rows, page, (store) => presentStoreListItem(store, baseUrl));
  }

  @Get(':storeId')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Req() request: FastifyRequest,
  ) {
    const store = await this.stores.find(principal, storeId);
    return presentStoreWithMerchant(store, publicBaseUrl(this.config, request));
  }

  /** `name`, `configuration` (fees are the operator's, refused here) and `logo` (null removes it). */
  @Patch(':storeId')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    const id = pathId(storeId, 'store');
    const input = parseInput(storeUpdate, formInput(storeUpdate, body));
    const store = await this.stores.update(principal, id, input);
    return presentStoreWithMerchant(store, publicBaseUrl(this.config, request));
  }

  @Post(':storeId/create_customer_id')
  @HttpCode(200)
  async createCustomerId(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    const id = pathId(storeId, 'store');
    const { customer_id } = parseInput(customerIdRequest, body);
    return { customer_id: await this.stores.customerId(principal, id, customer_id) };
  }
}
