import type { Charge, ChargeIssuerTokens, ChargeListItem } from '@kessai/db';
import { formatAmount } from '@kessai/domain';
import { optionalField } from './optional-field';
import { presentPaymentError } from './payment-error.presenter';

type Json = Record<string, unknown>;

const asObject = (value: unknown): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The request's three_ds object as stored, field by field (each optional in the SDK's type). */
export function presentThreeDs(value: unknown) {
  if (value === null || value === undefined) return null;
  const threeDs = asObject(value);
  return {
    ...optionalField('mode', stringOrNull(threeDs.mode)),
    ...optionalField('redirect_endpoint', stringOrNull(threeDs.redirect_endpoint)),
    ...optionalField('redirect_id', stringOrNull(threeDs.redirect_id)),
  };
}

function presentRedirect(value: unknown) {
  if (value === null || value === undefined) return null;
  const redirect = asObject(value);
  return {
    ...optionalField('endpoint', stringOrNull(redirect.endpoint)),
    ...optionalField('redirect_id', stringOrNull(redirect.redirect_id)),
  };
}

/**
 * The Charge resource (api-reference §5.2). Amounts are minor units; `*_formatted` major units.
 * Optional fields without a value are left out (`ledger_id` until the ledger posts the charge's
 * sale, decision 0052; `mcp_token_id` always: Kessai has no multi-currency pricing tokens);
 * `error`, `charged_*` and `fee_*` are `null` then,
 * as the reference shows them (decisions 0036 and 0044). `descriptor` is `""` on a charge created
 * without one.
 */
export function presentCharge(charge: Charge) {
  const requestedAmount = Number(charge.requestedAmount);
  const chargedAmount = charge.chargedAmount === null ? null : Number(charge.chargedAmount);
  const chargedCurrency = charge.chargedCurrency;
  const feeAmount = charge.feeAmount === null ? null : Number(charge.feeAmount);
  return {
    id: charge.id,
    merchant_id: charge.merchantId,
    store_id: charge.storeId,
    ...optionalField('subscription_id', charge.subscriptionId),
    transaction_token_id: charge.transactionTokenId,
    transaction_token_type: charge.transactionTokenType,
    requested_amount: requestedAmount,
    requested_currency: charge.requestedCurrency,
    requested_amount_formatted: formatAmount(requestedAmount, charge.requestedCurrency),
    charged_amount: chargedAmount,
    charged_currency: chargedCurrency,
    charged_amount_formatted:
      chargedAmount === null || chargedCurrency === null
        ? null
        : formatAmount(chargedAmount, chargedCurrency),
    // Kessai's own (docs/refunds-and-cancels.md): what successful refunds gave back, and what a
    // new refund may still take (charged, less the refunds pending and successful)
    refunded_amount: Number(charge.refundedAmount),
    refunded_amount_formatted: formatAmount(
      Number(charge.refundedAmount),
      chargedCurrency ?? charge.requestedCurrency,
    ),
    refundable_amount:
      charge.status === 'successful' && chargedAmount !== null
        ? chargedAmount - Number(charge.refundReservedAmount)
        : 0,
    // the fee is in the charge's currency, set when the charge took money (docs/charges.md, "Fees")
    fee_amount: feeAmount,
    fee_currency: feeAmount === null ? null : charge.requestedCurrency,
    // a string, as univapay-node types it and api-reference's fixture shows it ("100"; issue 30, gap 5)
    fee_amount_formatted:
      feeAmount === null ? null : String(formatAmount(feeAmount, charge.requestedCurrency)),
    only_direct_currency: charge.onlyDirectCurrency,
    ...optionalField('capture_at', charge.captureAt?.toISOString()),
    ...optionalField('capture_status', charge.captureStatus),
    // a string, as the SDK types it: empty when the charge was created without one (decision 0044)
    descriptor: charge.descriptor ?? '',
    status: charge.status,
    error: presentPaymentError(charge),
    // its sale in the ledger (GET /ledgers/{id}), once posted (decision 0052)
    ...optionalField('ledger_id', charge.ledgerId),
    ...optionalField('three_ds', presentThreeDs(charge.threeDs)),
    ...optionalField('redirect', presentRedirect(charge.redirect)),
    metadata: charge.metadata ?? {},
    mode: charge.mode,
    created_on: charge.createdOn.toISOString(),
    updated_on: charge.updatedOn.toISOString(),
  };
}

/**
 * A charge of a list: the Charge resource and its merchant's and store's names. Added by
 * Object.assign, not a spread of the resource: a spread of its ~30 fields copied them one by one, a
 * few per cent of the gateway's CPU on a page of them (bench:reads).
 */
export function presentChargeListItem(charge: ChargeListItem) {
  return Object.assign(presentCharge(charge), {
    merchant_name: charge.store.merchant.name,
    store_name: charge.store.name,
  });
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
