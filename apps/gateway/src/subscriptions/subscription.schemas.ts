import { Duration } from 'luxon';
import { z } from 'zod';
import { canonicalZoneId, SUBSCRIPTION_PERIODS } from '@kessai/schedule';
import { PAYMENT_TYPES, SUBSCRIPTION_STATUSES } from '@kessai/domain';
import { MAX_BATCH_SUBSCRIPTIONS, type SubscriptionBatchInput } from '@kessai/subscriptions';
import { CHARGE_THREE_DS_MODES, createChargeSchema } from '../charges/charge.schemas';
import {
  calendarDate,
  calendarPeriod,
  chargeAmountSchema,
  currencySchema,
  descriptorSchema,
  issue,
  MAX_CHARGE_AMOUNT,
  metadataSchema,
  PROCESSING_MODES,
  reason,
  redirectUrl,
  uuid,
} from '../http/request.schemas';
import { checkInput, parseInput } from '../http/validation';

/**
 * Request schemas of the subscription routes (api-reference §5.3), in wire (snake_case) form: the
 * shape of each field. The rules between fields and against the creation date (start_on not in the
 * past, installments that add up, …) are the schedule engine's (libs/schedule), so that
 * simulate_plan and POST /subscriptions refuse the same input with the same reasons.
 */

export const TERMINATION_MODES = ['immediate', 'on_next_payment'] as const;

/** An amount in minor units that may be any size a charge may be; 0 is left to the engine's rule. */
const initialAmount = z
  .number()
  .int()
  .superRefine((value, ctx) => {
    if (value < 0) ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('NOT_WITHIN_BOUNDS') });
    else if (value > MAX_CHARGE_AMOUNT)
      ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('CHARGE_AMOUNT_TOO_HIGH') });
  });

const cycleCount = z.number().int();

export const installmentPlanSchema = z
  .object({
    plan_type: z.enum(['revolving', 'fixed_cycles', 'fixed_cycle_amount']),
    fixed_cycles: cycleCount.nullish(),
  })
  .strict()
  .superRefine((plan, ctx) => {
    if (plan.plan_type === 'fixed_cycle_amount') issue(ctx, ['plan_type'], 'INSTALLMENT_INVALID_PLAN_TYPE');
    if (plan.plan_type === 'fixed_cycles' && plan.fixed_cycles == null)
      issue(ctx, ['fixed_cycles'], 'REQUIRED_VALUE');
  });

export const subscriptionPlanSchema = z
  .object({
    plan_type: z.enum(['fixed_cycles', 'fixed_cycle_amount']),
    fixed_cycles: cycleCount.nullish(),
    fixed_cycle_amount: chargeAmountSchema.nullish(),
  })
  .strict()
  .superRefine((plan, ctx) => {
    if (plan.plan_type === 'fixed_cycles' && plan.fixed_cycles == null)
      issue(ctx, ['fixed_cycles'], 'REQUIRED_VALUE');
    if (plan.plan_type === 'fixed_cycle_amount' && plan.fixed_cycle_amount == null)
      issue(ctx, ['fixed_cycle_amount'], 'REQUIRED_VALUE');
  });

export const scheduleSettingsSchema = z
  .object({
    /** a calendar date in zone_id; whether it exists and is not past is the engine's to say */
    start_on: calendarDate().nullish(),
    zone_id: z
      .string()
      .max(64)
      .transform((value, ctx) => {
        const zone = canonicalZoneId(value);
        if (zone === null) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, ...reason('INVALID_FORMAT') });
          return z.NEVER;
        }
        return zone;
      })
      .nullish(),
    preserve_end_of_month: z.boolean().nullish(),
    retry_interval: calendarPeriod('INVALID_DURATION').nullish(),
    /** accepted for the shape's sake: a simulation terminates nothing */
    termination_mode: z.enum(TERMINATION_MODES).nullish(),
  })
  .strict();

/** The fields every schedule is computed from, shared by simulate_plan and POST /subscriptions. */
const scheduleFields = {
  amount: chargeAmountSchema,
  currency: currencySchema,
  period: z.enum(SUBSCRIPTION_PERIODS).nullish(),
  cyclical_period: calendarPeriod('INVALID_SUBSCRIPTION_PERIOD').nullish(),
  initial_amount: initialAmount.nullish(),
  installment_plan: installmentPlanSchema.nullish(),
  subscription_plan: subscriptionPlanSchema.nullish(),
  schedule_settings: scheduleSettingsSchema.nullish(),
  /** the SDK's deprecated legacy form: refused in favour of schedule_settings.start_on */
  subsequent_cycles_start: z.union([z.string(), z.number()]).nullish(),
};

type ScheduleFields = z.infer<z.ZodObject<typeof scheduleFields>>;

function refuseContradictions(request: ScheduleFields & { payment_type?: string }, ctx: z.RefinementCtx) {
  if (request.period == null && request.cyclical_period == null) issue(ctx, ['period'], 'REQUIRED_VALUE');
  if (request.period != null && request.cyclical_period != null)
    issue(ctx, ['cyclical_period'], 'FORBIDDEN_PARAMETER');
  if (request.installment_plan != null && request.subscription_plan != null)
    issue(ctx, ['subscription_plan'], 'SUBSCRIPTION_UNSUPPORTED_FOR_INSTALLMENT');
  if (
    request.installment_plan != null &&
    request.payment_type !== undefined &&
    request.payment_type !== 'card'
  )
    issue(ctx, ['installment_plan'], 'INSTALLMENT_PAYMENT_TYPE_NOT_ALLOWED_FOR_PLAN');
  if (request.subsequent_cycles_start != null) issue(ctx, ['subsequent_cycles_start'], 'USE_START_ON');
}

/** POST (/stores/{storeId})/subscriptions/simulate_plan: the SDK's SubscriptionSimulationParams. */
export const simulatePlanSchema = z
  .object({ payment_type: z.enum(PAYMENT_TYPES), ...scheduleFields })
  .strict()
  .superRefine(refuseContradictions);
export type SimulatePlanRequest = z.infer<typeof simulatePlanSchema>;

const terminationSettings = z.object({ termination_mode: z.enum(TERMINATION_MODES).nullish() }).strict();

/** The longest first_charge_capture_after: card authorizations do not outlive a week. */
const MAX_CAPTURE_AFTER = Duration.fromObject({ days: 7 });

/**
 * first_charge_capture_after: an ISO 8601 duration (`P3D`, `PT12H`), more than nothing and at most
 * seven days; answered in luxon's canonical spelling.
 */
const captureAfter = z.string().transform((text, ctx) => {
  const duration = Duration.fromISO(text);
  const ms = duration.isValid ? duration.toMillis() : NaN;
  if (!(ms > 0) || ms > MAX_CAPTURE_AFTER.toMillis()) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, params: { reason: 'INVALID_DURATION' } });
    return z.NEVER;
  }
  return duration.toISO() ?? text;
});

/**
 * POST /subscriptions: the SDK's SubscriptionCreateParams, and Kessai's `test_clock_id`.
 * `first_charge_capture_after` needs `first_charge_authorization_only` (docs/subscriptions.md, "An
 * authorized first charge").
 */
export const createSubscriptionSchema = z
  .object({
    transaction_token_id: uuid,
    ...scheduleFields,
    descriptor: descriptorSchema.nullish(),
    only_direct_currency: z.boolean().nullish(),
    three_ds: z
      .object({
        mode: z.enum(CHARGE_THREE_DS_MODES).nullish(),
        redirect_endpoint: redirectUrl.nullish(),
        redirect_id: z.string().trim().min(1).max(255).nullish(),
      })
      .strict()
      .nullish(),
    metadata: metadataSchema.optional(),
    first_charge_authorization_only: z.boolean().nullish(),
    first_charge_capture_after: captureAfter.nullish(),
    test_clock_id: uuid.nullish(),
  })
  .strict()
  .superRefine((request, ctx) => {
    refuseContradictions(request, ctx);
    if (request.first_charge_capture_after != null && request.first_charge_authorization_only !== true)
      issue(ctx, ['first_charge_authorization_only'], 'REQUIRED_VALUE');
  });
export type CreateSubscriptionRequest = z.infer<typeof createSubscriptionSchema>;

/**
 * PATCH /stores/{storeId}/subscriptions/{id}: the SDK's SubscriptionUpdateParams that Kessai
 * applies. `status` only as it is (status changes are DELETE, suspend and unsuspend);
 * `subscription_plan` as fixed_cycles or null; `installment_plan` and the first-charge options are
 * refused (FORBIDDEN_PARAMETER).
 */
export const updateSubscriptionSchema = z
  .object({
    transaction_token_id: uuid.optional(),
    amount: chargeAmountSchema.optional(),
    status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    descriptor: descriptorSchema.nullish(),
    only_direct_currency: z.boolean().optional(),
    metadata: metadataSchema.optional(),
    schedule_settings: terminationSettings.optional(),
    /** a new number of cycles, or null: open-ended (docs/subscriptions.md, "Changing the plan") */
    subscription_plan: subscriptionPlanSchema.nullable().optional(),
  })
  .strict();

/** PATCH …/suspend and …/unsuspend: an optional termination_mode. */
export const suspendSchema = z.object({ schedule_settings: terminationSettings.nullish() }).strict();

/** PATCH …/token */
export const updateTokenSchema = z.object({ transaction_token_id: uuid }).strict();

const statusList = z
  .union([z.enum(SUBSCRIPTION_STATUSES), z.array(z.enum(SUBSCRIPTION_STATUSES))])
  .transform((value) => (Array.isArray(value) ? value : [value]));

/** GET (/stores/{storeId})/subscriptions filters (api-reference §4); `statuses` as repeated values. */
export const listSubscriptionsSchema = z
  .object({
    status: z.enum(SUBSCRIPTION_STATUSES).optional(),
    statuses: statusList.optional(),
    'statuses[]': statusList.optional(),
    mode: z.enum(PROCESSING_MODES).optional(),
    search: z.string().trim().max(200).optional(),
  })
  .passthrough();

/** PATCH …/payments/{id}: a pending payment's due date and amount, as the store allows. */
export const updateScheduledPaymentSchema = z
  .object({
    due_date: calendarDate().optional(),
    amount: chargeAmountSchema.optional(),
  })
  .strict();

/**
 * POST /subscriptions/batches: up to MAX_BATCH_SUBSCRIPTIONS subscriptions (each as POST
 * /subscriptions takes one) and at most one charge (as POST /charges takes one).
 */
export const createBatchSchema = z
  .object({
    subscriptions: z.array(z.unknown()).min(1).max(MAX_BATCH_SUBSCRIPTIONS),
    charges: z.array(z.unknown()).max(1).optional(),
    initial_charge_metadata: metadataSchema.optional(),
  })
  .strict();

/**
 * A batch's body: its shape refused at once; each item checked by its own schema and refused at
 * its turn by SubscriptionBatchesService, under its own name (subscriptions[1].amount).
 */
export function parseSubscriptionBatch(body: unknown): SubscriptionBatchInput {
  const request = parseInput(createBatchSchema, body);
  const charge = request.charges?.[0];
  return {
    subscriptions: request.subscriptions.map((item) => checkInput(createSubscriptionSchema, item)),
    charge: charge === undefined ? null : checkInput(createChargeSchema, charge),
    initial_charge_metadata: request.initial_charge_metadata,
  };
}
