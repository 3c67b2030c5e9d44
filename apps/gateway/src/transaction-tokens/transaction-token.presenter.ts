import type { TransactionToken, TransactionTokenListItem } from '@kessai/db';

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

/**
 * The response `data` of a token (api-reference §5.1), picked field by field from what was stored,
 * so nothing stored for processing only (such as a qr_scan code) is ever shown.
 */
function presentData(token: TransactionToken): Json {
  const data = asObject(token.data);
  switch (token.paymentType) {
    case 'card':
      return {
        card: data.card ?? null,
        billing: data.billing ?? null,
        cvv_authorize: data.cvv_authorize ?? { enabled: false, status: 'inactive' },
        three_ds: data.three_ds ?? null,
      };
    case 'online':
      return {
        brand: data.brand ?? null,
        call_method: data.call_method ?? null,
        user_identifier: data.user_identifier ?? null,
        gateway: data.gateway ?? null,
      };
    case 'qr_scan':
      return { brand: data.brand ?? null, gateway: data.gateway ?? null };
    case 'konbini':
    case 'apple_pay':
    case 'paidy':
    case 'qr_merchant':
    case 'bank_transfer':
      return {};
  }
}

export function presentToken(token: TransactionToken) {
  return {
    id: token.id,
    store_id: token.storeId,
    email: token.email,
    active: token.active,
    mode: token.mode,
    type: token.type,
    payment_type: token.paymentType,
    usage_limit: token.usageLimit,
    confirmed: token.confirmed,
    previous_id: token.previousId,
    used_count: token.usedCount,
    created_on: token.createdOn.toISOString(),
    updated_on: token.updatedOn.toISOString(),
    last_used_on: token.lastUsedOn?.toISOString() ?? null,
    data: presentData(token),
    metadata: token.metadata ?? {},
  };
}

export function presentTokenListItem(token: TransactionTokenListItem) {
  return { ...presentToken(token), merchant_name: token.store.merchant.name, store_name: token.store.name };
}
