import type { SubscriptionStatus, TerminationMode } from '@kessai/db';
import type { ChargeInput, Checked, Metadata } from '@kessai/payments';
import type { CalendarPeriod, SubscriptionPeriod } from '@kessai/schedule';

// The inputs of the subscription use cases, as a front end parsed them (the gateway:
// subscription.schemas.ts). The fields keep the API's names (api-reference §5.3), so that the
// API's parsed request is one as it is.

export interface InstallmentPlanInput {
  plan_type: 'revolving' | 'fixed_cycles' | 'fixed_cycle_amount';
  fixed_cycles?: number | null;
}

export interface SubscriptionPlanInput {
  plan_type: 'fixed_cycles' | 'fixed_cycle_amount';
  fixed_cycles?: number | null;
  fixed_cycle_amount?: number | null;
}

export interface ScheduleSettingsInput {
  /** a calendar date (YYYY-MM-DD) in zone_id */
  start_on?: string | null;
  /** a canonical IANA zone */
  zone_id?: string | null;
  preserve_end_of_month?: boolean | null;
  retry_interval?: CalendarPeriod | null;
  termination_mode?: TerminationMode | null;
}

/** The fields a schedule is computed from: simulate_plan's, and a new subscription's. */
export interface ScheduleFieldsInput {
  /** minor units, at least 1 */
  amount: number;
  currency: string;
  /** one of the two: the schema requires it */
  period?: SubscriptionPeriod | null;
  cyclical_period?: CalendarPeriod | null;
  initial_amount?: number | null;
  installment_plan?: InstallmentPlanInput | null;
  subscription_plan?: SubscriptionPlanInput | null;
  schedule_settings?: ScheduleSettingsInput | null;
}

/** A subscription to create. */
export interface SubscriptionInput extends ScheduleFieldsInput {
  transaction_token_id: string;
  descriptor?: string | null;
  only_direct_currency?: boolean | null;
  three_ds?: { mode?: string | null; redirect_endpoint?: string | null; redirect_id?: string | null } | null;
  metadata?: Metadata;
  first_charge_authorization_only?: boolean | null;
  /** an ISO 8601 duration, more than nothing and at most seven days */
  first_charge_capture_after?: string | null;
  test_clock_id?: string | null;
}

/** A subscription's changes (PATCH): `status` only as it is. */
export interface SubscriptionChangesInput {
  transaction_token_id?: string;
  amount?: number;
  status?: SubscriptionStatus;
  descriptor?: string | null;
  only_direct_currency?: boolean;
  metadata?: Metadata;
  schedule_settings?: { termination_mode?: TerminationMode | null };
  /** a new plan, or null: open-ended */
  subscription_plan?: SubscriptionPlanInput | null;
}

/** A pending scheduled payment's changes, as the store allows them. */
export interface ScheduledPaymentChangesInput {
  /** YYYY-MM-DD in the payment's zone */
  due_date?: string;
  /** minor units, at least 1 */
  amount?: number;
}

/** A test clock to create (docs/subscriptions.md, "Test clocks"). */
export interface TestClockInput {
  frozen_time: Date;
  name?: string | null;
}

/** A test clock's move to a later time. */
export interface TestClockAdvanceInput {
  frozen_time: Date;
}

/**
 * A batch to create: its subscriptions and its charge (at most one) as the front end checked them,
 * each refused at its turn (Checked), so that the first item refused is the one answered, as if
 * they had been sent one by one.
 */
export interface SubscriptionBatchInput {
  subscriptions: Checked<SubscriptionInput>[];
  charge: Checked<ChargeInput> | null;
  /** laid over the charge's own metadata */
  initial_charge_metadata?: Metadata;
}
