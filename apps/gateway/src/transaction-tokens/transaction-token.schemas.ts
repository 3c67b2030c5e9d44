import { z, type ZodType, type ZodTypeDef } from 'zod';
import { isExpirationPeriod, isTimeShift } from '@kessai/store-configuration';
import { CHARGEABLE_PAYMENT_TYPES, PAYMENT_TYPES, type ChargeablePaymentType } from '@kessai/domain';
import type { Checked } from '@kessai/payments';
import type { TokenDataInput, TokenInput } from '@kessai/transaction-tokens';
import {
  currencySchema,
  metadataSchema,
  PROCESSING_MODES,
  redirectUrl,
  TOKEN_TYPES,
  uuid,
} from '../http/request.schemas';
import { checkInput, parseInput } from '../http/validation';

/**
 * Request schemas of the transaction token routes (api-reference §5.1), in wire (snake_case) form.
 * Card numbers, expiry and CVV are declared here only as "present"; libs/cards checks them (in
 * libs/transaction-tokens), so that their reasons (INVALID_CARD_NUMBER, INVALID_CVV, …) are the
 * same everywhere. No schema ever puts a submitted value into an error: field errors name the field
 * and a reason only.
 */

export const USAGE_LIMITS = ['daily', 'weekly', 'monthly', 'annually'] as const;
export const TOKEN_THREE_DS_MODES = ['normal', 'force', 'skip', 'if_available'] as const;
export const ONLINE_CALL_METHODS = ['http_get', 'http_get_mobile', 'http_post', 'sdk', 'web', 'app'] as const;
export const ONLINE_BRANDS = [
  'alipay_online',
  'alipay_plus_online',
  'd_barai_online',
  'pay_pay_online',
  'we_chat_online',
  'bpi',
  'boost',
  'rabbit_line_pay',
  'tinaba',
  'naver_pay',
  'toss_pay',
  'maya',
  'grab_sg',
  'kredivo_id',
  'k_plus',
  'big_pay_my',
  'big_pay_sg',
  'big_pay_th',
  'kaspi_kz',
  'zalopay',
  'bluecode',
  'naya_pay',
  'scb_planet_plus',
  'humo',
  'momo',
  'alipay_connect_online',
] as const;

const text = (max: number) => z.string().trim().max(max);
/** the customer's address: the token's, and its confirmation code's destination */
const email = z.string().trim().max(254).email();

const phoneNumber = z
  .object({
    country_code: z
      .string()
      .trim()
      .regex(/^\+?\d{1,4}$/),
    local_number: z
      .string()
      .trim()
      .regex(/^[\d -]{4,20}$/),
  })
  .strict();

/** Billing fields of a card token (create and update). */
const billingFields = {
  line1: text(255).optional(),
  line2: text(255).optional(),
  state: text(255).optional(),
  city: text(255).optional(),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/)
    .transform((v) => v.toUpperCase())
    .optional(),
  zip: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9 -]{1,16}$/)
    .optional(),
  phone_number: phoneNumber.optional(),
};

/**
 * A card token's CVV authorization (docs/transaction-tokens.md, "CVV authorization"): `enabled`, and
 * on creation the `currency` its smallest amount is authorized in. The SDK's type lets a caller send
 * the answer's fields back (status, charge_id, credentials_id): they are accepted and ignored.
 */
const cvvAuthorizeCreation = z
  .object({ enabled: z.boolean(), currency: currencySchema.optional() })
  .passthrough()
  .transform(({ enabled, currency }) => ({ enabled, ...(currency ? { currency } : {}) }))
  .optional();

const cvvAuthorizeUpdate = z
  .object({ enabled: z.boolean() })
  .passthrough()
  .transform(({ enabled }) => ({ enabled }))
  .optional();

/** Card data apart from the card fields libs/cards checks (those are only declared here). */
export const cardDataSchema = z
  .object({
    cardholder: z.unknown(),
    card_number: z.unknown(),
    exp_month: z.unknown(),
    exp_year: z.unknown(),
    cvv: z.unknown(),
    ...billingFields,
    cvv_authorize: cvvAuthorizeCreation,
    three_ds: z.unknown().optional(),
  })
  .strict();

export const onlineDataSchema = z
  .object({
    brand: z.enum(ONLINE_BRANDS),
    call_method: z.enum(ONLINE_CALL_METHODS).default('http_post'),
    user_identifier: text(255).min(1).optional(),
    /** deprecated alias of brand (api-reference §5.1); accepted, not used */
    gateway: text(64).optional(),
  })
  .strict();

/** The code a consumer's wallet shows: printable ASCII, no spaces. */
export const qrScanDataSchema = z
  .object({
    scanned_qr: z
      .string()
      .trim()
      .regex(/^[\x21-\x7e]{1,128}$/),
  })
  .strict();

/**
 * The QRBrand wire names (api-reference §5.12) of wallets that pay a code the merchant shows
 * (merchant-presented, "MPM"): the consumer scans it with the wallet's app.
 */
export const MERCHANT_QR_BRANDS = [
  'pay_pay',
  'pay_pay_merchant',
  'rakuten_pay_merchant',
  'alipay_plus_mpm',
  'alipay_connect_mpm',
  'we_chat_mpm',
  'd_barai',
  'au_pay',
  'merpay',
] as const;

/** qr_merchant: the wallet whose app pays the code (the SDK types no data for it: api-reference §5.1 [N]). */
export const qrMerchantDataSchema = z.object({ brand: z.enum(MERCHANT_QR_BRANDS) }).strict();

const base64 = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/);
const hex = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[0-9a-fA-F]+$/);

/**
 * apple_pay (the SDK types no data for it: api-reference §5.1 [N]): PKPaymentToken's `paymentData`
 * as the customer's device made it, its keys in the API's snake_case (the SDK's key conversion
 * makes `ephemeralPublicKey` `ephemeral_public_key`). EC_v1 only: the version RSA_v1 (regions
 * without elliptic curve encryption) is refused as UNSUPPORTED_ALGORITHM. The signature and the
 * encryption are the processor's to check (docs/transaction-tokens.md, "Apple Pay").
 */
export const applePayDataSchema = z
  .object({
    payment_data: z
      .object({
        version: z.string().refine((v) => v === 'EC_v1', { params: { reason: 'UNSUPPORTED_ALGORITHM' } }),
        data: base64(16_384),
        signature: base64(16_384),
        header: z
          .object({
            ephemeral_public_key: base64(1_024),
            public_key_hash: base64(64),
            transaction_id: hex(128),
            application_data: hex(64).optional(),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();

/**
 * paidy (api-reference §5.1): the consumer's Paidy token (`tok_…`, given by Paidy Checkout once the
 * consumer authorized the merchant), where the goods go, and the consumer's phone. Paidy needs a
 * shipping address with its zip and at least one other line (PAIDY_SHIPPING_ADDRESS_NEEDS_ONE_OPTIONAL_FIELD).
 */
export const paidyDataSchema = z
  .object({
    paidy_token: z.string().regex(/^tok_[A-Za-z0-9_-]{1,64}$/),
    phone_number: phoneNumber.optional(),
    shipping_address: z
      .object({
        line1: text(200).min(1).optional(),
        line2: text(200).min(1).optional(),
        city: text(100).min(1).optional(),
        state: text(100).min(1).optional(),
        zip: z.string().regex(/^\d{3}-?\d{4}$/),
      })
      .strict()
      .refine((a) => [a.line1, a.line2, a.city, a.state].some((line) => line !== undefined), {
        params: { reason: 'PAIDY_SHIPPING_ADDRESS_NEEDS_ONE_OPTIONAL_FIELD' },
      }),
  })
  .strict();

/** BankTransferBrand (api-reference §5.12). */
export const BANK_TRANSFER_BRANDS = ['aozora_bank', 'bank_test_brand'] as const;
/** ConvenienceStore (api-reference §5.12). */
export const CONVENIENCE_STORES = [
  'seven_eleven',
  'family_mart',
  'lawson',
  'mini_stop',
  'seico_mart',
  'pay_easy',
  'circle_k',
  'sunkus',
  'daily_yamazaki',
  'yamazaki_daily_store',
] as const;

/** A token's own deadline rules (api-reference §5.1), overriding its store's configuration. */
const deadlineFields = {
  expiration_period: z
    .string()
    .trim()
    .refine(isExpirationPeriod, { params: { reason: 'INVALID_TIME_PERIOD' } })
    .nullish(),
  expiration_time_shift: z
    .string()
    .trim()
    .refine(isTimeShift, { params: { reason: 'INVALID_FORMAT' } })
    .nullish(),
};

export const bankTransferDataSchema = z
  .object({ brand: z.enum(BANK_TRANSFER_BRANDS), ...deadlineFields })
  .strict();

export const konbiniDataSchema = z
  .object({
    customer_name: text(100).min(1),
    convenience_store: z.enum(CONVENIENCE_STORES),
    phone_number: phoneNumber,
    ...deadlineFields,
  })
  .strict();

export const createTokenSchema = z
  .object({
    // every payment type of the API is chargeable (Apple Pay and Paidy: decisions 0067, 0068)
    payment_type: z.enum(CHARGEABLE_PAYMENT_TYPES),
    type: z.enum(TOKEN_TYPES),
    email: email.nullish(),
    usage_limit: z.enum(USAGE_LIMITS).nullish(),
    data: z.record(z.unknown()),
    use_confirmation: z.boolean().optional(),
    three_ds: z
      .object({
        mode: z.enum(TOKEN_THREE_DS_MODES).default('normal'),
        redirect_endpoint: redirectUrl.optional(),
        redirect_id: text(255).optional(),
      })
      .strict()
      .optional(),
    metadata: metadataSchema.optional(),
  })
  .strict();

export const updateTokenSchema = z
  .object({
    email: email.nullish(),
    metadata: metadataSchema.optional(),
    data: z
      .object({
        cvv: z.unknown().optional(),
        cardholder: z.unknown().optional(),
        ...billingFields,
        cvv_authorize: cvvAuthorizeUpdate,
      })
      .strict()
      .optional(),
  })
  .strict();

export const listFiltersSchema = z
  .object({
    type: z.enum(TOKEN_TYPES).optional(),
    mode: z.enum(PROCESSING_MODES).optional(),
    payment_type: z.enum(PAYMENT_TYPES).optional(),
    search: z.string().trim().max(200).optional(),
    customer_id: uuid.optional(),
    /** the token a renewal replaced: its successor (the SDK's previousTransactionTokenId) */
    previous_transaction_token_id: uuid.optional(),
  })
  .passthrough();

/** POST /stores/{storeId}/tokens/{id}/confirm */
export const confirmTokenSchema = z.object({ confirmation_code: z.string().trim().min(1).max(32) }).strict();

/**
 * POST (/stores/{storeId})/tokens/{id}/renew (TokenRenew, api-reference §5.1): the card's new
 * cardholder and expiry, its billing, the customer's email; a new card number and CVV may come too
 * (card data: the PCI DSS gate applies). Checked field by field as a card token's creation is.
 */
export const renewTokenSchema = z
  .object({
    data: z
      .object({
        email: email.nullish(),
        cardholder: z.unknown(),
        exp_month: z.unknown(),
        exp_year: z.unknown(),
        card_number: z.unknown().optional(),
        cvv: z.unknown().optional(),
        ...billingFields,
      })
      .strict(),
  })
  .strict();

/**
 * POST /tokens: the request's shape refused at once; its `data` checked by its payment type's
 * schema, and refused by TransactionTokensService after the store's rules (a payment type the store
 * switched off is refused as such, whatever its data), each field named under `data.`.
 */
export function parseTokenCreation(body: unknown): TokenInput {
  const { payment_type, data, ...fields } = parseInput(createTokenSchema, body);
  return { ...fields, ...tokenDataOf(payment_type, data) };
}

function tokenDataOf(paymentType: ChargeablePaymentType, data: Record<string, unknown>): TokenDataInput {
  switch (paymentType) {
    case 'card': {
      const checked = checkData(cardDataSchema, data);
      const cvvAuthorize = checked.ok ? (checked.value.cvv_authorize ?? null) : null;
      return { payment_type: 'card', data: { card: data, billing: checked, cvv_authorize: cvvAuthorize } };
    }
    case 'online':
      return { payment_type: 'online', data: checkData(onlineDataSchema, data) };
    case 'qr_scan':
      return { payment_type: 'qr_scan', data: checkData(qrScanDataSchema, data) };
    case 'qr_merchant':
      return { payment_type: 'qr_merchant', data: checkData(qrMerchantDataSchema, data) };
    case 'apple_pay':
      return { payment_type: 'apple_pay', data: checkData(applePayDataSchema, data) };
    case 'paidy':
      return { payment_type: 'paidy', data: checkData(paidyDataSchema, data) };
    case 'bank_transfer':
      return { payment_type: 'bank_transfer', data: checkData(bankTransferDataSchema, data) };
    case 'konbini':
      return { payment_type: 'konbini', data: checkData(konbiniDataSchema, data) };
  }
}

function checkData<T>(schema: ZodType<T, ZodTypeDef, unknown>, data: Record<string, unknown>): Checked<T> {
  const checked = checkInput(schema, data);
  if (checked.ok) return checked;
  return {
    ok: false,
    errors: checked.errors.map((e) => ({ ...e, field: e.field === null ? 'data' : `data.${e.field}` })),
  };
}
