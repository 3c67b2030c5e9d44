import {
  CAPTURE_ENTRY_STATUS,
  CAPTURE_STATUSES,
  IllegalCaptureTransitionError,
  canMoveCapture,
  captureTransition,
} from './capture-status';

/** Every move docs/charges.md allows a capture, written out: anything else must be refused. */
const ALLOWED = new Set(['pending → successful', 'pending → failed', 'failed → pending']);

const pairs = CAPTURE_STATUSES.flatMap((from) => CAPTURE_STATUSES.map((to) => [from, to] as const));

describe('the capture state machine', () => {
  it('starts pending', () => {
    expect(CAPTURE_ENTRY_STATUS).toBe('pending');
  });

  it.each(pairs.filter(([from, to]) => ALLOWED.has(`${from} → ${to}`)))('allows %s → %s', (from, to) => {
    expect(canMoveCapture(from, to)).toBe(true);
    expect(captureTransition(from, to)).toEqual({ from, to });
  });

  it.each(pairs.filter(([from, to]) => !ALLOWED.has(`${from} → ${to}`)))('refuses %s → %s', (from, to) => {
    expect(canMoveCapture(from, to)).toBe(false);
    expect(() => captureTransition(from, to)).toThrow(IllegalCaptureTransitionError);
  });

  it('never leaves successful: a captured amount is final', () => {
    expect(CAPTURE_STATUSES.filter((to) => canMoveCapture('successful', to))).toEqual([]);
  });
});
