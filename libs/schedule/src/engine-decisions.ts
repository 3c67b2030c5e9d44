import { Duration } from 'luxon';
import { randomUUID } from 'node:crypto';
import type {
  ClaimDecisions,
  DuePayment,
  NextPaymentInput,
  PaymentChargeInput,
  PaymentToSettle,
  SettlementDecisions,
  SettlementEventInput,
} from '@kessai/db';
import {
  canMoveSubscription,
  isEndedSubscriptionStatus,
  SUBSCRIPTION_MOVES,
  subscriptionTransition,
  tokenCvvAuthorizeRefusal,
  type SubscriptionMoveName,
} from '@kessai/domain';
import { paymentError, type PaymentErrorDetails } from '@kessai/processor';
import { computeSchedule, retryDueAt } from './schedule';
import { storedRetryInterval, storedScheduleInput, type StoredSchedule } from './stored';
import { cardLimitFor, chargeRefusal, effectiveConfiguration, feeTermsOf } from '@kessai/store-configuration';

/**
 * The engine's decisions (docs/subscriptions.md, "The engine"), pure: what to do with the payments
 * the scheduler claimed, and what follows a payment's charge. The repository locks the rows and
 * applies these decisions in the same transaction. A subscription's new status and its events are
 * the moves of libs/domain's machine (SUBSCRIPTION_MOVES), never written here.
 */

type SubscriptionStatus = DuePayment['subscription_status'];

/** The subscription's moves a settlement makes (docs/subscriptions.md, "Settlement"). */
type SettlementMove = Extract<
  SubscriptionMoveName,
  | 'first_authorized'
  | 'paid'
  | 'paid_while_suspended'
  | 'paid_last'
  | 'first_failed'
  | 'retry'
  | 'failed_while_suspended'
  | 'dunning_suspended'
  | 'dunning_canceled'
>;

/**
 * The payment error of a try over the store's card limit (decision 0076): 309 with the SDK's code
 * of the same refusal at POST /charges as `detail`, as the engine names every store rule's refusal.
 */
export const CARD_LIMIT_PAYMENT_ERROR = paymentError('PROCESSING_ERROR', 'CARD_LIMIT_EXCEEDED_FOR_STORE');

/**
 * What to do with each claimed payment: charge it, or end it without a charge. A card charge in the
 * currency of the store's card limit carries the limit (`cardLimitFor`, the rule of POST /charges),
 * its window ending `now`: the repository checks it as the charge is inserted.
 */
export function decideClaims(due: readonly DuePayment[], now: Date = new Date()): ClaimDecisions {
  const charges: PaymentChargeInput[] = [];
  const terminations: string[] = [];
  for (const payment of due) {
    if (isEndedSubscriptionStatus(payment.subscription_status) || payment.terminate_with_status !== null) {
      terminations.push(payment.payment_id);
      continue;
    }
    charges.push(chargeOf(payment, now));
  }
  return { charges, terminations, cardLimitError: CARD_LIMIT_PAYMENT_ERROR };
}

/** The charge of a payment's next try: pending, or failed at once when it cannot be charged. */
function chargeOf(payment: DuePayment, now: Date): PaymentChargeInput {
  // a subscription's first charge may be an authorization only, captured later (or by the merchant)
  const authorizeOnly = payment.sequence === 1 && payment.first_charge_authorization_only;
  const captureAfter =
    authorizeOnly && payment.first_charge_capture_after !== null
      ? Duration.fromISO(payment.first_charge_capture_after)
      : null;
  const configuration = effectiveConfiguration(payment.merchant_configuration, payment.store_configuration);
  const refusal = refusalOf(payment, configuration);
  const fees = feeTermsOf(configuration, {
    paymentType: payment.payment_type,
    cardBrand: payment.card_brand,
    currency: payment.currency,
  });
  // the window ends at the real time, the time of the charges it counts (created_on), also for a
  // payment on a test clock
  const cardLimit = cardLimitFor(
    configuration,
    { paymentType: payment.payment_type, currency: payment.currency },
    now,
  );
  return {
    payment_id: payment.payment_id,
    attempt: payment.attempts + 1,
    charge_id: randomUUID(),
    subscription_id: payment.subscription_id,
    merchant_id: payment.merchant_id,
    store_id: payment.store_id,
    transaction_token_id: payment.transaction_token_id,
    transaction_token_type: payment.token_type,
    mode: payment.mode,
    amount: payment.payment_amount.toString(),
    currency: payment.currency,
    descriptor: payment.descriptor,
    only_direct_currency: payment.only_direct_currency,
    capture: !authorizeOnly,
    // in real time, as every charge lives: charge-service's capture sweep captures it then
    capture_at: captureAfter?.isValid ? new Date(Date.now() + captureAfter.toMillis()).toISOString() : null,
    fee_rate_ppm: fees.ratePpm,
    fee_flat_amount: fees.flatAmount.toString(),
    refused: refusal !== null,
    error_code: refusal?.code ?? null,
    error_message: refusal?.message ?? null,
    error_detail: refusal?.detail ?? null,
    card_limit_amount: cardLimit?.amount.toString() ?? null,
    card_limit_since: cardLimit?.since.toISOString() ?? null,
  };
}

/**
 * Why a payment's charge is refused before the processor: its token can no longer be charged (it
 * was deleted, it waits for its confirmation code, its 3-D Secure failed, its CVV authorization is
 * enabled and not `current`: decision 0077, the rule of POST /charges), or the store's rules forbid
 * it now. The try fails like a declined card and is retried like one, so that a merchant who
 * fixes it (a new token through PATCH …/token) sees the next try succeed.
 */
function refusalOf(
  payment: DuePayment,
  configuration: ReturnType<typeof effectiveConfiguration>,
): PaymentErrorDetails | null {
  if (!payment.token_active) return paymentError('CARD_INVALID', 'the transaction token is not active');
  if (payment.token_confirmed === false)
    return paymentError('CARD_INVALID', 'the transaction token is waiting for its confirmation code');
  if (payment.three_ds_status === 'failed' || payment.three_ds_status === 'error')
    return paymentError('THREE_DS_COULD_NOT_BE_COMPLETED', "the transaction token's 3-D Secure failed");
  const cvvRefusal = tokenCvvAuthorizeRefusal(
    payment.cvv_authorize_enabled === null
      ? null
      : { enabled: payment.cvv_authorize_enabled, status: payment.cvv_authorize_status },
  );
  if (cvvRefusal !== null) return paymentError('PROCESSING_ERROR', cvvRefusal);
  const refusal = chargeRefusal(configuration, {
    paymentType: payment.payment_type,
    tokenType: payment.token_type,
    usageLimit: payment.usage_limit,
    cardBrand: payment.card_brand,
    qrGateway: payment.qr_gateway,
    amount: payment.payment_amount,
    currency: payment.currency,
  });
  return refusal ? paymentError('PROCESSING_ERROR', refusal.code) : null;
}

function storedScheduleOf(row: PaymentToSettle): StoredSchedule {
  return {
    scheduleCreatedAt: row.schedule_created_at,
    period: row.period,
    cyclicalPeriod: row.cyclical_period,
    zoneId: row.zone_id,
    startOn: row.start_on,
    preserveEndOfMonth: row.preserve_end_of_month,
    amount: row.subscription_amount,
    initialAmount: row.initial_amount,
    installmentPlan: row.installment_plan,
    subscriptionPlan: row.subscription_plan,
    retryInterval: row.retry_interval,
  };
}

/**
 * What follows each settled payment's charge:
 * - successful: the payment is paid; the subscription is `current` (a suspended one stays
 *   suspended), what is left of its plan goes down, and its next payment is scheduled — or, the
 *   last one paid, it is `completed`;
 * - authorized (a first charge only authorized): the subscription is `authorized`, the try goes on;
 * - failed (or error, or canceled), first payment of an `unverified` (or `authorized`)
 *   subscription: `unconfirmed`, nothing more is charged;
 * - failed later: `unpaid`, the payment tried again retry_interval after its due date, until the
 *   store's failed_charges_to_cancel tries have failed; then `suspended`, the payment kept paused
 *   for an unsuspension (or, when the store's suspend_on_cancel is false, `canceled`).
 * A subscription canceled or completed meanwhile only gets its payment settled.
 */
export function decideSettlements(rows: readonly PaymentToSettle[]): SettlementDecisions {
  const decisions: SettlementDecisions = { settlements: [], next: [], events: [] };
  for (const row of rows) settle(row, decisions);
  return decisions;
}

function settle(row: PaymentToSettle, out: SettlementDecisions): void {
  const now = row.clock_now;
  const ended = isEndedSubscriptionStatus(row.subscription_status);
  const event = (eventType: SettlementEventInput['event_type'], status: SubscriptionStatus) =>
    out.events.push({
      subscription_id: row.subscription_id,
      merchant_id: row.merchant_id,
      store_id: row.store_id,
      event_type: eventType,
      status,
      scheduled_payment_id: row.payment_id,
      charge_id: row.charge_id,
    });
  /** The subscription's move (libs/domain's machine: an illegal one throws), its events written. */
  const move = (name: SettlementMove) => {
    const { to } = subscriptionTransition(name, row.subscription_status);
    for (const eventType of SUBSCRIPTION_MOVES[name].events) event(eventType, to);
    return to;
  };
  const base = {
    payment_id: row.payment_id,
    attempt: row.attempts,
    charge_id: row.charge_id,
    subscription_id: row.subscription_id,
    payments_left: row.payments_left,
    cycles_left: row.cycles_left,
    amount_left: row.amount_left === null ? null : row.amount_left.toString(),
  };

  if (row.charge_status === 'authorized') {
    // an authorization-only first charge: the subscription is `authorized` until it is captured
    // (successful) or voided (canceled); the payment's try goes on
    out.settlements.push({
      ...base,
      payment_status: 'processing',
      next_try_at: null,
      successful_payment_date: null,
      subscription_status: canMoveSubscription('first_authorized', row.subscription_status)
        ? move('first_authorized')
        : row.subscription_status,
    });
    return;
  }

  if (row.charge_status === 'successful') {
    const amountLeft = row.amount_left === null ? null : row.amount_left - row.payment_amount;
    const paid = {
      ...base,
      payment_status: 'paid' as const,
      next_try_at: null,
      successful_payment_date: now.toISOString(),
      payments_left: row.payments_left === null ? null : Math.max(0, row.payments_left - 1),
      cycles_left:
        row.cycles_left === null || row.cycle === null ? row.cycles_left : Math.max(0, row.cycles_left - 1),
      amount_left: amountLeft === null ? null : (amountLeft < 0n ? 0n : amountLeft).toString(),
    };
    if (ended) {
      out.settlements.push({ ...paid, subscription_status: row.subscription_status });
      event('subscription_payment', row.subscription_status);
      return;
    }
    if (row.is_last_payment) {
      out.settlements.push({ ...paid, subscription_status: move('paid_last') });
      return;
    }
    const status = move(row.subscription_status === 'suspended' ? 'paid_while_suspended' : 'paid');
    out.settlements.push({ ...paid, subscription_status: status });
    const next = nextPaymentOf(row, amountLeft, status === 'suspended');
    if (next) out.next.push(next);
    return;
  }

  // the try failed (declined, refused, an error, or the charge was canceled)
  if (ended) {
    out.settlements.push({
      ...base,
      payment_status: 'failed',
      next_try_at: null,
      successful_payment_date: null,
      subscription_status: row.subscription_status,
    });
    return;
  }
  if (canMoveSubscription('first_failed', row.subscription_status)) {
    out.settlements.push({
      ...base,
      payment_status: 'failed',
      next_try_at: null,
      successful_payment_date: null,
      subscription_status: move('first_failed'),
    });
    return;
  }
  const configuration = effectiveConfiguration(row.merchant_configuration, row.store_configuration);
  const rules = configuration.subscription_configuration;
  if (row.attempts >= rules.failed_charges_to_cancel) {
    const status = move(rules.suspend_on_cancel ? 'dunning_suspended' : 'dunning_canceled');
    out.settlements.push({
      ...base,
      // a suspended subscription keeps its payment, paused, for an unsuspension
      payment_status: status === 'suspended' ? 'pending' : 'failed',
      next_try_at: null,
      successful_payment_date: null,
      subscription_status: status,
    });
    return;
  }
  const suspended = row.subscription_status === 'suspended';
  const retryAt = retryDueAt(
    { dueAt: row.due_at, zoneId: row.payment_zone_id },
    row.attempts,
    storedRetryInterval(storedScheduleOf(row)),
  );
  const status = move(suspended ? 'failed_while_suspended' : 'retry');
  out.settlements.push({
    ...base,
    payment_status: 'pending',
    next_try_at: suspended ? null : retryAt.toISOString(),
    successful_payment_date: null,
    subscription_status: status,
  });
}

/**
 * The payment after `row` in the subscription's schedule, computed by the same engine (and from
 * the same creation instant) as its first; null when the plan has no more. For a plan of a fixed
 * total, never more than what is left of it.
 */
function nextPaymentOf(
  row: PaymentToSettle,
  amountLeft: bigint | null,
  paused: boolean,
): NextPaymentInput | null {
  const schedule = computeSchedule(storedScheduleInput(storedScheduleOf(row)), {
    openEndedCycles: row.sequence + 1,
  });
  const planned = schedule.payments[row.sequence];
  if (!planned) return null;
  let amount = planned.amount;
  let isLast = planned.isLastPayment;
  if (amountLeft !== null && row.subscription_plan !== null && amount >= amountLeft) {
    amount = amountLeft;
    isLast = true;
  }
  if (amount <= 0n) return null;
  return {
    id: randomUUID(),
    subscription_id: row.subscription_id,
    sequence: row.sequence + 1,
    cycle: planned.cycle,
    due_date: planned.dueDate,
    due_at: planned.dueAt.toISOString(),
    zone_id: planned.zoneId,
    amount: amount.toString(),
    currency: row.currency,
    is_last_payment: isLast,
    next_try_at: paused ? null : planned.dueAt.toISOString(),
    test_clock_id: row.test_clock_id,
  };
}
