import { CANCEL_FINISHED, REFUND_FINISHED } from '@kessai/contracts';
import {
  IllegalOperationTransitionError,
  OPERATION_FINISHED_EVENT,
  OPERATION_STATUSES,
  canMoveOperation,
  operationTransition,
  refundKeepsReservation,
} from './operation-status';

const ALLOWED = ['pending → successful', 'pending → failed', 'pending → error'];
const pairs = OPERATION_STATUSES.flatMap((from) => OPERATION_STATUSES.map((to) => [from, to] as const));

describe('the refund and cancel state machine', () => {
  it.each(pairs.filter(([from, to]) => ALLOWED.includes(`${from} → ${to}`)))('allows %s → %s', (from, to) => {
    expect(canMoveOperation(from, to)).toBe(true);
    expect(operationTransition('refund', from, to)).toEqual({ from, to });
  });

  it.each(pairs.filter(([from, to]) => !ALLOWED.includes(`${from} → ${to}`)))(
    'refuses %s → %s',
    (from, to) => {
      expect(canMoveOperation(from, to)).toBe(false);
      expect(() => operationTransition('cancel', from, to)).toThrow(IllegalOperationTransitionError);
      expect(() => operationTransition('cancel', from, to)).toThrow(
        `a cancel cannot move from ${from} to ${to}`,
      );
    },
  );

  it('announces the end of a refund and of a cancel with their own events', () => {
    expect(OPERATION_FINISHED_EVENT).toEqual({ refund: REFUND_FINISHED, cancel: CANCEL_FINISHED });
  });

  it('frees a failed refund’s amount and keeps every other one reserved', () => {
    expect(OPERATION_STATUSES.filter((status) => !refundKeepsReservation(status))).toEqual(['failed']);
  });
});
