import type { StoreWithMerchant } from '@kessai/db';
import { effectiveConfiguration, presentConfiguration } from '@kessai/store-configuration';
import { storeLogoUrl } from '../http/public-base-url';

/**
 * The Store resource (api-reference §5.7). `configuration` is what the store is held to: the
 * defaults, overlaid with its merchant's settings, then its own (docs/configuration.md), and
 * `logo_url` (§5.8) where the store has a logo: the gateway's URL of it under `baseUrl`.
 */
export function presentStoreWithMerchant(store: StoreWithMerchant, baseUrl: string) {
  const logoUrl = storeLogoUrl(baseUrl, store);
  return {
    id: store.id,
    merchant_id: store.merchantId,
    name: store.name,
    updated_on: store.updatedOn.toISOString(),
    created_on: store.createdOn.toISOString(),
    configuration: {
      ...presentConfiguration(effectiveConfiguration(store.merchant.configuration, store.configuration), {
        directCardTokens: store.merchant.pciDssCompliant,
      }),
      ...(logoUrl === null ? {} : { logo_url: logoUrl }),
    },
  };
}

export function presentStoreListItem(store: StoreWithMerchant, baseUrl: string) {
  return { ...presentStoreWithMerchant(store, baseUrl), merchant_name: store.merchant.name };
}
