import { Injectable } from '@nestjs/common';
import { MerchantsRepository, StoresRepository, type Prisma } from '@kessai/db';
import {
  NotFoundError,
  PermissionError,
  ValidationError,
  parsePageRequest,
  toPage,
  uuidV5,
} from '@kessai/domain';
import {
  applyPatch,
  contradictoryLimit,
  effectiveConfiguration,
  merchantConfigurationPatchSchema,
  unreadableColorPair,
  type StoreConfiguration,
} from '@kessai/store-configuration';
import { z } from 'zod';
import { AppTokenCache } from '../auth/app-token-cache';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { presentStoreListItem, presentStoreWithMerchant } from './store.presenter';

const storeIdParam = z.string().uuid();
export const storeUpdate = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    configuration: merchantConfigurationPatchSchema.optional(),
  })
  .strict();
/** `sdk.stores.create` as JSON; a `logo` (multipart in the SDK) is not taken. */
export const storeCreation = z
  .object({
    name: z.string().trim().min(1).max(100),
    configuration: merchantConfigurationPatchSchema.optional(),
    logo: z
      .unknown()
      .optional()
      .refine((logo) => logo === undefined || logo === null, { params: { reason: 'NOT_SUPPORTED' } }),
  })
  .strict();
export const listFilters = z.object({ search: z.string().max(200).optional() }).passthrough();
/** A merchant's own id for its customer: any text a merchant's system would use as a key. */
export const customerIdRequest = z.object({ customer_id: z.string().trim().min(1).max(255) }).strict();

/**
 * The store use cases (api-reference §5.7): create, read and list, change the name and the
 * configuration (the store's own layer, docs/configuration.md), delete (deactivate), and the
 * customer UUID of a merchant-local id.
 */
@Injectable()
export class StoresService {
  constructor(
    private readonly stores: StoresRepository,
    private readonly merchants: MerchantsRepository,
    private readonly appTokens: AppTokenCache,
  ) {}

  /** POST /stores: merchant credentials only (a store token names a store already). */
  async create(principal: Principal, body: unknown) {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    const { name, configuration } = parseInput(storeCreation, body);
    const merchant = await this.merchants.findById(principal.merchantId);
    if (!merchant) throw new NotFoundError('merchant');
    const stored = configuration ? applyPatch({}, configuration) : {};
    requireCoherent(effectiveConfiguration(merchant.configuration, stored));
    const store = await this.stores.create({
      merchantId: principal.merchantId,
      name,
      configuration: stored as Prisma.InputJsonObject,
    });
    return presentStoreWithMerchant({
      ...store,
      merchant: { name: merchant.name, configuration: merchant.configuration },
    });
  }

  /**
   * DELETE /stores/{id}: merchant credentials only. The store is deactivated (docs/stores.md): it
   * and its app tokens stop working at once on every gateway; its charges stay readable and
   * refundable with the merchant's credentials.
   */
  async delete(principal: Principal, storeId: string): Promise<void> {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    const deleted = await this.stores.delete(principal.merchantId, visibleId(storeId));
    if (!deleted) throw new NotFoundError('store');
    for (const id of deleted.revokedAppTokenIds) await this.appTokens.invalidate(id);
  }

  async list(principal: Principal, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const { search } = parseInput(listFilters, query);
    const rows = await this.stores.list(principal, page, search);
    return toPage(rows, page.limit, presentStoreListItem);
  }

  async get(principal: Principal, storeId: string) {
    const store = await this.stores.findVisibleWithMerchant(principal, visibleId(storeId));
    if (!store) throw new NotFoundError('store');
    return presentStoreWithMerchant(store);
  }

  /**
   * `name` and `configuration` as `sdk.stores.update(id, {name, configuration})` sends them: the
   * configuration's keys change the store's own layer (a value replaces, null returns the key to the
   * merchant's setting); fees are the operator's and refused here.
   */
  async update(principal: Principal, storeId: string, body: unknown) {
    const id = visibleId(storeId);
    const { name, configuration } = parseInput(storeUpdate, body);
    if (name !== undefined && !(await this.stores.update(principal, id, { name })))
      throw new NotFoundError('store');
    const store = configuration
      ? await this.stores.updateConfiguration(principal, id, (stored, merchantConfiguration) => {
          const next = applyPatch(stored, configuration);
          requireCoherent(effectiveConfiguration(merchantConfiguration, next));
          return next as Prisma.InputJsonObject;
        })
      : await this.stores.findVisibleWithMerchant(principal, id);
    if (!store) throw new NotFoundError('store');
    return presentStoreWithMerchant(store);
  }

  /**
   * The customer UUID of a merchant-local customer id: UUIDv5 of the id under the store's id as
   * namespace, so the same (store, id) always gives the same UUID, another store another one, and
   * nothing is stored.
   */
  async createCustomerId(principal: Principal, storeId: string, body: unknown) {
    const id = visibleId(storeId);
    const { customer_id } = parseInput(customerIdRequest, body);
    if (!(await this.stores.findVisible(principal, id))) throw new NotFoundError('store');
    return { customer_id: uuidV5(id, customer_id) };
  }
}

/**
 * What a store's layers must not combine into: a currency's minimum above its maximum (every charge
 * in it refused), or checkout text below the contrast rule on its background (decision 0021).
 */
function requireCoherent(configuration: StoreConfiguration) {
  if (contradictoryLimit(configuration) !== null)
    throw ValidationError.field('configuration.minimum_charge_amounts', 'NOT_WITHIN_BOUNDS');
  const unreadable = unreadableColorPair(configuration.checkout_colors);
  if (unreadable !== null)
    throw ValidationError.field(`configuration.checkout_colors.${unreadable.text}`, 'INSUFFICIENT_CONTRAST');
}

/** A malformed id cannot name anything the caller may see: it answers 404 like any unknown id. */
function visibleId(storeId: string): string {
  if (!storeIdParam.safeParse(storeId).success) throw new NotFoundError('store');
  return storeId.toLowerCase();
}
