import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { StoresService } from './stores.service';

@Controller('stores')
export class StoresController {
  constructor(private readonly stores: StoresService) {}

  @Post()
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.stores.create(principal, body);
  }

  @Delete(':storeId')
  @HttpCode(204)
  async delete(@CurrentPrincipal() principal: Principal, @Param('storeId') storeId: string) {
    await this.stores.delete(principal, storeId);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.stores.list(principal, query);
  }

  @Get(':storeId')
  get(@CurrentPrincipal() principal: Principal, @Param('storeId') storeId: string) {
    return this.stores.get(principal, storeId);
  }

  @Patch(':storeId')
  update(@CurrentPrincipal() principal: Principal, @Param('storeId') storeId: string, @Body() body: unknown) {
    return this.stores.update(principal, storeId, body);
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
