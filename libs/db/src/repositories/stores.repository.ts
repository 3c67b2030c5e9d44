import { Injectable } from '@nestjs/common';
import { ConflictError, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import { FIND_STORE_TOKEN_SETTINGS } from '../sql/stores.sql';
import type { AccessScope } from './scope';

export type StoreWithMerchant = Store & { merchant: Pick<Merchant, 'name' | 'configuration'> };

/** How many times a configuration change is retried when another change overtook its read. */
const CONFIGURATION_UPDATE_ATTEMPTS = 5;

/** What creating a transaction token needs of its store and merchant. */
export interface StoreTokenSettings {
  pciDssCompliant: boolean;
  storeConfiguration: Prisma.JsonValue;
  merchantConfiguration: Prisma.JsonValue;
}

/** The stores a scope may see: its merchant's (or its one store), never a deleted one. */
function storeScope(scope: AccessScope) {
  return scope.storeId
    ? { merchantId: scope.merchantId, id: scope.storeId, deletedOn: null }
    : { merchantId: scope.merchantId, deletedOn: null };
}

/** What deleting a store changed besides the store: the app tokens it revoked. */
export interface StoreDeletion {
  revokedAppTokenIds: string[];
}

@Injectable()
export class StoresRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The store if the scope may see it; null for missing, deleted and foreign stores alike. */
  findVisible(scope: AccessScope, id: string): Promise<Store | null> {
    if (scope.storeId && scope.storeId !== id) return Promise.resolve(null);
    return this.prisma.store.findFirst({ where: { id, merchantId: scope.merchantId, deletedOn: null } });
  }

  /** The store if the scope may see it, with its merchant's name and configuration (its lower layer). */
  findVisibleWithMerchant(scope: AccessScope, id: string): Promise<StoreWithMerchant | null> {
    if (scope.storeId && scope.storeId !== id) return Promise.resolve(null);
    return this.prisma.store.findFirst({
      where: { id, merchantId: scope.merchantId, deletedOn: null },
      include: { merchant: { select: { name: true, configuration: true } } },
    });
  }

  /**
   * Replaces a visible store's stored configuration with `change(stored)`, never over a change made
   * since it was read (the update is conditional on the configuration read; retried on the fresh
   * row); null when the scope may not see the store. `change` may throw to refuse; nothing is written then.
   */
  async updateConfiguration(
    scope: AccessScope,
    id: string,
    change: (stored: Prisma.JsonValue, merchantConfiguration: Prisma.JsonValue) => Prisma.InputJsonObject,
  ): Promise<StoreWithMerchant | null> {
    for (let attempt = 1; ; attempt++) {
      const store = await this.findVisibleWithMerchant(scope, id);
      if (!store) return null;
      const configuration = change(store.configuration, store.merchant.configuration);
      const { count } = await this.prisma.store.updateMany({
        where: {
          id,
          merchantId: scope.merchantId,
          deletedOn: null,
          configuration: { equals: store.configuration as Prisma.InputJsonValue },
        },
        data: { configuration },
      });
      if (count === 1) return this.findVisibleWithMerchant(scope, id);
      if (attempt >= CONFIGURATION_UPDATE_ATTEMPTS) throw new ConflictError('CONFLICTED');
    }
  }

  /**
   * What creating a transaction token needs of its store and merchant, in one plain query (POST
   * /tokens' hot path); null when the store is not the merchant's.
   */
  async findTokenSettings(merchantId: string, storeId: string): Promise<StoreTokenSettings | null> {
    const row = (await this.prisma.run(FIND_STORE_TOKEN_SETTINGS, { storeId, merchantId }))[0];
    return row
      ? {
          pciDssCompliant: row.pci_dss_compliant,
          storeConfiguration: row.store_configuration,
          merchantConfiguration: row.merchant_configuration,
        }
      : null;
  }

  findById(id: string): Promise<Store | null> {
    return this.prisma.store.findUnique({ where: { id } });
  }

  /** The merchant's store of that name that is not deleted (names are unique among those). */
  findByName(merchantId: string, name: string): Promise<Store | null> {
    return this.prisma.store.findFirst({ where: { merchantId, name, deletedOn: null } });
  }

  list(scope: AccessScope, page: PageRequest, search?: string): Promise<StoreWithMerchant[]> {
    const where = {
      ...storeScope(scope),
      ...(search ? { name: { contains: search, mode: 'insensitive' as const } } : {}),
    };
    return listPage(page, where, {
      findCursor: (w) => this.prisma.store.findFirst({ where: w, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.store.findMany({
          ...args,
          include: { merchant: { select: { name: true, configuration: true } } },
        }),
    });
  }

  /** Updates a store the scope may see; null when it may not (or it does not exist). */
  async update(scope: AccessScope, id: string, changes: { name?: string }): Promise<Store | null> {
    if (scope.storeId && scope.storeId !== id) return null;
    try {
      const { count } = await this.prisma.store.updateMany({
        where: { id, merchantId: scope.merchantId, deletedOn: null },
        data: changes,
      });
      return count === 0 ? null : await this.findById(id);
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError('STORE_EXISTS');
      }
      throw error;
    }
  }

  /** A new store; 409 STORE_EXISTS when the merchant has a store of that name (not deleted). */
  async create(input: {
    merchantId: string;
    name: string;
    configuration?: Prisma.InputJsonObject;
  }): Promise<Store> {
    try {
      return await this.prisma.store.create({ data: input });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError('STORE_EXISTS');
      }
      throw error;
    }
  }

  /**
   * Deletes a store the merchant owns: it is deactivated, never removed (its charges, refunds and
   * events are the merchant's records). In one transaction: `deleted_on` set, its app tokens
   * revoked, its webhooks and active transaction tokens deactivated. Null when the merchant has no
   * such store (or it is deleted already).
   */
  async delete(merchantId: string, id: string, at = new Date()): Promise<StoreDeletion | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.store.updateMany({
        where: { id, merchantId, deletedOn: null },
        data: { deletedOn: at },
      });
      if (count === 0) return null;
      const revoked = await tx.appToken.updateManyAndReturn({
        where: { storeId: id, revokedOn: null },
        data: { revokedOn: at },
        select: { id: true },
      });
      await tx.webhook.updateMany({ where: { storeId: id, active: true }, data: { active: false } });
      await tx.transactionToken.updateMany({ where: { storeId: id, active: true }, data: { active: false } });
      return { revokedAppTokenIds: revoked.map((token) => token.id) };
    });
  }
}
