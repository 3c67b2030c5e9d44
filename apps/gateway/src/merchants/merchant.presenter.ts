import type { Merchant } from '@kessai/db';

export function presentMerchant(merchant: Merchant) {
  return {
    id: merchant.id,
    verification_data_id: null,
    name: merchant.name,
    email: merchant.email,
    verified: merchant.verified,
    created_on: merchant.createdOn.toISOString(),
    configuration: merchant.configuration ?? {},
  };
}
