import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { StoresRepository } from '@kessai/db';
import { NotFoundError, parsePageRequest, toPage } from '@kessai/domain';
import { z } from 'zod';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentStore, presentStoreListItem } from './store.presenter';

const storeIdParam = z.object({ storeId: z.string().uuid() });
const storeUpdate = z.object({ name: z.string().trim().min(1).max(100).optional() }).strict();
const listFilters = z.object({ search: z.string().max(200).optional() }).passthrough();

@Controller('stores')
export class StoresController {
  constructor(private readonly stores: StoresRepository) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const { search } = parseInput(listFilters, query);
    const rows = await this.stores.list(principal, page, search);
    return toPage(rows, page.limit, presentStoreListItem);
  }

  @Get(':storeId')
  async get(@CurrentPrincipal() principal: Principal, @Param() params: Record<string, string>) {
    const { storeId } = parseStoreId(params);
    const store = await this.stores.findVisible(principal, storeId);
    if (!store) throw new NotFoundError('store');
    return presentStore(store);
  }

  @Patch(':storeId')
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param() params: Record<string, string>,
    @Body() body: unknown,
  ) {
    const { storeId } = parseStoreId(params);
    const changes = parseInput(storeUpdate, body);
    const store = await this.stores.update(principal, storeId, changes);
    if (!store) throw new NotFoundError('store');
    return presentStore(store);
  }
}

/** A malformed id cannot name anything the caller may see: it answers 404 like any unknown id. */
function parseStoreId(params: Record<string, string>) {
  const result = storeIdParam.safeParse(params);
  if (!result.success) throw new NotFoundError('store');
  return result.data;
}
