import { CANCEL_FINISHED, REFUND_FINISHED } from '@kessai/contracts';
import {
  IllegalOperationTransitionError,
  OPERATION_FINISHED_EVENT,
  OPERATION_STATUSES,
  REFUND_REDRIVE,
  canMoveOperation,
  operationTransition,
  refundKeepsReservation,
  type OperationKind,
} from './operation-status';

const COMMON = ['pending → successful', 'pending → failed', 'pending → error'];
const ALLOWED: Record<OperationKind, string[]> = {
  refund: [...COMMON, 'error → pending'],
  cancel: COMMON,
};
const cases = (['refund', 'cancel'] as const).flatMap((kind) =>
  OPERATION_STATUSES.flatMap((from) =>
    OPERATION_STATUSES.map((to) => [kind, from, to, ALLOWED[kind].includes(`${from} → ${to}`)] as const),
  ),
);

describe('the refund and cancel state machine', () => {
  it.each(cases.filter(([, , , allowed]) => allowed))('a %s may move %s → %s', (kind, from, to) => {
    expect(canMoveOperation(kind, from, to)).toBe(true);
    expect(operationTransition(kind, from, to)).toEqual({ from, to });
  });

  it.each(cases.filter(([, , , allowed]) => !allowed))('a %s may not move %s → %s', (kind, from, to) => {
    expect(canMoveOperation(kind, from, to)).toBe(false);
    expect(() => operationTransition(kind, from, to)).toThrow(IllegalOperationTransitionError);
    expect(() => operationTransition(kind, from, to)).toThrow(`a ${kind} cannot move from ${from} to ${to}`);
  });

  it('re-drives a refund from error to pending, and nothing else', () => {
    expect(REFUND_REDRIVE).toEqual({ from: 'error', to: 'pending' });
    expect(canMoveOperation('refund', REFUND_REDRIVE.from, REFUND_REDRIVE.to)).toBe(true);
    expect(canMoveOperation('cancel', REFUND_REDRIVE.from, REFUND_REDRIVE.to)).toBe(false);
  });

  it('announces the end of a refund and of a cancel with their own events', () => {
    expect(OPERATION_FINISHED_EVENT).toEqual({ refund: REFUND_FINISHED, cancel: CANCEL_FINISHED });
  });

  it('frees a failed refund’s amount and keeps every other one reserved', () => {
    expect(OPERATION_STATUSES.filter((status) => !refundKeepsReservation(status))).toEqual(['failed']);
  });
});
