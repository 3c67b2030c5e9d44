import { Injectable } from '@nestjs/common';
import { Prisma, type CheckoutProduct } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import { checkoutScope } from './checkout-forms.repository';
import type { AccessScope } from '../scope';

export type { CheckoutProduct };

export type NewCheckoutProduct = Omit<
  Prisma.CheckoutProductUncheckedCreateInput,
  'id' | 'createdOn' | 'updatedOn'
>;

export type CheckoutProductChanges = Omit<
  Prisma.CheckoutProductUncheckedUpdateInput,
  'id' | 'merchantId' | 'storeId' | 'createdOn' | 'updatedOn'
>;

/** Another product of the store already has this code. */
export class ProductCodeTakenError extends Error {
  constructor(readonly code: string) {
    super(`a product of this store already has the code ${code}`);
    this.name = 'ProductCodeTakenError';
  }
}

function codeTaken(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

/**
 * The products a store sells through checkout links (docs/hosted-checkout.md). Written by the operator
 * (admin CLI); a code is unique in its store (checkout_products_store_id_code_key).
 */
@Injectable()
export class CheckoutProductsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(product: NewCheckoutProduct): Promise<CheckoutProduct> {
    try {
      return await this.prisma.checkoutProduct.create({ data: product });
    } catch (error) {
      if (codeTaken(error) && product.code) throw new ProductCodeTakenError(product.code);
      throw error;
    }
  }

  findById(id: string): Promise<CheckoutProduct | null> {
    return this.prisma.checkoutProduct.findUnique({ where: { id } });
  }

  findInScope(scope: AccessScope, id: string): Promise<CheckoutProduct | null> {
    return this.prisma.checkoutProduct.findFirst({ where: { id, ...checkoutScope(scope) } });
  }

  findByCode(scope: AccessScope, code: string): Promise<CheckoutProduct | null> {
    return this.prisma.checkoutProduct.findFirst({ where: { code, ...checkoutScope(scope) } });
  }

  /** Those of `ids` that are the store's (any order; missing and foreign ones are left out). */
  findManyInStore(storeId: string, ids: string[]): Promise<CheckoutProduct[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.prisma.checkoutProduct.findMany({ where: { storeId, id: { in: ids } } });
  }

  listForStore(storeId: string): Promise<CheckoutProduct[]> {
    return this.prisma.checkoutProduct.findMany({
      where: { storeId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  async update(id: string, changes: CheckoutProductChanges): Promise<CheckoutProduct | null> {
    try {
      const updated = await this.prisma.checkoutProduct.updateMany({ where: { id }, data: changes });
      return updated.count === 0 ? null : this.findById(id);
    } catch (error) {
      if (codeTaken(error) && typeof changes.code === 'string') throw new ProductCodeTakenError(changes.code);
      throw error;
    }
  }
}
