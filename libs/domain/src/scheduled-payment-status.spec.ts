import {
  CHANGEABLE_SCHEDULED_PAYMENT_STATUS,
  FINAL_SCHEDULED_PAYMENT_STATUSES,
  IllegalScheduledPaymentTransitionError,
  OPEN_SCHEDULED_PAYMENT_STATUSES,
  SCHEDULED_PAYMENT_ENTRY_STATUS,
  SCHEDULED_PAYMENT_STATUSES,
  SETTLING_SCHEDULED_PAYMENT_STATUS,
  canMoveScheduledPayment,
  isFinalScheduledPaymentStatus,
  scheduledPaymentTransition,
} from './scheduled-payment-status';

/** Every move docs/subscriptions.md allows a scheduled payment, written out: anything else must be refused. */
const ALLOWED = new Set([
  'pending → processing',
  'pending → canceled',
  'processing → paid',
  'processing → pending',
  'processing → failed',
  // the first payment of an unconfirmed subscription, tried again with a new token
  'failed → pending',
]);

const pairs = SCHEDULED_PAYMENT_STATUSES.flatMap((from) =>
  SCHEDULED_PAYMENT_STATUSES.map((to) => [from, to] as const),
);

describe('the scheduled payment state machine', () => {
  it('knows the five statuses of the database', () => {
    expect([...SCHEDULED_PAYMENT_STATUSES].sort()).toEqual(
      ['canceled', 'failed', 'paid', 'pending', 'processing'].sort(),
    );
  });

  it.each(pairs.filter(([from, to]) => ALLOWED.has(`${from} → ${to}`)))('allows %s → %s', (from, to) => {
    expect(canMoveScheduledPayment(from, to)).toBe(true);
    expect(scheduledPaymentTransition(from, to)).toEqual({ from, to });
  });

  it.each(pairs.filter(([from, to]) => !ALLOWED.has(`${from} → ${to}`)))('refuses %s → %s', (from, to) => {
    expect(canMoveScheduledPayment(from, to)).toBe(false);
    expect(() => scheduledPaymentTransition(from, to)).toThrow(IllegalScheduledPaymentTransitionError);
    expect(() => scheduledPaymentTransition(from, to)).toThrow(
      `a scheduled payment cannot move from ${from} to ${to}`,
    );
  });

  it('ends a payment at paid and canceled, which no move leaves (failed: only a first payment retried)', () => {
    const final = SCHEDULED_PAYMENT_STATUSES.filter(isFinalScheduledPaymentStatus);
    expect(final.sort()).toEqual(['canceled', 'paid']);
    expect([...FINAL_SCHEDULED_PAYMENT_STATUSES].sort()).toEqual(final);
    for (const from of final) {
      expect(SCHEDULED_PAYMENT_STATUSES.filter((to) => canMoveScheduledPayment(from, to))).toEqual([]);
    }
  });

  it('is created pending, open while pending or processing, changed by the API only while pending', () => {
    expect(SCHEDULED_PAYMENT_ENTRY_STATUS).toBe('pending');
    expect([...OPEN_SCHEDULED_PAYMENT_STATUSES].sort()).toEqual(['pending', 'processing']);
    expect(OPEN_SCHEDULED_PAYMENT_STATUSES.some(isFinalScheduledPaymentStatus)).toBe(false);
    expect(CHANGEABLE_SCHEDULED_PAYMENT_STATUS).toBe('pending');
    expect(SETTLING_SCHEDULED_PAYMENT_STATUS).toBe('processing');
  });
});
