import { percentToPpm, type FeeTerms } from '@kessai/domain';
import { FEE_CARD_BRANDS, type FeeCardBrand, type StoreConfiguration } from './configuration';

/** What the configuration rules need to know of a charge and its transaction token. */
export interface ChargeUnderRules {
  paymentType: string;
  tokenType: 'one_time' | 'recurring' | 'subscription';
  /** the token's usage_limit (recurring tokens) */
  usageLimit: string | null;
  /** card tokens */
  cardBrand: string | null;
  /** qr_scan tokens: the operator (the token's gateway, else the brand its code was recognised as) */
  qrGateway: string | null;
  /** minor units */
  amount: bigint;
  currency: string;
}

/** Why a store's configuration refuses a charge: an error code of api-reference §2.3 and its field. */
export interface ChargeRefusal {
  code:
    | 'CARD_PROCESSING_DISABLED'
    | 'CARD_BRAND_NOT_SUPPORTED'
    | 'QR_PROCESSING_DISABLED'
    | 'FORBIDDEN_QR_GATEWAY'
    | 'ONLINE_PROCESSING_DISABLED'
    | 'MERCHANT_QR_PROCESSING_DISABLED'
    | 'PAIDY_PROCESSING_DISABLED'
    | 'CONVENIENCE_PROCESSING_DISABLED'
    | 'DISABLED_PAYMENT_TYPE'
    | 'RECURRING_TOKEN_DISABLED'
    | 'RECURRING_USAGE_LIMIT_REQUIRED'
    | 'CHARGE_AMOUNT_TOO_LOW'
    | 'CHARGE_AMOUNT_TOO_HIGH';
  field: 'transaction_token_id' | 'amount';
}

const TOKEN = 'transaction_token_id';

/**
 * The first rule of the store's configuration the charge breaks, or null: the payment type enabled,
 * the card brand or QR operator not forbidden, the recurring privilege, the amount within the
 * currency's minimum and maximum.
 */
export function chargeRefusal(config: StoreConfiguration, charge: ChargeUnderRules): ChargeRefusal | null {
  const disabled = disabledPaymentType(config, charge.paymentType);
  if (disabled) return { code: disabled, field: TOKEN };
  switch (charge.paymentType) {
    case 'card':
      if (
        charge.cardBrand !== null &&
        (config.card_configuration.forbidden_card_brands as readonly string[]).includes(charge.cardBrand)
      )
        return { code: 'CARD_BRAND_NOT_SUPPORTED', field: TOKEN };
      break;
    case 'qr_scan':
      if (
        charge.qrGateway !== null &&
        (config.qr_scan_configuration.forbidden_qr_scan_gateways as readonly string[]).includes(
          charge.qrGateway,
        )
      )
        return { code: 'FORBIDDEN_QR_GATEWAY', field: TOKEN };
      break;
  }
  if (charge.tokenType === 'recurring') {
    const privilege = config.recurring_token_configuration.recurring_type;
    if (privilege === 'none') return { code: 'RECURRING_TOKEN_DISABLED', field: TOKEN };
    if (privilege === 'bounded' && charge.usageLimit === null)
      return { code: 'RECURRING_USAGE_LIMIT_REQUIRED', field: TOKEN };
  }
  const minimum = config.minimum_charge_amounts.find((entry) => entry.currency === charge.currency);
  if (minimum && charge.amount < BigInt(minimum.amount))
    return { code: 'CHARGE_AMOUNT_TOO_LOW', field: 'amount' };
  const maximum = config.maximum_charge_amounts.find((entry) => entry.currency === charge.currency);
  if (maximum && charge.amount > BigInt(maximum.amount))
    return { code: 'CHARGE_AMOUNT_TOO_HIGH', field: 'amount' };
  return null;
}

/**
 * The code refusing a payment type the store has switched off, or null: a charge of it (chargeRefusal)
 * and, with the same code, a transaction token of it at creation (POST /tokens), so a token the store
 * cannot charge is never made.
 */
export function disabledPaymentType(
  config: StoreConfiguration,
  paymentType: string,
): Extract<
  ChargeRefusal['code'],
  | 'CARD_PROCESSING_DISABLED'
  | 'QR_PROCESSING_DISABLED'
  | 'ONLINE_PROCESSING_DISABLED'
  | 'MERCHANT_QR_PROCESSING_DISABLED'
  | 'PAIDY_PROCESSING_DISABLED'
  | 'CONVENIENCE_PROCESSING_DISABLED'
  | 'DISABLED_PAYMENT_TYPE'
> | null {
  switch (paymentType) {
    // Apple Pay is a card payment (the SDK's configuration has no block of its own for it)
    case 'card':
    case 'apple_pay':
      return config.card_configuration.enabled ? null : 'CARD_PROCESSING_DISABLED';
    case 'qr_scan':
      return config.qr_scan_configuration.enabled ? null : 'QR_PROCESSING_DISABLED';
    case 'online':
      return config.online_configuration.enabled ? null : 'ONLINE_PROCESSING_DISABLED';
    case 'qr_merchant':
      return config.qr_merchant_configuration.enabled ? null : 'MERCHANT_QR_PROCESSING_DISABLED';
    case 'paidy':
      return config.paidy_configuration.enabled ? null : 'PAIDY_PROCESSING_DISABLED';
    case 'konbini':
      return config.convenience_configuration.enabled ? null : 'CONVENIENCE_PROCESSING_DISABLED';
    case 'bank_transfer':
      // the reference has no BANK_TRANSFER_PROCESSING_DISABLED: its generic code for a switched-off type
      return config.bank_transfer_configuration.enabled ? null : 'DISABLED_PAYMENT_TYPE';
    default:
      return null;
  }
}

/**
 * A currency whose minimum charge is above its maximum (no charge in it could pass), or null. A
 * change that would leave a store so is refused.
 */
export function contradictoryLimit(config: StoreConfiguration): string | null {
  for (const minimum of config.minimum_charge_amounts) {
    const maximum = config.maximum_charge_amounts.find((entry) => entry.currency === minimum.currency);
    if (maximum && minimum.amount > maximum.amount) return minimum.currency;
  }
  return null;
}

const FEE_KEY_OF_BRAND = new Map<string, FeeCardBrand>(
  Object.entries(FEE_CARD_BRANDS).map(([key, brand]) => [brand, key as FeeCardBrand]),
);

/**
 * The fee terms a charge is accepted under: the card brand's percent (card_brand_percent_fees) for a
 * card of that brand, else percent_fee; plus the flat fee in the charge's currency (none when
 * flat_fees has no entry for it).
 */
export function feeTermsOf(
  config: StoreConfiguration,
  charge: { paymentType: string; cardBrand: string | null; currency: string },
): FeeTerms {
  const brandKey =
    charge.paymentType === 'card' && charge.cardBrand !== null
      ? FEE_KEY_OF_BRAND.get(charge.cardBrand)
      : undefined;
  const percent = (brandKey && config.card_brand_percent_fees[brandKey]) ?? config.percent_fee;
  const flat = config.flat_fees.find((entry) => entry.currency === charge.currency);
  return { ratePpm: percentToPpm(percent) ?? 0, flatAmount: BigInt(flat?.amount ?? 0) };
}
