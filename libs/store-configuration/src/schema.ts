import { z } from 'zod';
import { CARD_BRANDS } from '@kessai/cards';
import { isKnownCurrency, percentToPpm } from '@kessai/domain';
import { CHECKOUT_COLOR_KEYS, HEX_COLOR, normaliseHexColor, type CheckoutColorKey } from './checkout-theme';
import { isCardLimitDuration } from './card-limit';
import { isExpirationPeriod, isTimeShift } from './payment-deadline';
import { isWaitPeriod } from './wait-period';
import {
  DAYS_OF_WEEK,
  FEE_CARD_BRANDS,
  MATCH_AMOUNTS,
  OPERATOR_ONLY_KEYS,
  QR_GATEWAYS,
  RECURRING_TOKEN_PRIVILEGES,
  TRANSFER_PERIODS,
  WEEKS_OF_MONTH,
  type FeeCardBrand,
} from './configuration';

/**
 * The input of a configuration change, in wire form: every key optional, `null` removing a layer's
 * own value (the store then follows its merchant, the merchant the defaults). Keys Kessai does not
 * honour are refused (FORBIDDEN_PARAMETER) rather than stored as decoration. Reasons name the field
 * only, never a value.
 */

const reason = (name: string) => ({ params: { reason: name } });

/** The API's amount range (POST /charges): 1 to 9,999,999,999 minor units. */
const MAX_AMOUNT = 9_999_999_999;

const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/)
  .transform((v) => v.toUpperCase())
  .refine(isKnownCurrency, reason('UNSUPPORTED_CURRENCY'));

const amountsWithCurrency = (min: number) =>
  z
    .array(z.object({ amount: z.number().int().min(min).max(MAX_AMOUNT), currency }).strict())
    .max(200)
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((item, i) => {
        if (seen.has(item.currency))
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            path: [i, 'currency'],
            ...reason('NO_DUPLICATE_CURRENCIES'),
          });
        seen.add(item.currency);
      });
    });

/** One of `values`, refused with the SDK's reason for the field. */
const oneOf = <T extends string>(values: readonly [T, ...T[]], reasonName: string) =>
  z
    .string()
    .refine(
      (value): value is T => (values as readonly string[]).includes(value),
      reason(reasonName),
    ) as unknown as z.ZodType<T, z.ZodTypeDef, unknown>;

const percent = z.number().refine((v) => percentToPpm(v) !== null, reason('INVALID_PERCENT_FEE'));

const unique = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .array(z.enum(values))
    .max(values.length)
    .transform((items) => [...new Set(items)]);

const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, reason('INVALID_TIME_ZONE'));

const period = z.string().trim().refine(isExpirationPeriod, reason('INVALID_TIME_PERIOD'));
const timeShift = z
  .object({
    enabled: z.boolean(),
    value: z.string().trim().refine(isTimeShift, reason('INVALID_FORMAT')),
  })
  .strict();

const hexColor = z.string().regex(HEX_COLOR, 'a colour is #rgb or #rrggbb').transform(normaliseHexColor);

const layer = {
  card_configuration: z
    .object({
      enabled: z.boolean().nullish(),
      forbidden_card_brands: unique(CARD_BRANDS).nullish(),
      card_limit: z
        .object({
          amount: z.number().int().min(1).max(MAX_AMOUNT),
          currency,
          duration: z.string().trim().refine(isCardLimitDuration, reason('INVALID_TIME_PERIOD')),
        })
        .strict()
        .nullish(),
    })
    .strict()
    .nullish(),
  qr_scan_configuration: z
    .object({
      enabled: z.boolean().nullish(),
      forbidden_qr_scan_gateways: unique(QR_GATEWAYS).nullish(),
    })
    .strict()
    .nullish(),
  online_configuration: z.object({ enabled: z.boolean().nullish() }).strict().nullish(),
  qr_merchant_configuration: z.object({ enabled: z.boolean().nullish() }).strict().nullish(),
  paidy_configuration: z.object({ enabled: z.boolean().nullish() }).strict().nullish(),
  bank_transfer_configuration: z
    .object({
      enabled: z.boolean().nullish(),
      match_amount: z.enum(MATCH_AMOUNTS).nullish(),
      expiration: period.nullish(),
      expiration_time_shift: timeShift.nullish(),
      default_extension_period: period.nullish(),
      maximum_extension_period: period.nullish(),
      automatic_extension_enabled: z.boolean().nullish(),
    })
    .strict()
    .nullish(),
  convenience_configuration: z
    .object({
      enabled: z.boolean().nullish(),
      expiration: period.nullish(),
      expiration_time_shift: timeShift.nullish(),
    })
    .strict()
    .nullish(),
  minimum_charge_amounts: amountsWithCurrency(1).nullish(),
  maximum_charge_amounts: amountsWithCurrency(1).nullish(),
  recurring_token_configuration: z
    .object({ recurring_type: z.enum(RECURRING_TOKEN_PRIVILEGES).nullish() })
    .strict()
    .nullish(),
  subscription_configuration: z
    .object({
      enabled: z.boolean().nullish(),
      failed_charges_to_cancel: z.number().int().min(1).max(100).nullish(),
      suspend_on_cancel: z.boolean().nullish(),
      allow_merchant_amount_patch: z.boolean().nullish(),
      allow_merchant_due_date_patch: z.boolean().nullish(),
    })
    .strict()
    .nullish(),
  installments_configuration: z.object({ enabled: z.boolean().nullish() }).strict().nullish(),
  customer_management_configuration: z.object({ enabled: z.boolean().nullish() }).strict().nullish(),
  percent_fee: percent.nullish(),
  card_brand_percent_fees: z
    .object(
      Object.fromEntries(Object.keys(FEE_CARD_BRANDS).map((key) => [key, percent.nullish()])) as Record<
        FeeCardBrand,
        z.ZodOptional<z.ZodNullable<typeof percent>>
      >,
    )
    .strict()
    .nullish(),
  flat_fees: amountsWithCurrency(0).nullish(),
  wait_period: z.string().trim().refine(isWaitPeriod, reason('INVALID_TIME_PERIOD')).nullish(),
  transfer_schedule: z
    .object({
      period: oneOf(TRANSFER_PERIODS, 'INVALID_TIME_PERIOD').nullish(),
      full_period_required: z.boolean().nullish(),
      day_of_week: oneOf(DAYS_OF_WEEK, 'INVALID_DAY_OF_WEEK').nullish(),
      week_of_month: oneOf(WEEKS_OF_MONTH, 'INVALID_WEEK_OF_MONTH').nullish(),
      day_of_month: z
        .number()
        .refine((day) => Number.isInteger(day) && day >= 1 && day <= 31, reason('INVALID_DAY_OF_MONTH'))
        .nullish(),
    })
    .strict()
    .nullish(),
  min_transfer_payout: z
    .object({ amount: z.number().int().min(0).max(MAX_AMOUNT), currency })
    .strict()
    .nullish(),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .transform((v) => v.toUpperCase())
    .nullish(),
  display_time_zone: timeZone.nullish(),
  language: z
    .string()
    .regex(/^[A-Za-z]{2}_[A-Za-z]{2}$/)
    .transform((v) => v.toUpperCase())
    .nullish(),
  checkout_colors: z
    .object(
      Object.fromEntries(CHECKOUT_COLOR_KEYS.map((key) => [key, hexColor.nullish()])) as Record<
        CheckoutColorKey,
        z.ZodOptional<z.ZodNullable<typeof hexColor>>
      >,
    )
    .strict()
    .nullish(),
};

/** A change as the operator makes it (admin CLI): every key, fees included. */
export const operatorConfigurationPatchSchema = z.object(layer).strict();
export type ConfigurationPatch = z.infer<typeof operatorConfigurationPatchSchema>;

/** A change as a merchant makes it (PATCH /stores/{id}): fees are the operator's, refused here. */
export const merchantConfigurationPatchSchema = operatorConfigurationPatchSchema
  .omit(
    Object.fromEntries(OPERATOR_ONLY_KEYS.map((key) => [key, true])) as Record<
      (typeof OPERATOR_ONLY_KEYS)[number],
      true
    >,
  )
  .strict();
