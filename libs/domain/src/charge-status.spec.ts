import { CHARGE_FINISHED, CHARGE_REQUESTED, CHARGE_UPDATED } from '@kessai/contracts';
import {
  AWAITING_PAYMENT_CHARGE_STATUSES,
  CHARGE_ENTRY,
  CHARGE_STATUSES,
  IllegalChargeTransitionError,
  UNSUCCESSFUL_CHARGE_STATUSES,
  canMoveCharge,
  chargeEventOf,
  chargeTransition,
  isFinalChargeStatus,
  type ChargeStatus,
} from './charge-status';

/** Every move docs/charges.md allows, written out: anything else must be refused. */
const ALLOWED = new Map<string, string>([
  ['pending → successful', CHARGE_FINISHED],
  ['pending → authorized', CHARGE_UPDATED],
  ['pending → awaiting', CHARGE_UPDATED],
  ['pending → failed', CHARGE_FINISHED],
  ['pending → error', CHARGE_FINISHED],
  ['awaiting → successful', CHARGE_FINISHED],
  ['awaiting → authorized', CHARGE_UPDATED],
  ['awaiting → failed', CHARGE_FINISHED],
  ['awaiting → canceled', CHARGE_FINISHED],
  ['authorized → successful', CHARGE_FINISHED],
  ['authorized → canceled', CHARGE_FINISHED],
]);

const pairs = CHARGE_STATUSES.flatMap((from) => CHARGE_STATUSES.map((to) => [from, to] as const));

describe('the charge state machine', () => {
  it('knows the seven statuses of the API', () => {
    expect([...CHARGE_STATUSES].sort()).toEqual(
      ['authorized', 'awaiting', 'canceled', 'error', 'failed', 'pending', 'successful'].sort(),
    );
  });

  it.each(pairs.filter(([from, to]) => ALLOWED.has(`${from} → ${to}`)))(
    'allows %s → %s, announced by its event',
    (from, to) => {
      expect(canMoveCharge(from, to)).toBe(true);
      expect(chargeTransition(from, to)).toEqual({ from, to, event: ALLOWED.get(`${from} → ${to}`) });
    },
  );

  it.each(pairs.filter(([from, to]) => !ALLOWED.has(`${from} → ${to}`)))('refuses %s → %s', (from, to) => {
    expect(canMoveCharge(from, to)).toBe(false);
    expect(() => chargeTransition(from, to)).toThrow(IllegalChargeTransitionError);
    expect(() => chargeTransition(from, to)).toThrow(`a charge cannot move from ${from} to ${to}`);
  });

  it('ends a charge at successful, failed, error and canceled, which no move leaves', () => {
    const final = CHARGE_STATUSES.filter(isFinalChargeStatus);
    expect(final.sort()).toEqual(['canceled', 'error', 'failed', 'successful']);
    for (const from of final) {
      expect(CHARGE_STATUSES.filter((to) => canMoveCharge(from, to))).toEqual([]);
    }
  });

  it('announces charge_finished for a final status and charge_updated for any other', () => {
    const events = Object.fromEntries(CHARGE_STATUSES.map((status) => [status, chargeEventOf(status)]));
    expect(events).toEqual({
      pending: CHARGE_UPDATED,
      awaiting: CHARGE_UPDATED,
      authorized: CHARGE_UPDATED,
      successful: CHARGE_FINISHED,
      failed: CHARGE_FINISHED,
      error: CHARGE_FINISHED,
      canceled: CHARGE_FINISHED,
    } satisfies Record<ChargeStatus, string>);
  });

  it('enters pending with charge_requested, or failed with charge_finished under the duplicate rule', () => {
    expect(CHARGE_ENTRY.accepted).toEqual({ status: 'pending', event: CHARGE_REQUESTED });
    expect(CHARGE_ENTRY.duplicate).toEqual({ status: 'failed', event: CHARGE_FINISHED });
    expect(chargeEventOf(CHARGE_ENTRY.duplicate.status)).toBe(CHARGE_ENTRY.duplicate.event);
  });
});

describe('the charge statuses the SQL reads', () => {
  it('counts failed, error and canceled as final without money', () => {
    expect(UNSUCCESSFUL_CHARGE_STATUSES).toEqual(['failed', 'error', 'canceled']);
    expect(UNSUCCESSFUL_CHARGE_STATUSES.every(isFinalChargeStatus)).toBe(true);
  });

  it('has a deferred charge wait for its money while pending or awaiting, neither of them final', () => {
    expect(AWAITING_PAYMENT_CHARGE_STATUSES).toEqual(['pending', 'awaiting']);
    expect(AWAITING_PAYMENT_CHARGE_STATUSES.some(isFinalChargeStatus)).toBe(false);
  });
});
