/**
 * The capture's state machine (docs/charges.md, "Captures"): one capture row per charge, requested
 * as pending, then captured (successful) or refused by the processor (failed). A failed capture took
 * nothing, so a new request replaces it, pending again under a new id (the processor's key).
 */
export const CAPTURE_STATUSES = ['pending', 'successful', 'failed'] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];

export const CAPTURE_TRANSITIONS: Readonly<Record<CaptureStatus, readonly CaptureStatus[]>> = {
  pending: ['successful', 'failed'],
  failed: ['pending'],
  successful: [],
};

/** The status a requested capture starts in. */
export const CAPTURE_ENTRY_STATUS = 'pending' satisfies CaptureStatus;

export interface CaptureTransition {
  readonly from: CaptureStatus;
  readonly to: CaptureStatus;
}

export class IllegalCaptureTransitionError extends Error {
  constructor(
    readonly from: CaptureStatus,
    readonly to: CaptureStatus,
  ) {
    super(`a capture cannot move from ${from} to ${to}`);
    this.name = 'IllegalCaptureTransitionError';
  }
}

export function canMoveCapture(from: CaptureStatus, to: CaptureStatus): boolean {
  return CAPTURE_TRANSITIONS[from].includes(to);
}

/** The move from `from` to `to`; throws IllegalCaptureTransitionError when it is not allowed. */
export function captureTransition(from: CaptureStatus, to: CaptureStatus): CaptureTransition {
  if (!canMoveCapture(from, to)) throw new IllegalCaptureTransitionError(from, to);
  return { from, to };
}
