/** Whose data a caller may reach: a merchant token sees the merchant, a store token one store. */
export interface AccessScope {
  merchantId: string;
  storeId: string | null;
}

/** The scope as a filter on a row of merchant_id and store_id (a Prisma where). */
export function scopeWhere(scope: AccessScope): { merchantId: string; storeId?: string } {
  return { merchantId: scope.merchantId, ...(scope.storeId ? { storeId: scope.storeId } : {}) };
}
