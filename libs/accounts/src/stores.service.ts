import { Inject, Injectable } from '@nestjs/common';
import {
  MerchantsRepository,
  StoresRepository,
  type AccessScope,
  type AuditedWrite,
  type NewStoreLogo,
  type Prisma,
  type StoreWithMerchant,
} from '@kessai/db';
import {
  isUuid,
  LOGO_MAX_BYTES,
  logoContentType,
  NotFoundError,
  PermissionError,
  ValidationError,
  uuidV5,
  type PageRequest,
} from '@kessai/domain';
import { LOGGER, type Correlation, type Logger } from '@kessai/observability';
import {
  applyPatch,
  contradictoryLimit,
  effectiveConfiguration,
  unreadableColorPair,
  type StoreConfiguration,
} from '@kessai/store-configuration';
import { AppTokenChanges } from './app-token-changes';
import type { LogoUpload, StoreChangesInput, StoreInput } from './store-inputs';

/** A merchant acting on all its stores: what creating and deleting a store needs. */
export interface MerchantScope extends AccessScope {
  storeId: null;
}

/**
 * The store use cases (api-reference §5.7), for the gateway, the console's Settings page and any
 * other front end: create, read and list, change the name, the configuration (the store's own
 * layer, docs/configuration.md) and the logo, delete (deactivate), and the customer UUID of a
 * merchant-local id. Answers are rows, which each front end presents; a malformed store id is the
 * same 404 as an unknown one.
 */
@Injectable()
export class StoresService {
  constructor(
    private readonly stores: StoresRepository,
    private readonly merchants: MerchantsRepository,
    private readonly appTokens: AppTokenChanges,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Creating and deleting stores is for merchant-wide credentials: a store's own are 403. */
  merchantOf(scope: AccessScope): MerchantScope {
    if (scope.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return { merchantId: scope.merchantId, storeId: null };
  }

  /** A new store of the merchant; a logo comes with it or not at all (one transaction). */
  async create(merchant: MerchantScope, request: StoreInput): Promise<StoreWithMerchant> {
    const newLogo = request.logo ? checkedLogo(request.logo) : undefined;
    const found = await this.merchants.findById(merchant.merchantId);
    if (!found) throw new NotFoundError('merchant');
    const stored = request.configuration ? applyPatch({}, request.configuration) : {};
    requireCoherent(effectiveConfiguration(found.configuration, stored));
    const store = await this.stores.create({
      merchantId: merchant.merchantId,
      name: request.name,
      configuration: stored as Prisma.InputJsonObject,
      logo: newLogo,
    });
    return {
      ...store,
      merchant: {
        name: found.name,
        configuration: found.configuration,
        pciDssCompliant: found.pciDssCompliant,
      },
      logo: newLogo ? { digest: newLogo.digest } : null,
    };
  }

  /**
   * Deactivates the store (docs/stores.md): it and its app tokens stop working at once on every
   * gateway (the revocations are announced); its subscriptions are canceled and its transaction
   * tokens deactivated, with their events; its charges stay readable and refundable with the
   * merchant's credentials. Answers the app tokens it revoked.
   */
  async delete(
    merchant: MerchantScope,
    storeId: string,
    correlation: Correlation,
  ): Promise<{ revokedAppTokenIds: string[] }> {
    const deleted = await this.stores.delete(merchant.merchantId, visibleId(storeId), correlation);
    if (!deleted) throw new NotFoundError('store');
    for (const id of deleted.revokedAppTokenIds) await this.appTokens.announce(id);
    this.logger.info(
      {
        storeId,
        appTokensRevoked: deleted.revokedAppTokenIds.length,
        subscriptionsCanceled: deleted.subscriptionsCanceled,
        tokensDeactivated: deleted.tokensDeactivated,
      },
      'store deleted',
    );
    return { revokedAppTokenIds: deleted.revokedAppTokenIds };
  }

  /** A page of the stores the scope may see, `search` narrowing them by name. */
  list(scope: AccessScope, page: PageRequest, search?: string): Promise<StoreWithMerchant[]> {
    return this.stores.list(scope, page, search);
  }

  async find(scope: AccessScope, storeId: string): Promise<StoreWithMerchant> {
    const store = await this.stores.findVisibleWithMerchant(scope, visibleId(storeId));
    if (!store) throw new NotFoundError('store');
    return store;
  }

  /**
   * A store's name, configuration and logo, as `sdk.stores.update(id, {name, configuration, logo})`
   * sends them: the configuration's keys change the store's own layer (a value replaces, null
   * returns the key to the merchant's setting); a logo replaces the store's, null removes it. All of
   * it is written or, when a part is refused, none; `options.audit` (a console write): its row in the
   * same transaction, when something was written.
   */
  async update(
    scope: AccessScope,
    storeId: string,
    request: StoreChangesInput,
    options: AuditedWrite = {},
  ): Promise<StoreWithMerchant> {
    const id = visibleId(storeId);
    const { configuration, logo } = request;
    const store = await this.stores.change(
      scope,
      id,
      {
        name: request.name,
        configuration: configuration
          ? (stored, merchantConfiguration) => {
              const next = applyPatch(stored, configuration);
              requireCoherent(effectiveConfiguration(merchantConfiguration, next));
              return next as Prisma.InputJsonObject;
            }
          : undefined,
        logo: logo === undefined ? undefined : logo === null ? null : checkedLogo(logo),
      },
      options.audit,
    );
    if (!store) throw new NotFoundError('store');
    return store;
  }

  /**
   * The customer UUID of a merchant-local customer id: UUIDv5 of the id under the store's id as
   * namespace, so the same (store, id) always gives the same UUID, another store another one, and
   * nothing is stored.
   */
  async customerId(scope: AccessScope, storeId: string, customerId: string): Promise<string> {
    const id = visibleId(storeId);
    if (!(await this.stores.findVisible(scope, id))) throw new NotFoundError('store');
    return uuidV5(id, customerId);
  }
}

/**
 * An uploaded logo as stored (decision 0021): a PNG, JPEG or WebP by its magic bytes (never by the
 * file name or the declared type), of at most LOGO_MAX_BYTES; otherwise 400 with UnivaPay's codes for
 * an upload, FILE_MAX_SIZE_EXCEEDED or FILE_INVALID_TYPE, on `logo`.
 */
export function checkedLogo(file: LogoUpload): NewStoreLogo {
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
  if (!isUuid(storeId)) throw new NotFoundError('store');
  return storeId.toLowerCase();
}
