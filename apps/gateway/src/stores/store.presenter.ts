import type { Store, StoreWithMerchant } from '@kessai/db';

export function presentStore(store: Store) {
  return {
    id: store.id,
    merchant_id: store.merchantId,
    name: store.name,
    created_on: store.createdOn.toISOString(),
    configuration: store.configuration ?? {},
  };
}

export function presentStoreListItem(store: StoreWithMerchant) {
  return { ...presentStore(store), merchant_name: store.merchant.name };
}
