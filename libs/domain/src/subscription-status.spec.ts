import {
  SUBSCRIPTION_CANCELED,
  SUBSCRIPTION_COMPLETED,
  SUBSCRIPTION_CREATED,
  SUBSCRIPTION_FAILURE,
  SUBSCRIPTION_PAYMENT,
  SUBSCRIPTION_SUSPENDED,
  SUBSCRIPTION_UPDATED,
} from '@kessai/contracts';
import {
  CHANGEABLE_SUBSCRIPTION_STATUSES,
  CHARGING_SUBSCRIPTION_STATUSES,
  ENDED_SUBSCRIPTION_STATUSES,
  FINAL_SUBSCRIPTION_STATUSES,
  IllegalSubscriptionTransitionError,
  SUBSCRIPTION_ENTRY,
  SUBSCRIPTION_MOVES,
  subscriptionEntryStatus,
  SUBSCRIPTION_STATUSES,
  SUSPENDABLE_SUBSCRIPTION_STATUSES,
  UNCOMPLETED_ENDED_SUBSCRIPTION_STATUSES,
  canMoveSubscription,
  isEndedSubscriptionStatus,
  isFinalSubscriptionStatus,
  subscriptionTransition,
  type SubscriptionMoveName,
  type SubscriptionStatus,
} from './subscription-status';

/**
 * Every move docs/subscriptions.md allows, written out as `move: from → to`, with its events:
 * anything else must be refused.
 */
const ALLOWED = new Map<string, readonly string[]>([
  // DELETE: any status but canceled and completed
  ['cancel: unverified → canceled', [SUBSCRIPTION_CANCELED]],
  ['cancel: current → canceled', [SUBSCRIPTION_CANCELED]],
  ['cancel: suspended → canceled', [SUBSCRIPTION_CANCELED]],
  ['cancel: unpaid → canceled', [SUBSCRIPTION_CANCELED]],
  ['cancel: unconfirmed → canceled', [SUBSCRIPTION_CANCELED]],
  ['cancel: authorized → canceled', [SUBSCRIPTION_CANCELED]],
  ['suspend: current → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['suspend: unpaid → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['unsuspend: suspended → unpaid', [SUBSCRIPTION_UPDATED]],
  // PATCH …/token of a subscription whose first payment failed: the first payment tried again
  ['first_retried: unconfirmed → unverified', [SUBSCRIPTION_UPDATED]],
  // a payment marked terminate_with_status falls due: only a subscription that has not ended
  ['terminate_canceled: unverified → canceled', [SUBSCRIPTION_CANCELED]],
  ['terminate_canceled: current → canceled', [SUBSCRIPTION_CANCELED]],
  ['terminate_canceled: suspended → canceled', [SUBSCRIPTION_CANCELED]],
  ['terminate_canceled: unpaid → canceled', [SUBSCRIPTION_CANCELED]],
  ['terminate_canceled: authorized → canceled', [SUBSCRIPTION_CANCELED]],
  ['terminate_suspended: unverified → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['terminate_suspended: current → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['terminate_suspended: suspended → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['terminate_suspended: unpaid → suspended', [SUBSCRIPTION_SUSPENDED]],
  ['terminate_suspended: authorized → suspended', [SUBSCRIPTION_SUSPENDED]],
  // settlement
  ['first_authorized: unverified → authorized', []],
  ['paid: unverified → current', [SUBSCRIPTION_PAYMENT]],
  ['paid: authorized → current', [SUBSCRIPTION_PAYMENT]],
  ['paid: current → current', [SUBSCRIPTION_PAYMENT]],
  ['paid: unpaid → current', [SUBSCRIPTION_PAYMENT]],
  ['paid_while_suspended: suspended → suspended', [SUBSCRIPTION_PAYMENT]],
  ['paid_last: unverified → completed', [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED]],
  ['paid_last: authorized → completed', [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED]],
  ['paid_last: current → completed', [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED]],
  ['paid_last: unpaid → completed', [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED]],
  ['paid_last: suspended → completed', [SUBSCRIPTION_PAYMENT, SUBSCRIPTION_COMPLETED]],
  ['first_failed: unverified → unconfirmed', [SUBSCRIPTION_FAILURE]],
  ['first_failed: authorized → unconfirmed', [SUBSCRIPTION_FAILURE]],
  ['retry: current → unpaid', [SUBSCRIPTION_FAILURE]],
  ['retry: unpaid → unpaid', [SUBSCRIPTION_FAILURE]],
  ['failed_while_suspended: suspended → suspended', [SUBSCRIPTION_FAILURE]],
  ['dunning_suspended: current → suspended', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_SUSPENDED]],
  ['dunning_suspended: unpaid → suspended', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_SUSPENDED]],
  ['dunning_suspended: suspended → suspended', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_SUSPENDED]],
  ['dunning_canceled: current → canceled', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_CANCELED]],
  ['dunning_canceled: unpaid → canceled', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_CANCELED]],
  ['dunning_canceled: suspended → canceled', [SUBSCRIPTION_FAILURE, SUBSCRIPTION_CANCELED]],
]);

const MOVES = Object.keys(SUBSCRIPTION_MOVES) as SubscriptionMoveName[];
const cases = MOVES.flatMap((move) => SUBSCRIPTION_STATUSES.map((from) => [move, from] as const));
const key = (move: SubscriptionMoveName, from: SubscriptionStatus) =>
  `${move}: ${from} → ${SUBSCRIPTION_MOVES[move].to}`;

describe('the subscription state machine', () => {
  it('knows the eight statuses of the API', () => {
    expect([...SUBSCRIPTION_STATUSES].sort()).toEqual(
      [
        'authorized',
        'canceled',
        'completed',
        'current',
        'suspended',
        'unconfirmed',
        'unpaid',
        'unverified',
      ].sort(),
    );
  });

  it.each(cases.filter(([move, from]) => ALLOWED.has(key(move, from))))(
    'allows %s from %s, announced by its events',
    (move, from) => {
      const to = SUBSCRIPTION_MOVES[move].to;
      expect(canMoveSubscription(move, from)).toBe(true);
      expect(subscriptionTransition(move, from)).toEqual({
        move,
        from,
        to,
        events: ALLOWED.get(key(move, from)),
      });
    },
  );

  it.each(cases.filter(([move, from]) => !ALLOWED.has(key(move, from))))(
    'refuses %s from %s',
    (move, from) => {
      expect(canMoveSubscription(move, from)).toBe(false);
      expect(() => subscriptionTransition(move, from)).toThrow(IllegalSubscriptionTransitionError);
      expect(() => subscriptionTransition(move, from)).toThrow(
        `a subscription cannot move by ${move} from ${from}`,
      );
    },
  );

  it('enters unverified with subscription_created', () => {
    expect(SUBSCRIPTION_ENTRY).toEqual({ status: 'unverified', event: SUBSCRIPTION_CREATED });
  });

  it('is final at canceled and completed, which no move leaves', () => {
    expect(SUBSCRIPTION_STATUSES.filter(isFinalSubscriptionStatus)).toEqual(['canceled', 'completed']);
    expect([...FINAL_SUBSCRIPTION_STATUSES].sort()).toEqual(['canceled', 'completed']);
    for (const from of FINAL_SUBSCRIPTION_STATUSES) {
      expect(MOVES.filter((move) => canMoveSubscription(move, from))).toEqual([]);
    }
  });

  it('has ended at canceled, completed and unconfirmed: never charged again, and only canceled or retried from there', () => {
    expect(SUBSCRIPTION_STATUSES.filter(isEndedSubscriptionStatus).sort()).toEqual([
      'canceled',
      'completed',
      'unconfirmed',
    ]);
    expect([...ENDED_SUBSCRIPTION_STATUSES].sort()).toEqual(['canceled', 'completed', 'unconfirmed']);
    // no move of the scheduler or of a settlement starts from an ended subscription: only the API's
    // cancel, and a new token trying the first payment again
    expect(MOVES.filter((move) => canMoveSubscription(move, 'unconfirmed'))).toEqual([
      'cancel',
      'first_retried',
    ]);
  });

  it('names the statuses each request and the engine decide by', () => {
    expect([...CHANGEABLE_SUBSCRIPTION_STATUSES].sort()).toEqual(
      ['authorized', 'current', 'suspended', 'unconfirmed', 'unpaid', 'unverified'].sort(),
    );
    expect([...SUSPENDABLE_SUBSCRIPTION_STATUSES].sort()).toEqual(['current', 'unpaid']);
    expect([...CHARGING_SUBSCRIPTION_STATUSES].sort()).toEqual([
      'authorized',
      'current',
      'unpaid',
      'unverified',
    ]);
    expect([...UNCOMPLETED_ENDED_SUBSCRIPTION_STATUSES].sort()).toEqual(['canceled', 'unconfirmed']);
  });
});

describe('a subscription’s status at creation', () => {
  const createdAt = new Date('2026-03-01T05:00:00.000Z');

  it('is unverified while its first payment is due at once: that charge verifies it', () => {
    expect(subscriptionEntryStatus(createdAt, createdAt)).toBe('unverified');
    expect(subscriptionEntryStatus(new Date(createdAt.getTime() - 1), createdAt)).toBe('unverified');
  });

  it('is current when nothing falls due before a later start_on (a free trial, billed later)', () => {
    expect(subscriptionEntryStatus(new Date('2026-03-10T00:00:00.000Z'), createdAt)).toBe('current');
    // and that is a status the settlement of its first payment may leave, paid or failed
    expect(SUBSCRIPTION_MOVES.paid.from).toContain('current');
    expect(SUBSCRIPTION_MOVES.retry.from).toContain('current');
  });
});
