import { Duration } from 'luxon';
import { z } from 'zod';
import { isUuid } from '@kessai/domain';
import { formatCalendarPeriod, SUBSCRIPTION_PERIODS } from '@kessai/schedule';
import {
  calendarDate,
  calendarPeriod,
  chargeAmountSchema,
  currencySchema,
  issue,
  MAX_CHARGE_AMOUNT,
  metadataSchema,
  reason,
  TOKEN_TYPES,
} from '../http/request.schemas';

/**
 * Request schemas of the hosted checkout routes (api-reference §5.11, docs/hosted-checkout.md), in
 * wire (snake_case) form. The reasons are the SDK's "EC checkout" ones where one fits
 * (INVALID_SUBSCRIPTION_PERIOD, INVALID_SUBSCRIPTION_CYCLES, INVALID_DURATION, INVALID_FORMAT_UUID, …).
 */

/** A UUID, refused as the SDK's checkout refuses one (INVALID_FORMAT_UUID); lower-cased. */
const uuid = z
  .string()
  .refine(isUuid, reason('INVALID_FORMAT_UUID'))
  .transform((value) => value.toLowerCase());

/** An ISO 8601 date-time with an offset. */
const instant = z
  .string()
  .refine(
    (value) => z.string().datetime({ offset: true }).safeParse(value).success,
    reason('INVALID_FORMAT_DATE'),
  )
  .transform((value) => new Date(value));

/** An ISO 8601 calendar duration (P1M, P2W, P23D), kept in its canonical form. */
const canonicalPeriod = (invalidReason: string) =>
  calendarPeriod(invalidReason).transform(formatCalendarPeriod);

/** An ISO 8601 duration of at most a week (charge_capture_in: card authorizations do not outlive one). */
const captureIn = z.string().transform((value, ctx) => {
  const duration = Duration.fromISO(value);
  const ms = duration.isValid ? duration.toMillis() : NaN;
  if (!(ms > 0) || ms > 7 * 24 * 3_600_000) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_DURATION') });
    return z.NEVER;
  }
  return value;
});

const boundedInt = (min: number, max: number, invalidReason: string) =>
  z
    .number()
    .int()
    .refine((value) => value >= min && value <= max, reason(invalidReason));

const SUBSCRIPTION_FIELDS = [
  'subscription_period',
  'subscription_cyclical_period',
  'subscription_cycles',
  'subscription_initial_amount',
  'subscription_start_on',
  'subscription_start_in',
  'subscription_start_in_months',
  'subscription_start_day_of_month',
  'subscription_preserve_end_of_month',
  'subscription_retry_interval',
] as const;

/** The most products one link sells. */
export const MAX_LINK_PRODUCTS = 50;

/**
 * POST /checkout/links/temporary: the SDK's ECFormLinkPublicCreateParams. `merchant_id` and
 * `store_id` may be sent (they must then be the caller's); `jwt` is accepted because the SDK's type
 * has it, and is not used: the link's own jwt is Kessai's. `products` is Kessai's extension: what the
 * link sells (then `amount` must be their total).
 */
export const createTemporaryLinkSchema = z
  .object({
    form_id: uuid,
    merchant_id: uuid.optional(),
    store_id: uuid.optional(),
    jwt: z.string().max(4096).nullish(),
    description: z.string().trim().max(1000).nullish(),
    enabled: z.boolean().default(true),
    expiry: instant.nullish(),
    amount: chargeAmountSchema,
    currency: currencySchema,
    token_type: z.enum(TOKEN_TYPES),
    token_only: z.boolean().default(false),
    hide_cvv: z.boolean().nullish(),
    hide_prefilled_email: z.boolean().nullish(),
    metadata: metadataSchema.optional(),
    destination: z.string().trim().min(1).max(2048).nullish(),
    cvv_authorize: z.boolean().nullish(),
    charge_auth: z.boolean().nullish(),
    charge_capture_on: instant.nullish(),
    charge_capture_in: captureIn.nullish(),
    allow_card_installments: z.boolean().nullish(),
    subscription_period: z
      .string()
      .refine(
        (value) => (SUBSCRIPTION_PERIODS as readonly string[]).includes(value),
        reason('INVALID_SUBSCRIPTION_PERIOD'),
      )
      .transform((value) => value as (typeof SUBSCRIPTION_PERIODS)[number])
      .nullish(),
    subscription_cyclical_period: canonicalPeriod('INVALID_SUBSCRIPTION_PERIOD').nullish(),
    subscription_cycles: boundedInt(1, 1000, 'INVALID_SUBSCRIPTION_CYCLES').nullish(),
    subscription_initial_amount: boundedInt(
      0,
      MAX_CHARGE_AMOUNT,
      'INVALID_SUBSCRIPTION_INITIAL_AMOUNT',
    ).nullish(),
    /** YYYY-MM-DD; not in the past is the service's to say (it needs today's date) */
    subscription_start_on: calendarDate('INVALID_SUBSCRIPTION_START_ON').nullish(),
    subscription_start_in: canonicalPeriod('INVALID_DURATION').nullish(),
    subscription_start_in_months: boundedInt(0, 24, 'NOT_WITHIN_BOUNDS').nullish(),
    subscription_start_day_of_month: boundedInt(1, 31, 'INVALID_SUBSCRIPTION_START_DAY_OF_MONTH').nullish(),
    subscription_preserve_end_of_month: z.boolean().nullish(),
    subscription_retry_interval: canonicalPeriod('INVALID_DURATION').nullish(),
    products: z
      .array(
        z
          .object({ product_id: uuid, quantity: boundedInt(1, 1000, 'NOT_WITHIN_BOUNDS').default(1) })
          .strict(),
      )
      .max(MAX_LINK_PRODUCTS)
      .refine(
        (list) => new Set(list.map((p) => p.product_id)).size === list.length,
        reason('MUST_CONTAIN_UNIQUE_ELEMENTS_ONLY'),
      )
      .optional(),
  })
  .strict()
  .superRefine((link, ctx) => {
    if (link.token_type !== 'subscription') {
      for (const field of SUBSCRIPTION_FIELDS)
        if (link[field] !== undefined && link[field] !== null) issue(ctx, [field], 'FORBIDDEN_PARAMETER');
      return;
    }
    const period = link.subscription_period ?? null;
    const cyclical = link.subscription_cyclical_period ?? null;
    if (period === null && cyclical === null) issue(ctx, ['subscription_period'], 'REQUIRED_VALUE');
    if (period !== null && cyclical !== null)
      issue(ctx, ['subscription_cyclical_period'], 'INVALID_SUBSCRIPTION_PERIOD');
    const startOn = link.subscription_start_on ?? null;
    const startIn = link.subscription_start_in ?? null;
    const inMonths = link.subscription_start_in_months ?? null;
    const dayOfMonth = link.subscription_start_day_of_month ?? null;
    if (startOn !== null && startIn !== null)
      issue(ctx, ['subscription_start_in'], 'INVALID_SUBSCRIPTION_START_ON');
    if (inMonths !== null && (startOn !== null || startIn !== null))
      issue(ctx, ['subscription_start_in_months'], 'PEER_SUBSCRIPTION_START_IN_MONTHS_CONFLICT');
    if (inMonths !== null && dayOfMonth === null)
      issue(ctx, ['subscription_start_in_months'], 'PEER_SUBSCRIPTION_START_DAY_OF_MONTH_REQUIRED');
    if (dayOfMonth !== null && inMonths === null)
      issue(ctx, ['subscription_start_day_of_month'], 'INVALID_SUBSCRIPTION_START_DAY_OF_MONTH');
  });

export type CreateTemporaryLinkRequest = z.infer<typeof createTemporaryLinkSchema>;

/** GET /checkout/info/{id}?secret=…: the link's secret is the credential. */
export const checkoutInfoQuerySchema = z.object({ secret: z.string().min(1).max(256) }).passthrough();

/** POST /checkout/links/{id}/emails (Kessai's extension): record a link sent to a customer. */
export const createLinkEmailSchema = z
  .object({
    email: z.string().trim().max(254).email(),
    customer_name: z.string().trim().min(1).max(200).nullish(),
    lang: z.enum(['en_us', 'ja_jp', 'zh_cn', 'zh_tw']).default('ja_jp'),
  })
  .strict();
