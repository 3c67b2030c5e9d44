import {
  SUBSCRIPTION_CANCELED,
  SUBSCRIPTION_COMPLETED,
  SUBSCRIPTION_CREATED,
  SUBSCRIPTION_FAILURE,
  SUBSCRIPTION_PAYMENT,
  SUBSCRIPTION_SUSPENDED,
  SUBSCRIPTION_UPDATED,
} from '@kessai/contracts';

/**
 * The subscription's state machine (docs/subscriptions.md, "Changing, cancelling, suspending" and
 * "Settlement"): its statuses, the sets the API and the engine decide by, each allowed move with
 * the events it announces. The gateway's requests, the engine's decisions and the SQL that applies
 * them read these; none keeps a list of its own.
 */
export const SUBSCRIPTION_STATUSES = [
  'unverified',
  'current',
  'suspended',
  'unpaid',
  'canceled',
  'unconfirmed',
  'completed',
  'authorized',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export type SubscriptionEvent =
  | typeof SUBSCRIPTION_PAYMENT
  | typeof SUBSCRIPTION_FAILURE
  | typeof SUBSCRIPTION_SUSPENDED
  | typeof SUBSCRIPTION_CANCELED
  | typeof SUBSCRIPTION_COMPLETED
  | typeof SUBSCRIPTION_UPDATED;

/** A subscription is created unverified, with its first payment, announced by subscription_created. */
export const SUBSCRIPTION_ENTRY = { status: 'unverified', event: SUBSCRIPTION_CREATED } as const satisfies {
  status: SubscriptionStatus;
  event: string;
};

/**
 * A subscription's status at creation: `unverified` while its first payment is due at once (that
 * charge verifies it: api-reference §5.3); `current` when nothing falls due before a later
 * `start_on` (a free trial, billed later): its token was checked at creation and nothing else is
 * left to verify, so the SDK's `subscriptions.poll` and `pollSubscriptionWithFirstCharge`, which wait
 * while `unverified`, end at once (issue 30). Its first payment then settles as a later one would:
 * declined, it is retried and the subscription `unpaid`.
 */
export function subscriptionEntryStatus(firstPaymentDueAt: Date, createdAt: Date): 'unverified' | 'current' {
  return firstPaymentDueAt.getTime() > createdAt.getTime() ? 'current' : SUBSCRIPTION_ENTRY.status;
}

/** Statuses no move leaves: a change of any kind is refused. */
export const FINAL_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['canceled', 'completed'];

/**
 * Statuses after which a subscription is not charged again: the final ones, and `unconfirmed` (its
 * first payment failed, and the engine schedules nothing after it). A payment of an ended
 * subscription is only settled, never charged nor terminated into another status. An unconfirmed
 * subscription is not final: it may still be canceled and its fields changed, and a new token tries
 * its first payment again (first_retried).
 */
export const ENDED_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'canceled',
  'completed',
  'unconfirmed',
];

/** Statuses whose fields (PATCH, PATCH …/token) may change, and that a cancel (DELETE) may leave. */
export const CHANGEABLE_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = SUBSCRIPTION_STATUSES.filter(
  (status) => !isFinalSubscriptionStatus(status),
);

/** Statuses a suspend may leave (api-reference §5.3). */
export const SUSPENDABLE_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['current', 'unpaid'];

/**
 * Statuses whose pending payment falls due: neither ended nor suspended (a suspended subscription's
 * payment is paused). Only these take a termination "on the next payment"
 * (termination_mode on_next_payment); any other is canceled at once.
 */
export const CHARGING_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = SUBSCRIPTION_STATUSES.filter(
  (status) => !isEndedSubscriptionStatus(status) && status !== 'suspended',
);

/** Statuses that ended without completing: a checkout link's subscription in one may be replaced. */
export const UNCOMPLETED_ENDED_SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = [
  'canceled',
  'unconfirmed',
];

export function isFinalSubscriptionStatus(status: SubscriptionStatus): boolean {
  return FINAL_SUBSCRIPTION_STATUSES.includes(status);
}

export function isEndedSubscriptionStatus(status: SubscriptionStatus): boolean {
  return ENDED_SUBSCRIPTION_STATUSES.includes(status);
}

/** A named move: from which statuses, to which one, and the events it announces, in order. */
export interface SubscriptionMoveRule {
  readonly from: readonly SubscriptionStatus[];
  readonly to: SubscriptionStatus;
  readonly events: readonly SubscriptionEvent[];
}

const NOT_ENDED: readonly SubscriptionStatus[] = SUBSCRIPTION_STATUSES.filter(
  (status) => !isEndedSubscriptionStatus(status),
);

/**
 * Every move a subscription makes, by cause. A move whose `from` includes its `to` keeps the status
 * (a suspended subscription's payment settled while it stays suspended) and still announces its
 * events. A payment of an ended subscription settles without moving it (no entry here).
 */
export const SUBSCRIPTION_MOVES = {
  // the API (docs/subscriptions.md, "Changing, cancelling, suspending")
  /** DELETE, a store's or a test clock's deletion */
  cancel: { from: CHANGEABLE_SUBSCRIPTION_STATUSES, to: 'canceled', events: [SUBSCRIPTION_CANCELED] },
  /** PATCH …/suspend */
  suspend: { from: SUSPENDABLE_SUBSCRIPTION_STATUSES, to: 'suspended', events: [SUBSCRIPTION_SUSPENDED] },
  /** PATCH …/unsuspend (UnivaPay's rule: unpaid, the pending payment tried again) */
  unsuspend: { from: ['suspended'], to: 'unpaid', events: [SUBSCRIPTION_UPDATED] },
  /**
   * PATCH …/token (or PATCH with a new transaction_token_id) of a subscription whose first payment
   * failed: the first payment is tried again at once with the new token (decision 0031)
   */
  first_retried: { from: ['unconfirmed'], to: 'unverified', events: [SUBSCRIPTION_UPDATED] },

  // the scheduler, at a due payment marked terminate_with_status
  terminate_canceled: { from: NOT_ENDED, to: 'canceled', events: [SUBSCRIPTION_CANCELED] },
  terminate_suspended: { from: NOT_ENDED, to: 'suspended', events: [SUBSCRIPTION_SUSPENDED] },

  // settlement of a try's charge (docs/subscriptions.md, "Settlement")
  /** a first charge only authorized: the try goes on, nothing announced yet */
  first_authorized: { from: ['unverified'], to: 'authorized', events: [] },
  paid: {
    from: ['unverified', 'authorized', 'current', 'unpaid'],
    to: 'current',
    events: [SUBSCRIPTION_PAYMENT],
  },
  paid_while_suspended: { from: ['suspended'], to: 'suspended', events: [SUBSCRIPTION_PAYMENT] },
  paid_last: {
    from: ['unverified', 'authorized', 'current', 'unpaid', 'suspended'],
    to: 'completed',
    events: [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED],
  },
  /** the first payment failed (or its authorization was voided): nothing more is charged */
  first_failed: { from: ['unverified', 'authorized'], to: 'unconfirmed', events: [SUBSCRIPTION_FAILURE] },
  /** a later try failed, retried after retry_interval */
  retry: { from: ['current', 'unpaid'], to: 'unpaid', events: [SUBSCRIPTION_FAILURE] },
  /** a try failed while the subscription was suspended: its payment stays, paused */
  failed_while_suspended: { from: ['suspended'], to: 'suspended', events: [SUBSCRIPTION_FAILURE] },
  /** the failed_charges_to_cancel-th try failed, suspend_on_cancel (the default) */
  dunning_suspended: {
    from: ['current', 'unpaid', 'suspended'],
    to: 'suspended',
    events: [SUBSCRIPTION_FAILURE, SUBSCRIPTION_SUSPENDED],
  },
  /** the failed_charges_to_cancel-th try failed, suspend_on_cancel false */
  dunning_canceled: {
    from: ['current', 'unpaid', 'suspended'],
    to: 'canceled',
    events: [SUBSCRIPTION_FAILURE, SUBSCRIPTION_CANCELED],
  },
} as const satisfies Record<string, SubscriptionMoveRule>;

export type SubscriptionMoveName = keyof typeof SUBSCRIPTION_MOVES;

/** One move that was allowed: the subscription's status before and after, and what it announces. */
export interface SubscriptionTransition {
  readonly move: SubscriptionMoveName;
  readonly from: SubscriptionStatus;
  readonly to: SubscriptionStatus;
  readonly events: readonly SubscriptionEvent[];
}

/** A move the machine does not allow: a defect of the caller, never an outcome to record. */
export class IllegalSubscriptionTransitionError extends Error {
  constructor(
    readonly move: SubscriptionMoveName,
    readonly from: SubscriptionStatus,
  ) {
    super(`a subscription cannot move by ${move} from ${from}`);
    this.name = 'IllegalSubscriptionTransitionError';
  }
}

export function canMoveSubscription(move: SubscriptionMoveName, from: SubscriptionStatus): boolean {
  return (SUBSCRIPTION_MOVES[move].from as readonly SubscriptionStatus[]).includes(from);
}

/** The move `move` from `from`; throws IllegalSubscriptionTransitionError when it is not allowed. */
export function subscriptionTransition(
  move: SubscriptionMoveName,
  from: SubscriptionStatus,
): SubscriptionTransition {
  if (!canMoveSubscription(move, from)) throw new IllegalSubscriptionTransitionError(move, from);
  const rule: SubscriptionMoveRule = SUBSCRIPTION_MOVES[move];
  return { move, from, to: rule.to, events: rule.events };
}
