import { Injectable } from '@nestjs/common';
import type { CheckoutForm, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import type { AccessScope } from '../scope';

export type { CheckoutForm };

/** What the operator gives for a new form: its store, its app token and its design. */
export type NewCheckoutForm = Omit<Prisma.CheckoutFormUncheckedCreateInput, 'id' | 'createdOn' | 'updatedOn'>;

/** The fields of a form's design the operator may change (not its store, app token or mode). */
export type CheckoutFormChanges = Omit<
  Prisma.CheckoutFormUncheckedUpdateInput,
  'id' | 'merchantId' | 'storeId' | 'appTokenId' | 'mode' | 'createdOn' | 'updatedOn'
>;

/** Of the scope: its merchant's rows, or its one store's. */
export function checkoutScope(scope: AccessScope) {
  return scope.storeId
    ? { merchantId: scope.merchantId, storeId: scope.storeId }
    : { merchantId: scope.merchantId };
}

/**
 * Hosted checkout form designs (docs/hosted-checkout.md). Written by the operator (admin CLI), read
 * by the API within the caller's scope: another merchant's form and a missing one are the same null.
 */
@Injectable()
export class CheckoutFormsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(form: NewCheckoutForm): Promise<CheckoutForm> {
    return this.prisma.checkoutForm.create({ data: form });
  }

  findById(id: string): Promise<CheckoutForm | null> {
    return this.prisma.checkoutForm.findUnique({ where: { id } });
  }

  findInScope(scope: AccessScope, id: string): Promise<CheckoutForm | null> {
    return this.prisma.checkoutForm.findFirst({ where: { id, ...checkoutScope(scope) } });
  }

  /** A store's forms, newest first. */
  listForStore(storeId: string): Promise<CheckoutForm[]> {
    return this.prisma.checkoutForm.findMany({
      where: { storeId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /** Changes the given fields; null when there is no such form. */
  async update(id: string, changes: CheckoutFormChanges): Promise<CheckoutForm | null> {
    const updated = await this.prisma.checkoutForm.updateMany({ where: { id }, data: changes });
    return updated.count === 0 ? null : this.findById(id);
  }
}
