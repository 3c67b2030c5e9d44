import { Injectable } from '@nestjs/common';
import { ConflictError, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import { FIND_STORE_TOKEN_SETTINGS } from '../sql/stores.sql';
import type { AccessScope } from './scope';

export type StoreWithMerchant = Store & { merchant: Pick<Merchant, 'name'> };

/** What creating a transaction token needs of its store and merchant. */
export interface StoreTokenSettings {
  pciDssCompliant: boolean;
  storeConfiguration: Prisma.JsonValue;
  merchantConfiguration: Prisma.JsonValue;
}

function storeScope(scope: AccessScope) {
  return scope.storeId
    ? { merchantId: scope.merchantId, id: scope.storeId }
    : { merchantId: scope.merchantId };
}

@Injectable()
export class StoresRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The store if the scope may see it; null for missing and foreign stores alike. */
  findVisible(scope: AccessScope, id: string): Promise<Store | null> {
    if (scope.storeId && scope.storeId !== id) return Promise.resolve(null);
    return this.prisma.store.findFirst({ where: { id, merchantId: scope.merchantId } });
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

  findByName(merchantId: string, name: string): Promise<Store | null> {
    return this.prisma.store.findUnique({ where: { merchantId_name: { merchantId, name } } });
  }

  list(scope: AccessScope, page: PageRequest, search?: string): Promise<StoreWithMerchant[]> {
    const where = {
      ...storeScope(scope),
      ...(search ? { name: { contains: search, mode: 'insensitive' as const } } : {}),
    };
    return listPage(page, where, {
      findCursor: (w) => this.prisma.store.findFirst({ where: w, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.store.findMany({ ...args, include: { merchant: { select: { name: true } } } }),
    });
  }

  /** Updates a store the scope may see; null when it may not (or it does not exist). */
  async update(scope: AccessScope, id: string, changes: { name?: string }): Promise<Store | null> {
    if (scope.storeId && scope.storeId !== id) return null;
    try {
      const { count } = await this.prisma.store.updateMany({
        where: { id, merchantId: scope.merchantId },
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

  create(input: { merchantId: string; name: string }): Promise<Store> {
    return this.prisma.store.create({ data: input });
  }
}
