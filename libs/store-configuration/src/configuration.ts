import { DEFAULT_WAIT_PERIOD } from './wait-period';
import type { CardBrand } from '@kessai/cards';
import { DEFAULT_CHECKOUT_COLORS, type CheckoutColors } from './checkout-theme';

/**
 * The store and merchant `configuration` object (api-reference §5.8): the keys Kessai honours, in
 * wire form (snake_case). docs/configuration.md says what each one does.
 */

export const RECURRING_TOKEN_PRIVILEGES = ['none', 'bounded', 'infinite'] as const;

/** The SDK's TransferPeriod: how often a merchant is paid out. */
export const TRANSFER_PERIODS = ['weekly', 'biweekly', 'semimonthly', 'monthly', 'bimonthly'] as const;
export type TransferPeriod = (typeof TRANSFER_PERIODS)[number];
/** The SDK's DayOfWeek. */
export const DAYS_OF_WEEK = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
] as const;
export type DayOfWeek = (typeof DAYS_OF_WEEK)[number];
/** The SDK's WeekOfMonth. */
export const WEEKS_OF_MONTH = ['first', 'second', 'third', 'fourth', 'last'] as const;
export type WeekOfMonth = (typeof WEEKS_OF_MONTH)[number];

/**
 * When a merchant is paid out (the SDK's TransferScheduleItem, api-reference §5.6; docs/ledger.md,
 * "Payout schedule"). Its `wait_period` is the configuration's own top-level key.
 */
export interface TransferSchedule {
  period: TransferPeriod;
  /** a payout only once a whole period has passed since the merchant's first sale */
  full_period_required: boolean;
  /** the weekly and biweekly payout day */
  day_of_week: DayOfWeek;
  /** the week of a monthly or bimonthly payout on `day_of_week` */
  week_of_month: WeekOfMonth;
  /** the day of a monthly, bimonthly or semimonthly payout (a shorter month's last day when past it) */
  day_of_month: number;
}
export type RecurringTokenPrivilege = (typeof RECURRING_TOKEN_PRIVILEGES)[number];

/** The QRGateway enum (api-reference §5.12): the operators a scanned code is paid through. */
export const QR_GATEWAYS = [
  'aeon_pay',
  'alipay',
  'alipay_connect',
  'alipay_connect_mpm',
  'alipay_connect_cpm',
  'alipay_merchant_qr',
  'alipay_plus',
  'alipay_plus_mpm',
  'alipay_plus_cpm',
  'au_pay',
  'bartong',
  'boost',
  'bpi',
  'd_barai',
  'd_barai_mpm',
  'ginko_pay',
  'hellomoney',
  'jkopay',
  'line_pay',
  'merpay',
  'qq',
  'origami',
  'pay_pay',
  'pay_pay_merchant',
  'rabbit_line_pay',
  'rakuten_pay',
  'rakuten_pay_merchant',
  'via',
  'we_chat',
  'we_chat_mpm',
] as const;
export type QrGateway = (typeof QR_GATEWAYS)[number];

/** card_brand_percent_fees' keys (api-reference §5.8), and the CardBrand each stands for. */
export const FEE_CARD_BRANDS = {
  american_express: 'american_express',
  diners_club: 'diners_club',
  discover: 'discover',
  jcb: 'jcb',
  maestro: 'maestro',
  mastercard: 'mastercard',
  union_pay: 'unionpay',
  visa: 'visa',
} as const satisfies Record<string, CardBrand>;
export type FeeCardBrand = keyof typeof FEE_CARD_BRANDS;

export interface AmountWithCurrency {
  /** minor units */
  amount: number;
  /** ISO 4217, upper case */
  currency: string;
}

/**
 * `card_configuration.card_limit` (the SDK's CardConfigurationMonthlyLimit): what one card may be
 * charged at a store within a rolling window (decision 0070; its rules in card-limit.ts).
 */
export interface CardLimit extends AmountWithCurrency {
  /** an ISO 8601 period of days, weeks or months (P1D, P1W, P1M, P30D): the window, ending now */
  duration: string;
}

export interface SubscriptionConfiguration {
  enabled: boolean;
  failed_charges_to_cancel: number;
  suspend_on_cancel: boolean;
  allow_merchant_amount_patch: boolean;
  allow_merchant_due_date_patch: boolean;
}

/** bank_transfer_configuration.match_amount: which received amount pays a bank-transfer or konbini charge. */
export const MATCH_AMOUNTS = ['exact', 'minimum', 'maximum', 'disabled'] as const;
export type MatchAmount = (typeof MATCH_AMOUNTS)[number];

/** `expiration_time_shift` (api-reference §5.8): the time of day (with its offset) a deadline moves to. */
export interface ExpirationTimeShift {
  enabled: boolean;
  /** HH:mm[:ss[.SSS]] with an offset, e.g. 23:59:59.000+09:00 */
  value: string;
}

/** The keys of bank_transfer_configuration Kessai honours (docs/bank-transfer-and-konbini.md). */
export interface BankTransferConfiguration {
  enabled: boolean;
  match_amount: MatchAmount;
  /** ISO 8601 period from the charge's creation to its payment deadline */
  expiration: string;
  expiration_time_shift: ExpirationTimeShift;
  /** ISO 8601 period an extension without a date adds */
  default_extension_period: string;
  /** ISO 8601 period: the furthest one extension may move the deadline */
  maximum_extension_period: string;
  /**
   * An unpaid bank-transfer or konbini charge is extended by `default_extension_period` at its
   * deadline (while the extension rules allow it) instead of failing
   */
  automatic_extension_enabled: boolean;
}

/** The keys of convenience_configuration (konbini) Kessai honours. */
export interface ConvenienceConfiguration {
  enabled: boolean;
  expiration: string;
  expiration_time_shift: ExpirationTimeShift;
}

/** A configuration with every key set: what a store (or merchant) is held to. */
export interface StoreConfiguration {
  card_configuration: {
    enabled: boolean;
    forbidden_card_brands: CardBrand[];
    /**
     * what one card may be charged at the store within a window, in one currency (charges in
     * others are not limited); null: no limit. Checked at POST /charges (decision 0070)
     */
    card_limit: CardLimit | null;
  };
  qr_scan_configuration: { enabled: boolean; forbidden_qr_scan_gateways: QrGateway[] };
  online_configuration: { enabled: boolean };
  /** a code the merchant shows and the consumer's wallet scans (qr_merchant) */
  qr_merchant_configuration: { enabled: boolean };
  /** Paidy (paidy) */
  paidy_configuration: { enabled: boolean };
  bank_transfer_configuration: BankTransferConfiguration;
  /** konbini */
  convenience_configuration: ConvenienceConfiguration;
  minimum_charge_amounts: AmountWithCurrency[];
  maximum_charge_amounts: AmountWithCurrency[];
  recurring_token_configuration: { recurring_type: RecurringTokenPrivilege };
  /** stored and presented; the subscriptions issue consumes it */
  subscription_configuration: SubscriptionConfiguration;
  /** `enabled` false: no new subscription with an `installment_plan` (403 INSTALLMENTS_NOT_ENABLED) */
  installments_configuration: { enabled: boolean };
  /**
   * `enabled` false: the store's customers cannot log in (refers.sendCode / refers.authorize) and
   * their customer tokens are refused (403 CUSTOMER_LOGIN_NOT_ENABLED)
   */
  customer_management_configuration: { enabled: boolean };
  /** percent of the charged amount, at most 4 decimals */
  percent_fee: number;
  /** a brand's percent instead of percent_fee for card charges of that brand */
  card_brand_percent_fees: Partial<Record<FeeCardBrand, number>>;
  flat_fees: AmountWithCurrency[];
  /**
   * how long after a sale its money becomes available to be paid out (ISO 8601 period of days,
   * weeks or hours; the ledger, docs/ledger.md)
   */
  wait_period: string;
  /** when the merchant is paid out; the merchant's layer only (payouts are per merchant) */
  transfer_schedule: TransferSchedule;
  /**
   * the least balance of its currency a payout is made of (other currencies: any positive balance);
   * the merchant's layer only
   */
  min_transfer_payout: AmountWithCurrency;
  /** ISO 3166-1 alpha-2 */
  country: string;
  /** IANA time zone */
  display_time_zone: string;
  language: string;
  /** the hosted checkout's colours (GET /checkout_info `theme.colors`), #rrggbb */
  checkout_colors: CheckoutColors;
}

/** The nested objects of a configuration: merged key by key, where everything else is replaced whole. */
export const OBJECT_KEYS = [
  'card_configuration',
  'qr_scan_configuration',
  'online_configuration',
  'qr_merchant_configuration',
  'paidy_configuration',
  'bank_transfer_configuration',
  'convenience_configuration',
  'recurring_token_configuration',
  'subscription_configuration',
  'installments_configuration',
  'customer_management_configuration',
  'card_brand_percent_fees',
  'checkout_colors',
  'transfer_schedule',
] as const satisfies readonly (keyof StoreConfiguration)[];

/**
 * Fees and when money is paid out are the operator's terms: set through the admin CLI, never by the
 * merchant's own API calls.
 */
export const OPERATOR_ONLY_KEYS = [
  'percent_fee',
  'card_brand_percent_fees',
  'flat_fees',
  'wait_period',
  'transfer_schedule',
  'min_transfer_payout',
] as const satisfies readonly (keyof StoreConfiguration)[];

/** Payouts are per merchant: these keys are set on the merchant's layer only, never a store's. */
export const MERCHANT_ONLY_KEYS = [
  'transfer_schedule',
  'min_transfer_payout',
] as const satisfies readonly (keyof StoreConfiguration)[];

/** What every store is held to until its merchant or itself says otherwise. */
export const DEFAULT_CONFIGURATION: StoreConfiguration = {
  card_configuration: { enabled: true, forbidden_card_brands: [], card_limit: null },
  qr_scan_configuration: { enabled: true, forbidden_qr_scan_gateways: [] },
  online_configuration: { enabled: true },
  qr_merchant_configuration: { enabled: true },
  paidy_configuration: { enabled: true },
  bank_transfer_configuration: {
    enabled: true,
    match_amount: 'exact',
    expiration: 'P7D',
    expiration_time_shift: { enabled: false, value: '23:59:59.000+09:00' },
    default_extension_period: 'P7D',
    maximum_extension_period: 'P30D',
    automatic_extension_enabled: false,
  },
  convenience_configuration: {
    enabled: true,
    expiration: 'P7D',
    expiration_time_shift: { enabled: false, value: '23:59:59.000+09:00' },
  },
  minimum_charge_amounts: [],
  maximum_charge_amounts: [],
  recurring_token_configuration: { recurring_type: 'infinite' },
  subscription_configuration: {
    enabled: true,
    failed_charges_to_cancel: 3,
    suspend_on_cancel: true,
    allow_merchant_amount_patch: false,
    allow_merchant_due_date_patch: false,
  },
  // installment plans are offered (docs/subscriptions.md, "Amounts") until a merchant or store says not
  installments_configuration: { enabled: true },
  // customers log in as they did before the switch existed (decision 0070) until a store says not
  customer_management_configuration: { enabled: true },
  percent_fee: 0,
  card_brand_percent_fees: {},
  flat_fees: [],
  wait_period: DEFAULT_WAIT_PERIOD,
  // the reference's fixture: monthly, on the 1st
  transfer_schedule: {
    period: 'monthly',
    full_period_required: false,
    day_of_week: 'monday',
    week_of_month: 'first',
    day_of_month: 1,
  },
  min_transfer_payout: { amount: 0, currency: 'JPY' },
  country: 'JP',
  display_time_zone: 'Asia/Tokyo',
  language: 'JA_JP',
  checkout_colors: DEFAULT_CHECKOUT_COLORS,
};
