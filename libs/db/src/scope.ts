/** Whose data a caller may reach: a merchant token sees the merchant, a store token one store. */
export interface AccessScope {
  merchantId: string;
  storeId: string | null;
}
