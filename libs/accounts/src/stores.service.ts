import { Inject, Injectable } from '@nestjs/common';
import { MerchantsRepository, StoresRepository, type Prisma } from '@kessai/db';
import {
  LOGO_MAX_BYTES,
  logoContentType,
  NotFoundError,
  PermissionError,
  ValidationError,
  uuidV5,
} from '@kessai/domain';
import { parsePageRequest, presentPage } from '../http/pagination';
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
import { FormFile, formInput } from '../http/form-body';
import { parseInput } from '../http/validation';
import { presentStoreListItem, presentStoreWithMerchant } from './store.presenter';
import { LOGGER, type Logger } from '@kessai/observability';

const storeIdParam = z.string().uuid();
/**
 * A logo as the SDK sends a Blob: a file of a multipart/form-data body (http/form-body.ts). Any other
 * value (text, JSON) is refused; null removes the store's logo.
 */
const logoUpload = z
  .custom<FormFile | null>((logo) => logo === null || logo instanceof FormFile, {
    params: { reason: 'INVALID_FORMAT' },
  })
  .optional();
/** `sdk.stores.update`, as JSON or, with a logo, as multipart/form-data. */
export const storeUpdate = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    configuration: merchantConfigurationPatchSchema.optional(),
    logo: logoUpload,
  })
  .strict();
/** `sdk.stores.create`, as JSON or, with a logo, as multipart/form-data. */
export const storeCreation = z
  .object({
    name: z.string().trim().min(1).max(100),
    configuration: merchantConfigurationPatchSchema.optional(),
    logo: logoUpload,
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
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * POST /stores: merchant credentials only (a store token names a store already). A logo comes
   * with the store or not at all (one transaction).
   */
  async create(principal: Principal, body: unknown, baseUrl: string) {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    const { name, configuration, logo } = parseInput(storeCreation, formInput(storeCreation, body));
    const newLogo = logo ? checkedLogo(logo) : undefined;
    const merchant = await this.merchants.findById(principal.merchantId);
    if (!merchant) throw new NotFoundError('merchant');
    const stored = configuration ? applyPatch({}, configuration) : {};
    requireCoherent(effectiveConfiguration(merchant.configuration, stored));
    const store = await this.stores.create({
      merchantId: principal.merchantId,
      name,
      configuration: stored as Prisma.InputJsonObject,
      logo: newLogo,
    });
    return presentStoreWithMerchant(
      {
        ...store,
        merchant: { name: merchant.name, configuration: merchant.configuration },
        logo: newLogo ? { digest: newLogo.digest } : null,
      },
      baseUrl,
    );
  }

  /**
   * DELETE /stores/{id}: merchant credentials only. The store is deactivated (docs/stores.md): it
   * and its app tokens stop working at once on every gateway; its subscriptions are canceled and its
   * transaction tokens deactivated, with their events; its charges stay readable and refundable with
   * the merchant's credentials.
   */
  async delete(principal: Principal, storeId: string, context: { correlationId: string }): Promise<void> {
    if (principal.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    const deleted = await this.stores.delete(principal.merchantId, visibleId(storeId), context);
    if (!deleted) throw new NotFoundError('store');
    for (const id of deleted.revokedAppTokenIds) await this.appTokens.invalidate(id);
    this.logger.info(
      {
        storeId,
        appTokensRevoked: deleted.revokedAppTokenIds.length,
        subscriptionsCanceled: deleted.subscriptionsCanceled,
        tokensDeactivated: deleted.tokensDeactivated,
      },
      'store deleted',
    );
  }

  async list(principal: Principal, query: Record<string, unknown>, baseUrl: string) {
    const page = parsePageRequest(query);
    const { search } = parseInput(listFilters, query);
    const rows = await this.stores.list(principal, page, search);
    return presentPage(rows, page, (store) => presentStoreListItem(store, baseUrl));
  }

  async get(principal: Principal, storeId: string, baseUrl: string) {
    const store = await this.stores.findVisibleWithMerchant(principal, visibleId(storeId));
    if (!store) throw new NotFoundError('store');
    return presentStoreWithMerchant(store, baseUrl);
  }

  /**
   * `name`, `configuration` and `logo` as `sdk.stores.update(id, {name, configuration, logo})` sends
   * them: the configuration's keys change the store's own layer (a value replaces, null returns the
   * key to the merchant's setting; fees are the operator's and refused here); a logo file replaces
   * the store's logo, `logo: null` removes it. All of it is written or, when a part is refused, none.
   */
  async update(principal: Principal, storeId: string, body: unknown, baseUrl: string) {
    const id = visibleId(storeId);
    const { name, configuration, logo } = parseInput(storeUpdate, formInput(storeUpdate, body));
    const store = await this.stores.change(principal, id, {
      name,
      configuration: configuration
        ? (stored, merchantConfiguration) => {
            const next = applyPatch(stored, configuration);
            requireCoherent(effectiveConfiguration(merchantConfiguration, next));
            return next as Prisma.InputJsonObject;
          }
        : undefined,
      logo: logo === undefined ? undefined : logo === null ? null : checkedLogo(logo),
    });
    if (!store) throw new NotFoundError('store');
    return presentStoreWithMerchant(store, baseUrl);
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
 * An uploaded logo as stored (decision 0021): a PNG, JPEG or WebP by its magic bytes (never by the
 * file name or the declared type), of at most LOGO_MAX_BYTES; otherwise 400 with UnivaPay's codes for
 * an upload, FILE_MAX_SIZE_EXCEEDED or FILE_INVALID_TYPE, on `logo`.
 */
function checkedLogo(file: FormFile) {
  if (file.truncated || file.size > LOGO_MAX_BYTES)
    throw new ValidationError(
      [{ field: 'logo', reason: 'FILE_MAX_SIZE_EXCEEDED' }],
      'FILE_MAX_SIZE_EXCEEDED',
    );
  const contentType = logoContentType(file.bytes);
  if (contentType === null)
    throw new ValidationError([{ field: 'logo', reason: 'FILE_INVALID_TYPE' }], 'FILE_INVALID_TYPE');
  return { contentType, image: file.bytes, digest: file.sha256 };
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
