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
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { publicBaseUrl } from '../http/public-base-url';
import { StoresService } from './stores.service';

/** The store routes (api-reference §5.7); POST and PATCH take JSON or, with a logo, multipart/form-data. */
@Controller('stores')
export class StoresController {
  constructor(
    private readonly stores: StoresService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.stores.create(principal, body, publicBaseUrl(this.config, request));
  }

  @Delete(':storeId')
  @HttpCode(204)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.stores.delete(principal, storeId, { correlationId: request.id });
  }

  @Get()
  list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    return this.stores.list(principal, query, publicBaseUrl(this.config, request));
  }

  @Get(':storeId')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Req() request: FastifyRequest,
  ) {
    return this.stores.get(principal, storeId, publicBaseUrl(this.config, request));
  }

  @Patch(':storeId')
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.stores.update(principal, storeId, body, publicBaseUrl(this.config, request));
  }

  @Post(':storeId/create_customer_id')
  @HttpCode(200)
  createCustomerId(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Body() body: unknown,
  ) {
    return this.stores.createCustomerId(principal, storeId, body);
  }
}
