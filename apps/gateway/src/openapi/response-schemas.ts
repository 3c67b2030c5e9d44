import { z } from 'zod';
import {
  type presentBankTransferLedgers,
  type presentCancel,
  type presentCharge,
  type presentCheckoutEmail,
  type presentCheckoutForm,
  type presentCheckoutLink,
  type presentCheckoutProduct,
  type presentChargeExpiry,
  type presentChargeListItem,
  type presentIssuerToken,
  type presentLinkProduct,
  type presentPlannedPayment,
  type presentScheduledPayment,
  type presentSubscription,
  type presentSubscriptionListItem,
  type presentTestClock,
  type presentThreeDsIssuerToken,
  type presentToken,
  type presentTokenListItem,
  type presentRefund,
  type presentLedger,
  type presentTransfer,
  type presentTransferListItem,
  type presentTransferStatusChange,
} from '@kessai/presenters';
import {
  BANK_ACCOUNT_STATUSES,
  BANK_ACCOUNT_TYPES,
  CAPTURE_STATUSES,
  CHARGE_STATUSES,
  CHARGEABLE_PAYMENT_TYPES,
  OPERATION_STATUSES,
  PAYMENT_TYPES,
  SUBSCRIPTION_STATUSES,
  TRANSFER_STATUSES,
} from '@kessai/domain';
import { SUBSCRIPTION_PERIODS } from '@kessai/schedule';
import {
  type ConvenienceConfiguration,
  MATCH_AMOUNTS,
  operatorConfigurationPatchSchema,
  type presentBankTransferConfiguration,
} from '@kessai/store-configuration';
import { type presentAppJwt, type presentIssuedAppJwt } from '../app-jwts/app-jwt.presenter';
import {
  type presentCheckoutGateway,
  type presentCheckoutInfo,
  type supportedBrands,
} from '../checkout-info/checkout-info.presenter';
import { type CheckoutService } from '../checkout/checkout.service';
import { type LinkPaymentView } from '../hosted-checkout/link-payments.service';
import { type presentMerchant } from '../merchants/merchant.presenter';
import { type presentStoreListItem, type presentStoreWithMerchant } from '../stores/store.presenter';
import { type presentBatch } from '../subscriptions/subscription-batch.presenter';
import { type presentTransaction } from '../transaction-history/transaction.presenter';
import { type presentTokenThreeDsIssuerToken } from '../transaction-tokens/token-three-ds.presenter';
import {
  type presentCreatedTokenAlias,
  type presentTokenAlias,
} from '../transaction-tokens/token-alias.presenter';
import { PROCESSING_MODES, TOKEN_TYPES, uuid } from '../http/request.schemas';
import { TRANSACTION_TYPES } from '../transaction-history/transaction-history.schemas';
import { USAGE_LIMITS } from '../transaction-tokens/transaction-token.schemas';
import { type presentBankAccount } from '../bank-accounts/bank-account.presenter';
import { type presentExchangeRate } from '../exchange-rates/exchange-rate.presenter';
import { type presentVerification } from '../verification/verification.presenter';
import {
  type presentCreatedWebhook,
  type presentDelivery,
  type presentWebhook,
  type presentWebhookListItem,
} from '../webhooks/webhook.presenter';

/**
 * What the gateway answers, as zod schemas the OpenAPI document is generated from (wire form:
 * snake_case). Each one is checked against its presenter's return type at compile time (the
 * `agreements` at the end): a field added to, removed from, or made optional in a presenter fails
 * the build until its schema here says the same.
 */

/** A resource answers exactly these fields: additionalProperties false in the document. */
const resource = <T extends z.ZodRawShape>(shape: T) => z.object(shape).strict();

const instant = z.string().datetime({ offset: true });
const mode = z.enum(PROCESSING_MODES);
const money = z.number().int().describe('minor units (e.g. yen, or cents)');
const formatted = z.number().describe('the amount in major units');
const metadata = z
  .record(z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown())]))
  .describe('the merchant’s own key/value pairs, as sent');

/** The payment error object (api-reference §2.5); `details` repeats `detail` for the node SDK. */
export const PaymentError = resource({
  code: z.number().int(),
  message: z.string().nullable(),
  detail: z.string().nullable(),
  details: z.string().optional(),
}).describe('why a payment failed, null while it has not');

/** The API's error envelope (api-reference §2.1): every 4xx and 5xx answer. */
export const ErrorEnvelope = resource({
  status: z.literal('error'),
  code: z.string().describe('an error code as the univapay-node SDK’s ResponseErrorCode knows it'),
  errors: z.array(
    z.object({
      field: z.string().nullable().describe('the field at fault, dotted (subscriptions.0.amount), or null'),
      reason: z.string(),
    }),
  ),
  error_id: z.string().optional().describe('500 only: quote it to support, it finds the log line'),
});

const chargeThreeDs = resource({
  mode: z.string().optional(),
  redirect_endpoint: z.string().optional(),
  redirect_id: z.string().optional(),
});

export const Charge = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid,
  subscription_id: uuid.optional(),
  transaction_token_id: uuid,
  transaction_token_type: z.enum(TOKEN_TYPES),
  requested_amount: money,
  requested_currency: z.string(),
  requested_amount_formatted: formatted,
  charged_amount: money.nullable(),
  charged_currency: z.string().nullable(),
  charged_amount_formatted: formatted.nullable(),
  refunded_amount: money.describe('Kessai’s: what successful refunds gave back'),
  refunded_amount_formatted: formatted,
  refundable_amount: money.describe('Kessai’s: what a new refund may still take'),
  fee_amount: money.nullable(),
  fee_currency: z.string().nullable(),
  fee_amount_formatted: z
    .string()
    .nullable()
    .describe('the fee in major units, as a string (univapay-node types it so: "0.3")'),
  only_direct_currency: z.boolean(),
  capture_at: instant.optional(),
  capture_status: z.enum(CAPTURE_STATUSES).optional(),
  descriptor: z.string().describe('"" without one'),
  status: z.enum(CHARGE_STATUSES),
  error: PaymentError.nullable(),
  ledger_id: uuid.optional().describe("the charge's sale in the ledger (GET /ledgers/{id}), once posted"),
  three_ds: chargeThreeDs.optional(),
  redirect: z.object({ endpoint: z.string().optional(), redirect_id: z.string().optional() }).optional(),
  metadata,
  mode,
  created_on: instant,
  updated_on: instant,
});

const listNames = { merchant_name: z.string(), store_name: z.string() };
export const ChargeListItem = Charge.extend(listNames);

export const IssuerToken = resource({
  issuer_token: z.string().nullable(),
  call_method: z.string().nullable(),
  payload: z
    .union([z.record(z.unknown()), z.array(z.unknown()), z.string(), z.number(), z.boolean()])
    .nullable(),
  payment_type: z.enum(PAYMENT_TYPES),
});

export const ThreeDsIssuerToken = resource({
  issuer_token: z.string().nullable(),
  call_method: z.string().nullable(),
  payload: z.record(z.unknown()),
  payment_type: z.enum(PAYMENT_TYPES),
  content_type: z.string().nullable(),
});

export const ChargeExpiry = resource({
  id: uuid,
  charge_id: uuid,
  expiration_date: instant,
  extension_count: z.number().int(),
  created_on: instant,
  updated_on: instant,
});

export const BankTransferLedger = resource({
  bank_ledger_type: z
    .enum(['payment', 'deposit'])
    .describe(
      'payment: the amount asked for, when the charge was accepted (first); deposit: a transfer received',
    ),
  amount: money,
  currency: z.string(),
  amount_formatted: formatted,
  balance: z
    .number()
    .int()
    .describe('received less asked for after this entry, minor units: negative while money is owed'),
  virtual_bank_account_holder_name: z.string().nullable(),
  virtual_bank_account_number: z.string().nullable(),
  virtual_account_id: z.string().nullable(),
  transaction_date: z.string().describe('YYYY-MM-DD, the day in Japan'),
  transaction_timestamp: instant,
  mode,
  created_on: instant,
});

export const Refund = resource({
  id: uuid,
  store_id: uuid,
  charge_id: uuid,
  ledger_id: uuid.optional().describe('the refund in the ledger (GET /ledgers/{id}), once posted'),
  status: z.enum(OPERATION_STATUSES),
  amount: money,
  currency: z.string(),
  amount_formatted: formatted,
  reason: z.string().optional(),
  message: z.string().optional(),
  error: PaymentError.nullable(),
  metadata,
  mode,
  created_on: instant,
  updated_on: instant,
});

export const Cancel = resource({
  id: uuid,
  charge_id: uuid,
  store_id: uuid,
  status: z.enum(OPERATION_STATUSES),
  error: PaymentError.nullable(),
  metadata,
  mode,
  created_on: instant,
  updated_on: instant,
});

export const TransactionToken = resource({
  id: uuid,
  store_id: uuid,
  email: z.string().nullable(),
  active: z.boolean(),
  mode,
  type: z.enum(TOKEN_TYPES),
  payment_type: z.enum(PAYMENT_TYPES),
  usage_limit: z.string().optional().describe('a recurring token’s limit; absent without one'),
  confirmed: z.boolean().optional(),
  previous_id: uuid.optional(),
  used_count: z.number().int(),
  created_on: instant,
  updated_on: instant,
  last_used_on: instant.describe('created_on until the token is first charged'),
  data: z
    .record(z.unknown())
    .describe(
      'by payment_type: card (card, billing, cvv_authorize, three_ds), online (brand, call_method, ' +
        'user_identifier, gateway), qr_scan (brand, gateway), konbini (convenience_store, customer_name, ' +
        'phone_number, expiration_period, expiration_time_shift), bank_transfer (bank_code, bank_name, brand, …)',
    ),
  metadata,
});
export const TransactionTokenListItem = TransactionToken.extend(listNames);

export const CreatedTokenAlias = resource({
  key: uuid.describe('the alias: GET /stores/{store_id}/tokens/alias/{key}'),
  valid_until: instant,
});

export const TokenAlias = resource({
  id: uuid.describe('the transaction token the alias stands for'),
  merchant_id: uuid,
  store_id: uuid,
  email: z.string().optional(),
  payment_type: z.enum(PAYMENT_TYPES),
  active: z.boolean(),
  mode,
  type: z.enum(TOKEN_TYPES),
  created_on: instant.describe('when the alias was made'),
  last_used_on: instant.describe('the token’s: created_on until it is first charged'),
  amount: money.optional(),
  currency: z.string().optional(),
  alias_metadata: metadata,
  valid_until: instant.describe('Kessai’s: the alias is found until then'),
});

const scheduledPaymentFields = {
  due_date: z.string().describe('YYYY-MM-DD, the local date in zone_id'),
  due_at: instant.describe('Kessai’s: the instant the engine charges it'),
  zone_id: z.string(),
  amount: money,
  amount_formatted: formatted,
  currency: z.string(),
  is_paid: z.boolean(),
  is_last_payment: z.boolean(),
  retry_interval: z.string().describe('ISO 8601 period'),
};

export const PlannedPayment = resource(scheduledPaymentFields);

export const ScheduledPayment = resource({
  id: uuid,
  ...scheduledPaymentFields,
  created_on: instant,
  updated_on: instant,
  successful_payment_date: instant.optional(),
  terminate_with_status: z.string().optional(),
  retry_date: instant.optional(),
});

export const Subscription = resource({
  id: uuid,
  store_id: uuid,
  transaction_token_id: uuid,
  mode,
  status: z.enum(SUBSCRIPTION_STATUSES),
  amount: money,
  amount_formatted: formatted,
  currency: z.string(),
  amount_left: money.describe('0 for an open-ended subscription'),
  amount_left_formatted: formatted,
  payments_left: z.number().int().describe('0 for an open-ended subscription'),
  cycles_left: z.number().int().optional(),
  initial_amount: money.nullable(),
  initial_amount_formatted: formatted.optional(),
  period: z.string().optional(),
  cyclical_period: z.string().optional(),
  installment_plan: z.record(z.unknown()).optional(),
  subscription_plan: z.record(z.unknown()).optional(),
  schedule_settings: z.object({
    start_on: z
      .string()
      .describe(
        'ISO 8601 with the zone’s offset: when the schedule starts (a later start_on’s payment time; otherwise the start of its local day, the creation’s when none was given)',
      ),
    zone_id: z.string(),
    preserve_end_of_month: z.boolean(),
    retry_interval: z.string(),
    termination_mode: z.string(),
  }),
  next_payment: ScheduledPayment.nullable().describe(
    'the open payment, or the last one when none is open; null only before the first is written',
  ),
  next_payment_date: z.string().optional(),
  descriptor: z.string().describe('"" without one'),
  only_direct_currency: z.boolean(),
  three_ds: chargeThreeDs.optional(),
  first_charge_authorization_only: z.boolean(),
  first_charge_capture_after: z.string().optional(),
  metadata,
  test_clock_id: uuid.optional(),
  created_on: instant,
  updated_on: instant,
});
export const SubscriptionListItem = Subscription.extend(listNames);

export const SubscriptionBatch = resource({
  batch_id: uuid,
  status: z.enum(['awaiting', 'successful', 'failed']),
  subscription_ids: z.array(uuid),
  charge_id: uuid.optional(),
});

export const TestClock = resource({
  id: uuid,
  object: z.literal('test_clock'),
  name: z.string().nullable(),
  frozen_time: instant,
  status: z.enum(['ready', 'advancing']),
  created_on: instant,
  updated_on: instant,
});

/** A patch key's value as presented: never null or absent (the merge fills every key). */
function valueOf(schema: z.ZodTypeAny): z.ZodTypeAny {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable)
    current = (current as z.ZodOptional<z.ZodTypeAny> | z.ZodNullable<z.ZodTypeAny>).unwrap();
  return current;
}

const configurationShape: Record<string, z.ZodTypeAny> = Object.fromEntries(
  Object.entries(operatorConfigurationPatchSchema.shape).map(([key, schema]) => [key, valueOf(schema)]),
);
const shown = (what: string) => z.boolean().describe(`${what} (shown, not set: docs/configuration.md)`);
/** card_configuration's keys the SDK requires, as Kessai applies them (libs/store-configuration presented.ts). */
const shownCardKeys = {
  debit_enabled: shown('debit cards are charged'),
  debit_authorization_enabled: shown('debit cards are authorized'),
  prepaid_enabled: shown('prepaid cards are charged'),
  prepaid_authorization_enabled: shown('prepaid cards are authorized'),
  foreign_cards_allowed: shown('cards issued abroad are accepted'),
  fail_on_new_email: shown('a new email fails a payment'),
  allowed_countries_by_ip: z.array(z.string()).describe('empty: any buyer’s IP (shown, not set)'),
  allow_empty_cvv: shown('a card token without a CVV'),
  only_direct_currency: shown('charges only in a currency the processor settles in'),
  allow_direct_token_creation: shown('card data sent with the secret: the merchant is PCI DSS compliant'),
};
/** bank_transfer_configuration's notification flags the SDK requires: Kessai emails no buyer. */
const shownBankTransferKeys = {
  remind_notification_enabled: shown('a reminder email'),
  charge_request_notification_enabled: shown('a charge request email'),
  deposit_received_notification_enabled: shown('a deposit email'),
  deposit_insufficient_notification_enabled: shown('an insufficient deposit email'),
  deposit_exceeded_notification_enabled: shown('an exceeding deposit email'),
  extension_notification_enabled: shown('an extension email'),
  remind_notification_period: z
    .string()
    .describe('P0D: no reminder is sent (its flag is off; shown, not set: decision 0051)'),
  virtual_bank_accounts_threshold: z
    .number()
    .int()
    .describe('0: a virtual account is given out per charge, no pool is kept (shown, not set)'),
  virtual_bank_accounts_fetch_count: z
    .number()
    .int()
    .describe('1: one virtual account per charge (shown, not set)'),
};
const off = z.object({ enabled: z.boolean() }).strict();

/** The configuration a store or merchant is held to: every key Kessai honours (docs/configuration.md). */
export const StoreConfiguration = resource({
  ...configurationShape,
  card_configuration: (configurationShape.card_configuration as z.AnyZodObject).extend(shownCardKeys),
  bank_transfer_configuration: (configurationShape.bank_transfer_configuration as z.AnyZodObject).extend(
    shownBankTransferKeys,
  ),
  transfer_schedule: (configurationShape.transfer_schedule as z.AnyZodObject).extend({
    wait_period: z
      .string()
      .describe('the top-level wait_period, shown here as the SDK reads it (set through wait_period)'),
  }),
  security_configuration: resource({
    refund_percent_limit: z
      .number()
      .describe('refunds are bounded by the charged amount: 100 (shown, not set)'),
  }),
  installments_configuration: (configurationShape.installments_configuration as z.AnyZodObject).extend({
    only_with_processor: shown('installments only through the card processor: Kessai schedules them'),
  }),
  checkout_configuration: resource({ ec_email: off, ec_products: off }),
  paidy_configuration: off,
  qr_merchant_configuration: off,
  customer_management_configuration: (
    configurationShape.customer_management_configuration as z.AnyZodObject
  ).extend({
    default_roles: z
      .array(z.string())
      .describe('the roles every customer token carries (shown, not set; no default_mode: decision 0070)'),
  }),
}).describe('the defaults, overlaid with the merchant’s settings, then the store’s (docs/configuration.md)');

export const Store = resource({
  id: uuid,
  merchant_id: uuid,
  name: z.string(),
  updated_on: instant,
  created_on: instant,
  configuration: StoreConfiguration.extend({
    logo_url: z
      .string()
      .url()
      .optional()
      .describe('the store’s logo as the gateway serves it (api-reference §5.8); absent without one'),
  }),
});
export const StoreListItem = Store.extend({ merchant_name: z.string() });

export const Merchant = resource({
  id: uuid,
  name: z.string(),
  email: z.string(),
  verified: z.boolean(),
  updated_on: instant,
  created_on: instant,
  configuration: StoreConfiguration,
});

const phoneNumber = z
  .object({ country_code: z.string().optional(), local_number: z.string().optional() })
  .strict();

export const Verification = resource({
  id: uuid,
  homepage_url: z.string(),
  company_description: z.string(),
  company_contact_info: z
    .object({
      name: z.string(),
      company_name: z.string(),
      phone_number: phoneNumber,
      line1: z.string(),
      line2: z.string().optional(),
      city: z.string(),
      state: z.string(),
      country: z.string().describe('ISO 3166-1 alpha-2'),
      zip: z.string(),
    })
    .strict(),
  business_type: z.string(),
  system_manager_name: z.string().optional(),
  system_manager_number: phoneNumber.optional(),
  system_manager_email: z.string().optional(),
  customer_contact_email: z.string().optional(),
  customer_contact_number: phoneNumber.optional(),
  recurring_token_request: z.enum(['none', 'bounded', 'infinite']).optional(),
  recurring_token_request_reason: z.string().optional(),
  allow_empty_cvv: z.boolean().optional(),
  created_on: instant,
  status: z.enum(['submitted', 'approved', 'rejected']).describe('Kessai’s: the operator’s review'),
  reviewed_on: instant.optional().describe('Kessai’s: when the operator last approved or rejected it'),
  review_reason: z.string().optional().describe('Kessai’s: why the operator rejected it'),
});

export const ExchangeRate = resource({
  amount: money,
  currency: z.string(),
  amount_formatted: formatted.describe('Kessai’s: the amount in major units'),
});

export const CustomerId = resource({ customer_id: uuid });

export const AppJwt = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid.nullable(),
  mode: z.enum(['test', 'live']),
  domains: z.array(z.string()),
  created_on: instant,
  updated_on: instant,
});
export const IssuedAppJwt = AppJwt.extend({
  jwt: z.string(),
  secret: z.string().describe('shown once: send `Authorization: Bearer <secret>.<jwt>`'),
});

export const CheckoutGateway = resource({
  service: z.literal('alipay_plus_online'),
  service_name: z.string(),
  brands: z.array(
    resource({
      brand_name: z.string().describe('the online brand to put on the token (`data.brand`)'),
      brand_display_name: z.string(),
      extras: resource({}),
    }),
  ),
});

export const CustomerAuthentication = resource({
  jwt: z
    .string()
    .optional()
    .describe(
      'with `otp` only: the customer token, sent as `Authorization: Bearer <jwt>`; absent when a code is asked for',
    ),
});

export const LoginToken = resource({
  token: z.string().describe('send `Authorization: Bearer <token>`'),
  user_id: uuid,
  merchant_id: uuid,
  email: z.string(),
  name: z.string().nullable(),
  expires_on: instant,
});

const isoExpiration = z.string().describe('ISO 8601 period (P7D)');
const expirationTimeShift = resource({
  enabled: z.boolean(),
  value: z.string().describe('HH:mm[:ss[.SSS]] with an offset, e.g. 23:59:59.000+09:00'),
}).describe('when enabled, the deadline moves to this time of its day');

/** The store's effective bank_transfer_configuration (docs/bank-transfer-and-konbini.md). */
const checkoutBankTransferConfiguration = z
  .object({
    enabled: z.boolean(),
    match_amount: z.enum(MATCH_AMOUNTS).describe('which received total pays the charge'),
    expiration: isoExpiration.describe('from the charge’s creation to its payment deadline'),
    expiration_time_shift: expirationTimeShift,
    default_extension_period: isoExpiration.describe('what an extension without a date adds'),
    maximum_extension_period: isoExpiration.describe('the furthest one extension may move the deadline'),
    automatic_extension_enabled: z
      .boolean()
      .describe(
        'an unpaid charge is extended by default_extension_period at its deadline instead of failing',
      ),
    ...shownBankTransferKeys,
  })
  .strict();

/** The store's effective convenience_configuration (konbini). */
const checkoutConvenienceConfiguration = resource({
  enabled: z.boolean(),
  expiration: isoExpiration.describe('from the charge’s creation to its payment deadline'),
  expiration_time_shift: expirationTimeShift,
});

/** A brand the store accepts, by payment type (none of a payment type that is switched off). */
const SupportedBrand = resource({
  brand: z
    .string()
    .describe(
      'a card brand, `qr_scan` (scanned QR codes), online operator, bank or convenience store; in test mode `apple_pay`, `paidy`, `qr_merchant`',
    ),
  payment_type: z.enum(CHARGEABLE_PAYMENT_TYPES),
  support_auth_capture: z.boolean(),
  requires_full_name: z.boolean(),
  support_dynamic_descriptor: z.boolean(),
  requires_cvv: z.boolean(),
  countries_allowed: z.null(),
  supported_currencies: z
    .array(z.string())
    .describe('every active ISO 4217 currency; JPY only for bank_transfer and konbini'),
  cvv_auth: z.boolean(),
  installment_capable: z.boolean(),
  card_brand: z.string().optional().describe('card brands only'),
  online_brand: z.string().optional().describe('online operators only'),
});

export const CheckoutInfo = resource({
  mode: z.enum(['test', 'live']),
  recurring_token_privilege: z.string(),
  name: z.string(),
  card_configuration: z.record(z.unknown()),
  qr_scan_configuration: z.record(z.unknown()),
  online_configuration: z.record(z.unknown()),
  bank_transfer_configuration: checkoutBankTransferConfiguration,
  convenience_configuration: checkoutConvenienceConfiguration,
  paidy_configuration: z.object({ enabled: z.boolean() }),
  paidy_public_key: z
    .string()
    .nullable()
    .describe('Paidy Checkout’s public key: the test-mode key in test mode; null in live mode (no Paidy)'),
  recurring_card_charge_cvv_confirmation: z.object({ enabled: z.boolean(), threshold: z.array(z.unknown()) }),
  installments_configuration: z.object({ enabled: z.boolean(), only_with_processor: z.boolean() }),
  logo_image: z
    .string()
    .url()
    .optional()
    .describe(
      'the store’s logo as the gateway serves it (GET /checkout/logos/{store_id}/{digest}); absent without one',
    ),
  theme: z.object({
    colors: z
      .record(z.string())
      .describe(
        'main_background, secondary_background, main_color, main_text, primary_text, secondary_text, base_text, ' +
          'body_background as #rrggbb: the store’s checkout_colors, Kessai’s defaults for unset ones',
      ),
  }),
  supported_brands: z.array(SupportedBrand),
});

// ---- hosted checkout (api-reference §5.11, docs/hosted-checkout.md) ------------------------------

const CHECKOUT_LANGUAGES = ['en_us', 'ja_jp', 'zh_cn', 'zh_tw'] as const;
/** A value per language (en_us, ja_jp, zh_cn, zh_tw), as the operator set it; null when not set. */
const perLanguage = (value: z.ZodTypeAny) => z.record(z.enum(CHECKOUT_LANGUAGES), value).nullable();
const isoPeriod = z.string().describe('ISO 8601 calendar period (P1M, P2W, P10D)');

export const CheckoutForm = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid,
  name: z.string(),
  mode,
  app_id: uuid.describe('the store app token the hosted form acts with'),
  checkout: z
    .enum(['payment', 'token'])
    .describe('the form ends in a charge, or in a transaction token only'),
  payment_type: z.enum(PAYMENT_TYPES).nullable(),
  token_type: z.enum(TOKEN_TYPES),
  usage_limit: z.enum(USAGE_LIMITS).nullable(),
  univapay_customer_id: z.null().describe('Kessai keeps no UnivaPay customer ids'),
  capture: z.boolean(),
  capture_at: z.null(),
  only_direct_currency: z.boolean(),
  supported_payment_methods: z.array(z.string()),
  cvv_authorize: z.boolean(),
  confirmation_required: z.boolean(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  header: z.string().nullable(),
  locale: z.string().nullable().describe('en_us, ja_jp, zh_cn, zh_tw or auto'),
  dark: z.boolean(),
  submit_button_text: z.string().nullable(),
  show_cvv: z.boolean(),
  display_store_name: z.boolean(),
  display_store_logo: z.boolean(),
  hide_privacy_link: z.boolean(),
  header_color: z.string().nullable().describe('#rrggbb'),
  button_color: z.string().nullable().describe('#rrggbb'),
  background_color: z.string().nullable().describe('#rrggbb'),
  require_name: z.boolean(),
  require_name_kana: z.boolean(),
  require_email: z.boolean(),
  require_billing_address: z.boolean(),
  require_phone_number: z.boolean(),
  address: z.boolean(),
  email: z
    .null()
    .describe('a form design prefills no consumer: this and the shipping and buyer fields are null'),
  shipping_address_line1: z.null(),
  shipping_address_line2: z.null(),
  shipping_address_city: z.null(),
  shipping_address_state: z.null(),
  shipping_address_zip: z.null(),
  shipping_address_country_code: z.null(),
  buyer_name: z.null(),
  buyer_name_transliteration: z.null(),
  buyer_date_of_birth: z.null(),
  custom_fields: perLanguage(
    z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        type: z.enum(['string', 'select']),
        required: z.boolean().optional(),
        options: z.array(z.string()).optional(),
      }),
    ),
  ).describe('extra fields the form asks for, per language'),
  custom_fields_titles: perLanguage(z.string()),
  order_summary_titles: perLanguage(z.string()),
  success_redirect_url: z.string().nullable(),
  failure_redirect_url: z.string().nullable(),
  pending_redirect_url: z.string().nullable(),
  descriptor: z.string().nullable(),
  ignore_descriptor_on_error: z.boolean(),
  metadata,
  created_on: instant,
  updated_on: instant,
});

export const CheckoutLink = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid,
  form_id: uuid,
  mode,
  description: z.string().nullable(),
  enabled: z.boolean(),
  active: z.boolean().describe('false once the link is disabled or expired'),
  expiry: instant.nullable().describe('null: the link does not expire'),
  jwt: z.string().describe('the link’s own token (derived from its id, never stored)'),
  secret: z.string().describe('the link’s secret: the credential of GET /checkout/info/{id}'),
  amount: money,
  amount_formatted: z.string().describe('the amount in major units, as a string'),
  currency: z.string(),
  token_type: z.enum(TOKEN_TYPES),
  token_only: z.boolean(),
  allow_card_installments: z.boolean().nullable(),
  hide_cvv: z.boolean().optional(),
  hide_prefilled_email: z.boolean().optional(),
  destination: z.string().optional(),
  cvv_authorize: z.boolean().optional(),
  charge_auth: z.boolean().optional(),
  charge_capture_on: instant.optional(),
  charge_capture_in: z.string().optional().describe('ISO 8601 duration, at most a week'),
  subscription_period: z.enum(SUBSCRIPTION_PERIODS).optional(),
  subscription_cyclical_period: isoPeriod.optional(),
  subscription_cycles: z.number().int().optional(),
  subscription_initial_amount: money.optional(),
  subscription_start_on: z.string().optional().describe('YYYY-MM-DD'),
  subscription_start_in: isoPeriod.optional(),
  subscription_start_in_months: z.number().int().optional(),
  subscription_start_day_of_month: z.number().int().optional(),
  subscription_preserve_end_of_month: z.boolean().optional(),
  subscription_retry_interval: isoPeriod.optional(),
  metadata,
  created_on: instant,
  updated_on: instant,
});

const checkoutProductFields = {
  id: uuid,
  merchant_id: uuid,
  store_id: uuid,
  code: z.string().nullable().describe('the merchant’s own code, unique in the store'),
  name: z.string(),
  description: z.string().nullable(),
  amount: money,
  currency: z.string(),
  shipping_fees: money.nullable(),
  token_type: z.enum(TOKEN_TYPES),
  subscription_period: z.enum(SUBSCRIPTION_PERIODS).optional(),
  subscription_cyclical_period: isoPeriod.optional(),
  subscription_cycles: z.number().int().optional(),
  subscription_initial_amount: money.optional(),
  subscription_retry_interval: isoPeriod.optional(),
  subscription_preserve_end_of_month: z.boolean().optional(),
  metadata,
  created_on: instant,
  updated_on: instant,
};

export const CheckoutProduct = resource({
  ...checkoutProductFields,
  platform_id: z.null().describe('Kessai has no platforms'),
  active: z.boolean(),
});

export const CheckoutLinkProduct = resource({
  ...checkoutProductFields,
  quantity: z.number().int().describe('how many of it the link sells'),
});

export const CheckoutEmail = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid,
  form_id: uuid,
  link_id: uuid,
  email: z.string(),
  customer_name: z.string().optional(),
  lang: z.enum(CHECKOUT_LANGUAGES),
  status: z.enum(['pending', 'awaiting', 'successful', 'failed', 'error']),
  created_on: instant,
  updated_on: instant,
});

export const CheckoutLinkInfo = resource({
  form: CheckoutForm,
  link: CheckoutLink,
  products: z.array(CheckoutLinkProduct),
}).describe('what the hosted form shows for a link');

export const Transaction = resource({
  store_id: uuid,
  resource_id: uuid,
  charge_id: uuid,
  amount: money,
  currency: z.string(),
  amount_formatted: formatted,
  type: z.enum(TRANSACTION_TYPES),
  status: z.string(),
  metadata,
  created_on: instant,
  mode,
  merchant_name: z.string(),
  payment_type: z.enum(PAYMENT_TYPES),
  user_data: z.object({ email: z.string().nullable(), cardholder_name: z.string().nullable() }).nullable(),
});

export const Webhook = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid.nullable(),
  triggers: z.array(z.string()),
  url: z.string(),
  auth_token: z.string().optional(),
  mode: z.string().describe('Kessai’s: the URL rules it is held to'),
  active: z.boolean(),
  disabled_reason: z.string().optional(),
  previous_secret_expires_on: instant.optional(),
  created_on: instant,
  updated_on: instant,
});
export const WebhookListItem = Webhook.extend({
  merchant_name: z.string(),
  store_name: z.string().nullable(),
});
export const CreatedWebhook = Webhook.extend({
  signing_secret: z
    .string()
    .describe('Standard Webhooks signing secret, shown on creation and rotation only'),
});

export const WebhookDelivery = resource({
  id: uuid,
  webhook_id: uuid,
  event: z.string(),
  successful: z.boolean(),
  fired_on: instant.nullable(),
  error_message: z.string().nullable(),
  status: z.string(),
  attempt_count: z.number().int(),
  next_attempt_on: instant.optional(),
  delivered_on: instant.optional(),
  attempts: z.array(
    z.object({
      number: z.number().int(),
      status_code: z.number().int().nullable(),
      duration_ms: z.number().int().nullable(),
      error_message: z.string().nullable(),
      response_snippet: z.string().nullable(),
      created_on: instant,
    }),
  ),
  created_on: instant,
});

export const BankAccount = resource({
  id: uuid,
  holder_name: z.string(),
  bank_name: z.string(),
  branch_name: z.string().optional(),
  country: z.string().describe('ISO 3166-1 alpha-2'),
  bank_address: z.string().optional(),
  currency: z.string(),
  routing_number: z.string().optional(),
  swift_code: z.string().optional(),
  ifsc_code: z.string().optional(),
  routing_code: z.string().optional(),
  last_four: z.string(),
  status: z.enum(BANK_ACCOUNT_STATUSES),
  created_on: instant,
  primary: z.boolean().describe('the account payouts of its currency go to'),
  account_number: z.string().describe('masked: asterisks and the last four digits'),
  account_type: z.enum(BANK_ACCOUNT_TYPES),
  mode: z.enum(['test', 'live']).describe('Kessai’s: the books it is paid from'),
});

const transferFields = {
  id: uuid,
  merchant_id: uuid,
  bank_account_id: uuid.describe('the primary verified bank account it was made to'),
  amount: money,
  currency: z.string(),
  amount_formatted: formatted,
  status: z.enum(TRANSFER_STATUSES),
  error_code: z.string().optional().describe('why the bank did not pay it'),
  error_text: z.string().optional(),
  metadata,
  started_by: z.string().describe('who made it: `payout-schedule`, or an operator'),
  created_on: instant,
  from: instant.describe('the start of the period it pays (the previous payout day’s start)'),
  to: instant.describe('the end of the period it pays (its payout day’s start): money available by then'),
  mode: z.enum(['test', 'live']).describe('Kessai’s: the books it pays from'),
};

export const Transfer = resource(transferFields).describe('a payout of a merchant’s available balance');
export const TransferListItem = resource({ ...transferFields, merchant_name: z.string() });

export const TransferStatusChange = resource({
  id: uuid,
  merchant_id: uuid,
  transfer_id: uuid,
  old_status: z.enum(TRANSFER_STATUSES),
  new_status: z.enum(TRANSFER_STATUSES),
  reason: z.string().optional(),
  created_on: instant,
});

export const Ledger = resource({
  id: uuid,
  merchant_id: uuid,
  store_id: uuid.optional(),
  transfer_id: uuid.optional().describe('the transfer that pays it, once one does'),
  amount: z
    .number()
    .int()
    .describe('what it owes the store, minor units: a sale’s gross less its fee, a refund negative'),
  currency: z.string(),
  amount_formatted: formatted,
  percent_fee: z.number().describe('a sale’s percent fee'),
  flat_fee: money,
  flat_fee_currency: z.string(),
  flat_fee_formatted: formatted,
  exchange_rate: z.number().describe('always 1: Kessai converts no currency'),
  origin: z.enum(['charge', 'refund', 'manual']),
  note: z.string().optional().describe('an adjustment’s reason'),
  created_on: instant,
}).describe('one fact that moved what a merchant is owed');

export const LinkPayment = resource({
  kind: z.enum(['charge', 'subscription']),
  id: uuid,
  status: z.string().describe('the charge’s or subscription’s status'),
  error: z
    .object({ code: z.number().int().nullable(), message: z.string().nullable() })
    .strict()
    .nullable()
    .describe('why the charge failed'),
  next_action: z
    .object({
      type: z.literal('redirect'),
      url: z.string(),
      method: z.string().describe('http_get, http_post, …'),
      payload: z.unknown(),
    })
    .strict()
    .nullable()
    .describe('an awaiting charge’s page: the issuer’s 3-D Secure page or the operator’s payment page'),
  instructions: z
    .object({
      payment_type: z.enum(['bank_transfer', 'konbini']),
      title: z.string(),
      intro: z.string(),
      lines: z.array(z.object({ key: z.string(), label: z.string(), value: z.string() }).strict()),
    })
    .strict()
    .nullable()
    .describe(
      'an awaiting bank transfer’s or konbini payment’s instructions (virtual account or payment code, amount, deadline in the store’s time zone), in the language of `?lang=` (en, ja)',
    ),
}).describe('what the hosted link page reads of its payment');

export const Heartbeat = resource({ status: z.literal('ok') });
export const Empty = resource({}).describe('an empty object');
export const Capture = resource({
  amount: money.describe('the amount to capture, minor units'),
  currency: z.string(),
}).describe('the capture asked for (the SDK’s CaptureItem); the charge shows it once captured');

/** Every named response schema: each becomes a component of the document. */
export const RESPONSE_SCHEMAS = {
  Charge,
  ChargeListItem,
  IssuerToken,
  ThreeDsIssuerToken,
  ChargeExpiry,
  BankTransferLedger,
  Refund,
  Cancel,
  TransactionToken,
  TransactionTokenListItem,
  CreatedTokenAlias,
  TokenAlias,
  PlannedPayment,
  ScheduledPayment,
  Subscription,
  SubscriptionListItem,
  SubscriptionBatch,
  TestClock,
  Store,
  StoreListItem,
  Merchant,
  Verification,
  ExchangeRate,
  CustomerId,
  AppJwt,
  IssuedAppJwt,
  LoginToken,
  CustomerAuthentication,
  CheckoutGateway,
  CheckoutInfo,
  CheckoutForm,
  CheckoutLink,
  CheckoutProduct,
  CheckoutLinkProduct,
  CheckoutEmail,
  CheckoutLinkInfo,
  LinkPayment,
  Transaction,
  Webhook,
  WebhookListItem,
  CreatedWebhook,
  WebhookDelivery,
  BankAccount,
  Transfer,
  TransferListItem,
  TransferStatusChange,
  Ledger,
  Heartbeat,
  Empty,
  Capture,
} as const;
export type ResponseName = keyof typeof RESPONSE_SCHEMAS;

// ---- compile-time agreement of each schema with its presenter ------------------------------------

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type Differs<A, B> = Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>;
/** true when A and B have the same fields, and the same ones optional; else the fields that differ. */
type Agrees<Presented, Schema extends z.ZodTypeAny> = [Differs<Presented, z.infer<Schema>>] extends [never]
  ? [Differs<Record<OptionalKeys<Presented>, 0>, Record<OptionalKeys<z.infer<Schema>>, 0>>] extends [never]
    ? true
    : {
        optionalityDiffers: Differs<
          Record<OptionalKeys<Presented>, 0>,
          Record<OptionalKeys<z.infer<Schema>>, 0>
        >;
      }
  : { fieldsDiffer: Differs<Presented, z.infer<Schema>> };
type Out<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Checked by the compiler only: each element fails to compile while its schema and presenter differ. */
export const PRESENTER_AGREEMENTS: true[] = [
  true satisfies Agrees<Out<typeof presentCharge>, typeof Charge>,
  true satisfies Agrees<Out<typeof presentChargeListItem>, typeof ChargeListItem>,
  true satisfies Agrees<Out<typeof presentIssuerToken>, typeof IssuerToken>,
  true satisfies Agrees<Out<typeof presentThreeDsIssuerToken>, typeof ThreeDsIssuerToken>,
  true satisfies Agrees<Out<typeof presentChargeExpiry>, typeof ChargeExpiry>,
  true satisfies Agrees<Out<typeof presentBankTransferLedgers>['items'][number], typeof BankTransferLedger>,
  true satisfies Agrees<Out<typeof presentRefund>, typeof Refund>,
  true satisfies Agrees<Out<typeof presentCancel>, typeof Cancel>,
  true satisfies Agrees<Out<typeof presentToken>, typeof TransactionToken>,
  true satisfies Agrees<Out<typeof presentCheckoutGateway>, typeof CheckoutGateway>,
  true satisfies Agrees<Out<typeof presentCreatedTokenAlias>, typeof CreatedTokenAlias>,
  true satisfies Agrees<Out<typeof presentTokenAlias>, typeof TokenAlias>,
  true satisfies Agrees<Out<typeof presentTokenListItem>, typeof TransactionTokenListItem>,
  true satisfies Agrees<Out<typeof presentTokenThreeDsIssuerToken>, typeof ThreeDsIssuerToken>,
  true satisfies Agrees<Out<typeof presentPlannedPayment>, typeof PlannedPayment>,
  true satisfies Agrees<Out<typeof presentScheduledPayment>, typeof ScheduledPayment>,
  true satisfies Agrees<Out<typeof presentSubscription>, typeof Subscription>,
  true satisfies Agrees<Out<typeof presentSubscriptionListItem>, typeof SubscriptionListItem>,
  true satisfies Agrees<Out<typeof presentBatch>, typeof SubscriptionBatch>,
  true satisfies Agrees<Out<typeof presentTestClock>, typeof TestClock>,
  true satisfies Agrees<Out<typeof presentStoreWithMerchant>, typeof Store>,
  true satisfies Agrees<Out<typeof presentStoreListItem>, typeof StoreListItem>,
  true satisfies Agrees<Out<typeof presentMerchant>, typeof Merchant>,
  true satisfies Agrees<Out<typeof presentVerification>, typeof Verification>,
  true satisfies Agrees<Out<typeof presentExchangeRate>, typeof ExchangeRate>,
  true satisfies Agrees<Out<typeof presentAppJwt>, typeof AppJwt>,
  true satisfies Agrees<Out<typeof presentIssuedAppJwt>, typeof IssuedAppJwt>,
  true satisfies Agrees<Out<typeof presentCheckoutInfo>, typeof CheckoutInfo>,
  true satisfies Agrees<
    Out<typeof presentBankTransferConfiguration>,
    typeof checkoutBankTransferConfiguration
  >,
  true satisfies Agrees<ConvenienceConfiguration, typeof checkoutConvenienceConfiguration>,
  true satisfies Agrees<Out<typeof supportedBrands>[number], typeof SupportedBrand>,
  true satisfies Agrees<Out<typeof presentCheckoutForm>, typeof CheckoutForm>,
  true satisfies Agrees<Out<typeof presentCheckoutLink>, typeof CheckoutLink>,
  true satisfies Agrees<Out<typeof presentCheckoutProduct>, typeof CheckoutProduct>,
  true satisfies Agrees<Out<typeof presentLinkProduct>, typeof CheckoutLinkProduct>,
  true satisfies Agrees<Out<typeof presentCheckoutEmail>, typeof CheckoutEmail>,
  true satisfies Agrees<Out<CheckoutService['getInfo']>, typeof CheckoutLinkInfo>,
  true satisfies Agrees<LinkPaymentView, typeof LinkPayment>,
  true satisfies Agrees<Out<typeof presentTransaction>, typeof Transaction>,
  true satisfies Agrees<Out<typeof presentWebhook>, typeof Webhook>,
  true satisfies Agrees<Out<typeof presentWebhookListItem>, typeof WebhookListItem>,
  true satisfies Agrees<Out<typeof presentCreatedWebhook>, typeof CreatedWebhook>,
  true satisfies Agrees<Out<typeof presentDelivery>, typeof WebhookDelivery>,
  true satisfies Agrees<Out<typeof presentBankAccount>, typeof BankAccount>,
  true satisfies Agrees<Out<typeof presentTransfer>, typeof Transfer>,
  true satisfies Agrees<Out<typeof presentTransferListItem>, typeof TransferListItem>,
  true satisfies Agrees<Out<typeof presentTransferStatusChange>, typeof TransferStatusChange>,
  true satisfies Agrees<Out<typeof presentLedger>, typeof Ledger>,
];
