import { CHARGE_FINISHED, CHARGE_REQUESTED, CHARGE_UPDATED } from '@kessai/contracts';

/**
 * The charge's state machine (docs/charges.md, "Statuses and events"): which statuses end a charge,
 * which moves are allowed, and the event each move announces. Repositories write what this decides;
 * they hold no rule of their own.
 */
export const CHARGE_STATUSES = [
  'pending',
  'awaiting',
  'authorized',
  'successful',
  'failed',
  'error',
  'canceled',
] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** The events a charge's status announces: a command when it is accepted, facts when it moves. */
export type ChargeStatusEvent = typeof CHARGE_UPDATED | typeof CHARGE_FINISHED;

/** Statuses a charge never leaves. */
export const FINAL_CHARGE_STATUSES: readonly ChargeStatus[] = ['successful', 'failed', 'error', 'canceled'];

/** Where a charge may go from each status. */
export const CHARGE_TRANSITIONS: Readonly<Record<ChargeStatus, readonly ChargeStatus[]>> = {
  // approved and captured / held (capture: false) / 3-D Secure or operator payment / declined /
  // cannot be processed (no live processor, a request refused as malformed, an unreadable card)
  pending: ['successful', 'authorized', 'awaiting', 'failed', 'error'],
  // paid or authenticated and captured / authenticated and held / declined, expired or voided /
  // voided by a cancel
  awaiting: ['successful', 'authorized', 'failed', 'canceled'],
  // captured (charged_amount = the captured amount) / voided by a cancel
  authorized: ['successful', 'canceled'],
  successful: [],
  failed: [],
  error: [],
  canceled: [],
};

/** How a charge enters the machine (POST /charges). */
export const CHARGE_ENTRY = {
  /** accepted: pending, with the command that has it processed */
  accepted: { status: 'pending', event: CHARGE_REQUESTED },
  /** refused by the duplicate rule (311): failed at once, and finished */
  duplicate: { status: 'failed', event: CHARGE_FINISHED },
} as const satisfies Record<string, { status: ChargeStatus; event: string }>;

/** One allowed move, with the event it announces. */
export interface ChargeTransition {
  readonly from: ChargeStatus;
  readonly to: ChargeStatus;
  readonly event: ChargeStatusEvent;
}

/** A move the machine does not allow: a defect of the caller, never an outcome to record. */
export class IllegalChargeTransitionError extends Error {
  constructor(
    readonly from: ChargeStatus,
    readonly to: ChargeStatus,
  ) {
    super(`a charge cannot move from ${from} to ${to}`);
    this.name = 'IllegalChargeTransitionError';
  }
}

export function isFinalChargeStatus(status: ChargeStatus): boolean {
  return FINAL_CHARGE_STATUSES.includes(status);
}

export function canMoveCharge(from: ChargeStatus, to: ChargeStatus): boolean {
  return CHARGE_TRANSITIONS[from].includes(to);
}

/** charge_finished when the move ends the charge, charge_updated otherwise. */
export function chargeEventOf(to: ChargeStatus): ChargeStatusEvent {
  return isFinalChargeStatus(to) ? CHARGE_FINISHED : CHARGE_UPDATED;
}

/** The move from `from` to `to` with its event; throws IllegalChargeTransitionError when it is not allowed. */
export function chargeTransition(from: ChargeStatus, to: ChargeStatus): ChargeTransition {
  if (!canMoveCharge(from, to)) throw new IllegalChargeTransitionError(from, to);
  return { from, to, event: chargeEventOf(to) };
}

/** A capture may be requested of a charge in this status only (and only once it has none, or a failed one). */
export const CAPTURABLE_CHARGE_STATUS = 'authorized' satisfies ChargeStatus;

/** A refund may be requested of a charge in this status only, up to its charged_amount. */
export const REFUNDABLE_CHARGE_STATUS = 'successful' satisfies ChargeStatus;

/**
 * A cancel may be requested of a charge in these statuses only (a held authorization, or a payment
 * the customer has not completed), and only while no capture or other cancel is running.
 */
export const CANCELLABLE_CHARGE_STATUSES = [
  'authorized',
  'awaiting',
] as const satisfies readonly ChargeStatus[];

/** Statuses whose outcome the processor may know better than we do: reconciliation looks them up. */
export const RECONCILABLE_CHARGE_STATUSES: readonly ChargeStatus[] = ['pending', 'awaiting'];

/** Final statuses of a charge that took no money: its try is over, unpaid. */
export const UNSUCCESSFUL_CHARGE_STATUSES: readonly ChargeStatus[] = FINAL_CHARGE_STATUSES.filter(
  (status) => status !== 'successful',
);

/**
 * Statuses in which a bank-transfer or konbini charge still waits for the customer's money: its
 * deadline may move; out of them the charge has ended, and money that arrives is late.
 */
export const AWAITING_PAYMENT_CHARGE_STATUSES: readonly ChargeStatus[] = ['pending', 'awaiting'];
