import type { Charge, ChargeIssuerTokens, ChargeListItem } from '@kessai/db';
import { formatAmount } from '@kessai/domain';

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The request's three_ds object as stored, field by field. */
function presentThreeDs(value: unknown) {
  if (value === null || value === undefined) return null;
  const threeDs = asObject(value);
  return {
    mode: stringOrNull(threeDs.mode),
    redirect_endpoint: stringOrNull(threeDs.redirect_endpoint),
    redirect_id: stringOrNull(threeDs.redirect_id),
  };
}

function presentRedirect(value: unknown) {
  if (value === null || value === undefined) return null;
  const redirect = asObject(value);
  return { endpoint: stringOrNull(redirect.endpoint), redirect_id: stringOrNull(redirect.redirect_id) };
}

/** The Charge resource (api-reference §5.2). Amounts are minor units; `*_formatted` major units. */
export function presentCharge(charge: Charge) {
  const requestedAmount = Number(charge.requestedAmount);
  const chargedAmount = charge.chargedAmount === null ? null : Number(charge.chargedAmount);
  const chargedCurrency = charge.chargedCurrency;
  return {
    id: charge.id,
    merchant_id: charge.merchantId,
    store_id: charge.storeId,
    ledger_id: null,
    subscription_id: charge.subscriptionId,
    transaction_token_id: charge.transactionTokenId,
    transaction_token_type: charge.transactionTokenType,
    mcp_token_id: null,
    requested_amount: requestedAmount,
    requested_currency: charge.requestedCurrency,
    requested_amount_formatted: formatAmount(requestedAmount, charge.requestedCurrency),
    charged_amount: chargedAmount,
    charged_currency: chargedCurrency,
    charged_amount_formatted:
      chargedAmount === null || chargedCurrency === null
        ? null
        : formatAmount(chargedAmount, chargedCurrency),
    fee_amount: null,
    fee_currency: null,
    fee_amount_formatted: null,
    only_direct_currency: charge.onlyDirectCurrency,
    capture_at: charge.captureAt?.toISOString() ?? null,
    capture_status: charge.captureStatus,
    descriptor: charge.descriptor,
    status: charge.status,
    error:
      charge.errorCode === null
        ? null
        : { code: charge.errorCode, message: charge.errorMessage, detail: charge.errorDetail },
    three_ds: presentThreeDs(charge.threeDs),
    redirect: presentRedirect(charge.redirect),
    metadata: charge.metadata ?? {},
    mode: charge.mode,
    created_on: charge.createdOn.toISOString(),
  };
}

export function presentChargeListItem(charge: ChargeListItem) {
  return {
    ...presentCharge(charge),
    merchant_name: charge.store.merchant.name,
    store_name: charge.store.name,
  };
}

/**
 * GET .../issuer_token: where the customer pays an online/QR charge. Picked field by field from what
 * charge-service stored (StoredIssuerToken), so nothing stored for processing only is shown.
 */
export function presentIssuerToken(charge: ChargeIssuerTokens, stored: unknown) {
  const token = asObject(stored);
  return {
    issuer_token: stringOrNull(token.issuer_token),
    call_method: stringOrNull(token.call_method),
    payload: token.payload ?? null,
    payment_type: charge.paymentType,
  };
}

/** GET .../three_ds/issuer_token (ThreeDsIssuerToken): the issuer's page the customer authenticates on. */
export function presentThreeDsIssuerToken(charge: ChargeIssuerTokens, stored: unknown) {
  const token = asObject(stored);
  return {
    issuer_token: stringOrNull(token.issuer_token),
    call_method: stringOrNull(token.call_method),
    payload: asObject(token.payload),
    payment_type: charge.paymentType,
    content_type: stringOrNull(token.content_type),
  };
}
