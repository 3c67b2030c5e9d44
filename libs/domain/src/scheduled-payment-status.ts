/**
 * The scheduled payment's state machine (docs/subscriptions.md, "A payment's states"): created
 * `pending`, due at `next_try_at` (NULL: paused); the scheduler starts a try (`processing`, with its
 * charge); the settlement of that charge makes it `paid`, `pending` again (a retry, or paused) or
 * `failed`; a subscription that ends before it is charged makes it `canceled`. A payment announces
 * nothing of its own: its subscription's events (SUBSCRIPTION_MOVES) and its charge's tell its story.
 */
export const SCHEDULED_PAYMENT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'canceled'] as const;
export type ScheduledPaymentStatus = (typeof SCHEDULED_PAYMENT_STATUSES)[number];

/** The status a payment is created in, by the API (the first) or by a settlement (the next). */
export const SCHEDULED_PAYMENT_ENTRY_STATUS = 'pending' satisfies ScheduledPaymentStatus;

/** Where a payment may go from each status. */
export const SCHEDULED_PAYMENT_TRANSITIONS: Readonly<
  Record<ScheduledPaymentStatus, readonly ScheduledPaymentStatus[]>
> = {
  // a try started (the scheduler) / the subscription ended before it was charged (cancel, a
  // termination on the next payment, a store's or clock's deletion)
  pending: ['processing', 'canceled'],
  // its charge succeeded / failed, tried again or paused / failed, its tries over
  processing: ['paid', 'pending', 'failed'],
  paid: [],
  // the first payment of an unconfirmed subscription, tried again with a new token (the
  // subscription's first_retried); every other failed payment stays failed
  failed: ['pending'],
  canceled: [],
};

/** Statuses a payment never leaves (a failed one is left only by its subscription's first_retried). */
export const FINAL_SCHEDULED_PAYMENT_STATUSES = [
  'paid',
  'canceled',
] as const satisfies readonly ScheduledPaymentStatus[];

/**
 * The open payment of a subscription: at most one per subscription (a partial unique index),
 * the next one scheduled only once it is settled.
 */
export const OPEN_SCHEDULED_PAYMENT_STATUSES = [
  'pending',
  'processing',
] as const satisfies readonly ScheduledPaymentStatus[];

/**
 * The only status the API changes a payment in (PATCH …/payments, a cancel, a suspend, a
 * termination mark): a processing payment's charge is in flight and belongs to the engine.
 */
export const CHANGEABLE_SCHEDULED_PAYMENT_STATUS = 'pending' satisfies ScheduledPaymentStatus;

/** A payment whose try's charge is in flight: its charge's outcome settles it. */
export const SETTLING_SCHEDULED_PAYMENT_STATUS = 'processing' satisfies ScheduledPaymentStatus;

export interface ScheduledPaymentTransition {
  readonly from: ScheduledPaymentStatus;
  readonly to: ScheduledPaymentStatus;
}

/** A move the machine does not allow: a defect of the caller, never an outcome to record. */
export class IllegalScheduledPaymentTransitionError extends Error {
  constructor(
    readonly from: ScheduledPaymentStatus,
    readonly to: ScheduledPaymentStatus,
  ) {
    super(`a scheduled payment cannot move from ${from} to ${to}`);
    this.name = 'IllegalScheduledPaymentTransitionError';
  }
}

export function isFinalScheduledPaymentStatus(status: ScheduledPaymentStatus): boolean {
  return (FINAL_SCHEDULED_PAYMENT_STATUSES as readonly ScheduledPaymentStatus[]).includes(status);
}

export function canMoveScheduledPayment(from: ScheduledPaymentStatus, to: ScheduledPaymentStatus): boolean {
  return SCHEDULED_PAYMENT_TRANSITIONS[from].includes(to);
}

/** The move from `from` to `to`; throws IllegalScheduledPaymentTransitionError when it is not allowed. */
export function scheduledPaymentTransition(
  from: ScheduledPaymentStatus,
  to: ScheduledPaymentStatus,
): ScheduledPaymentTransition {
  if (!canMoveScheduledPayment(from, to)) throw new IllegalScheduledPaymentTransitionError(from, to);
  return { from, to };
}
