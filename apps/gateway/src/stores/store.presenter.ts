import type { Prisma, Store, StoreWithMerchant } from '@kessai/db';
import { effectiveConfiguration } from '@kessai/store-configuration';

/**
 * The Store resource (api-reference §5.7). `configuration` is what the store is held to: the
 * defaults, overlaid with its merchant's settings, then its own (docs/configuration.md).
 */
export function presentStore(store: Store, merchantConfiguration: Prisma.JsonValue) {
  return {
    id: store.id,
    merchant_id: store.merchantId,
    name: store.name,
    updated_on: store.updatedOn.toISOString(),
    created_on: store.createdOn.toISOString(),
    configuration: effectiveConfiguration(merchantConfiguration, store.configuration),
  };
}

export function presentStoreWithMerchant(store: StoreWithMerchant) {
  return presentStore(store, store.merchant.configuration);
}

export function presentStoreListItem(store: StoreWithMerchant) {
  return { ...presentStoreWithMerchant(store), merchant_name: store.merchant.name };
}
