import type { TransactionToken, TransactionTokenListItem } from '@kessai/db';
import { optionalField } from './optional-field';

type Json = Record<string, unknown>;

/** The bank behind each BankTransferBrand (the simulator's test bank answers to the same codes). */
const BANK_OF_BRAND: Record<string, { code: string; name: string }> = {
  bank_test_brand: { code: '9999', name: 'Kessai Test Bank' },
  aozora_bank: { code: '0310', name: 'GMO Aozora Net Bank' },
};

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

/**
 * A card token's `cvv_authorize` (api-reference §5.1; docs/transaction-tokens.md, "CVV
 * authorization"): `credentials_id` is required by the SDK's type, so it is always there (`null`:
 * the authorization, if any, ran at the mode's default processor, which is no processor account);
 * the attempt, processor reference and error are Kessai's own.
 */
function presentCvvAuthorize(value: unknown) {
  const cvvAuthorize = asObject(value);
  return {
    enabled: cvvAuthorize.enabled ?? false,
    status: cvvAuthorize.status ?? 'inactive',
    credentials_id: cvvAuthorize.credentials_id ?? null,
    ...optionalField('charge_id', cvvAuthorize.charge_id),
    ...optionalField('currency', cvvAuthorize.currency),
  };
}

/** A card token's `three_ds` as stored, field by field (all but `enabled` and `status` optional). */
function presentThreeDs(value: unknown) {
  if (value === null || value === undefined) return null;
  const threeDs = asObject(value);
  return {
    enabled: threeDs.enabled ?? false,
    status: threeDs.status ?? null,
    ...optionalField('mode', threeDs.mode),
    ...optionalField('redirect_endpoint', threeDs.redirect_endpoint),
    ...optionalField('redirect_id', threeDs.redirect_id),
    ...optionalField('error', threeDs.error),
    ...optionalField('exempted', threeDs.exempted),
  };
}

/**
 * The response `data` of a token (api-reference §5.1), picked field by field from what was stored,
 * so nothing stored for processing only (such as a qr_scan code) is ever shown. Optional fields
 * without a value are left out rather than `null`.
 */
function presentData(token: TransactionToken): Json {
  const data = asObject(token.data);
  switch (token.paymentType) {
    case 'card':
      return {
        card: data.card ?? null,
        ...optionalField('billing', data.billing),
        cvv_authorize: presentCvvAuthorize(data.cvv_authorize),
        ...optionalField('three_ds', presentThreeDs(data.three_ds)),
      };
    case 'online':
      return {
        brand: data.brand ?? null,
        ...optionalField('call_method', data.call_method),
        ...optionalField('user_identifier', data.user_identifier),
        ...optionalField('gateway', data.gateway),
      };
    // a merchant-presented code's token shows its wallet as a scanned code's does (the SDK's QR data item)
    case 'qr_scan':
    case 'qr_merchant':
      return { brand: data.brand ?? null, ...optionalField('gateway', data.gateway) };
    case 'konbini':
      return {
        convenience_store: data.convenience_store ?? null,
        customer_name: data.customer_name ?? null,
        phone_number: data.phone_number ?? null,
        ...optionalField('expiration_period', data.expiration_period),
        ...optionalField('expiration_time_shift', data.expiration_time_shift),
      };
    case 'bank_transfer': {
      // the virtual account is given out with the token's (one) charge: null until then; the bank
      // is the brand's until the processor named the account's
      const account = asObject(data.virtual_bank_account);
      const bank = BANK_OF_BRAND[String(data.brand)];
      return {
        account_holder_name: account.account_holder_name ?? null,
        account_id: account.account_id ?? null,
        account_number: account.account_number ?? null,
        bank_code: account.bank_code ?? bank?.code ?? null,
        bank_name: account.bank_name ?? bank?.name ?? null,
        branch_code: account.branch_code ?? null,
        branch_name: account.branch_name ?? null,
        brand: data.brand ?? null,
        ...optionalField('expiration_period', data.expiration_period),
        ...optionalField('expiration_time_shift', data.expiration_time_shift),
      };
    }
    // Apple Pay's payment data is the processor's ciphertext: nothing of it is shown
    case 'apple_pay':
      return {};
    case 'paidy':
      return {
        paidy_token: data.paidy_token ?? null,
        ...optionalField('phone_number', data.phone_number),
        shipping_address: data.shipping_address ?? null,
      };
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
    // absent without one (not recurring, or recurring without a limit): the SDK types it optional
    ...optionalField('usage_limit', token.usageLimit),
    ...optionalField('confirmed', token.confirmed),
    ...optionalField('previous_id', token.previousId),
    used_count: token.usedCount,
    created_on: token.createdOn.toISOString(),
    updated_on: token.updatedOn.toISOString(),
    // a token never charged was last used when it was created (the SDK types a timestamp: decision 0044)
    last_used_on: (token.lastUsedOn ?? token.createdOn).toISOString(),
    data: presentData(token),
    metadata: token.metadata ?? {},
  };
}

export function presentTokenListItem(token: TransactionTokenListItem) {
  return { ...presentToken(token), merchant_name: token.store.merchant.name, store_name: token.store.name };
}
