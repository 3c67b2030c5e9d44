import { CANCEL_FINISHED, REFUND_FINISHED } from '@kessai/contracts';

/**
 * The state machine of refunds and cancels (RefundStatus / CancelStatus, api-reference §5.12;
 * docs/refunds-and-cancels.md): requested `pending`, then the processor's answer makes it
 * `successful` or `failed` (refused, with a payment error), or `error` when the processor could
 * not be reached through every retry. `successful` and `failed` are never left. A refund's `error`
 * may be re-driven (`error → pending`, REFUND_REDRIVE): its amount stayed reserved, and the
 * processor, asked again under the refund's own key, executes it at most once. A cancel's `error`
 * is not re-driven.
 */
export const OPERATION_STATUSES = ['pending', 'successful', 'failed', 'error'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export const OPERATION_ENTRY_STATUS = 'pending' satisfies OperationStatus;

export const OPERATION_TRANSITIONS: Readonly<Record<OperationStatus, readonly OperationStatus[]>> = {
  pending: ['successful', 'failed', 'error'],
  successful: [],
  failed: [],
  error: [],
};

export type OperationKind = 'refund' | 'cancel';

/** A refund in `error` sent to the processor again under its own key (the sweeper's or an operator's). */
export const REFUND_REDRIVE = { from: 'error', to: 'pending' } as const satisfies OperationTransition;

/** The moves of each kind: the common machine, and a refund's re-drive. */
const MOVES_OF: Readonly<Record<OperationKind, (from: OperationStatus) => readonly OperationStatus[]>> = {
  refund: (from) => (from === REFUND_REDRIVE.from ? [REFUND_REDRIVE.to] : OPERATION_TRANSITIONS[from]),
  cancel: (from) => OPERATION_TRANSITIONS[from],
};

/** The event that announces an operation's end: refund_finished or cancel_finished. */
export const OPERATION_FINISHED_EVENT = {
  refund: REFUND_FINISHED,
  cancel: CANCEL_FINISHED,
} as const satisfies Record<OperationKind, string>;

export interface OperationTransition {
  readonly from: OperationStatus;
  readonly to: OperationStatus;
}

export class IllegalOperationTransitionError extends Error {
  constructor(
    readonly kind: OperationKind,
    readonly from: OperationStatus,
    readonly to: OperationStatus,
  ) {
    super(`a ${kind} cannot move from ${from} to ${to}`);
    this.name = 'IllegalOperationTransitionError';
  }
}

export function canMoveOperation(kind: OperationKind, from: OperationStatus, to: OperationStatus): boolean {
  return MOVES_OF[kind](from).includes(to);
}

/** The move of a refund or cancel; throws IllegalOperationTransitionError when it is not allowed. */
export function operationTransition(
  kind: OperationKind,
  from: OperationStatus,
  to: OperationStatus,
): OperationTransition {
  if (!canMoveOperation(kind, from, to)) throw new IllegalOperationTransitionError(kind, from, to);
  return { from, to };
}

/**
 * Whether a refund that ends in `status` keeps its amount reserved against the charge. A failed one
 * took nothing back, so its amount is free again; an `error` one may have been executed by a
 * processor that never answered, so it stays reserved (the safe side: never refund more than was
 * charged).
 */
export function refundKeepsReservation(status: OperationStatus): boolean {
  return status !== 'failed';
}
