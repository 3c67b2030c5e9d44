import type { Merchant } from '@kessai/db';
import { effectiveConfiguration, presentConfiguration } from '@kessai/store-configuration';

/**
 * GET /me (api-reference §5.6). `verification_data_id` is left out (optional in the SDK): the
 * merchant's verification is read with GET /verification (docs/merchants.md);
 * `configuration` is the defaults overlaid with the merchant's own settings, as presentConfiguration shows it.
 */
export function presentMerchant(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    verified: merchant.verified,
    updated_on: merchant.updatedOn.toISOString(),
    created_on: merchant.createdOn.toISOString(),
    configuration: presentConfiguration(effectiveConfiguration(merchant.configuration), {
      directCardTokens: merchant.pciDssCompliant,
    }),
  };
}
