import type { DuePayment, PaymentToSettle } from '@kessai/db';
import { decideClaims, decideSettlements } from './engine-decisions';

/**
 * The engine's decisions alone: what a claimed payment becomes, and what follows each outcome of a
 * payment's try. The paths through Postgres, the queues and charge-service are
 * test/subscription-engine.e2e-spec.ts.
 */

const SUBSCRIPTION = '0f8fad5b-d9cb-469f-a165-70867728950e';
const PAYMENT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const CHARGE = '16fd2706-8baf-433b-82eb-8c7fada847da';

/** A subscription's columns as the engine reads them: monthly, 1,000 JPY, open-ended, Tokyo. */
const subscriptionColumns = {
  subscription_id: SUBSCRIPTION,
  merchant_id: '9f0b2a7e-1111-4c3e-8a57-0b6f1d2e3a4b',
  store_id: '9f0b2a7e-2222-4c3e-8a57-0b6f1d2e3a4b',
  transaction_token_id: '9f0b2a7e-3333-4c3e-8a57-0b6f1d2e3a4b',
  mode: 'test' as const,
  subscription_status: 'current' as const,
  period: 'monthly',
  cyclical_period: null,
  subscription_amount: 1000n,
  initial_amount: null,
  schedule_created_at: new Date('2025-01-31T03:00:00Z'),
  start_on: null,
  zone_id: 'Asia/Tokyo',
  preserve_end_of_month: false,
  retry_interval: null,
  installment_plan: null,
  subscription_plan: null,
  payments_left: null,
  cycles_left: null,
  amount_left: null,
  descriptor: null,
  only_direct_currency: false,
  first_charge_authorization_only: false,
  first_charge_capture_after: null,
  store_configuration: {},
  merchant_configuration: {},
};

/** Its second payment (due 2025-02-28 09:00 in Tokyo), in its first try. */
const paymentColumns = {
  payment_id: PAYMENT,
  sequence: 2,
  cycle: 2,
  due_at: new Date('2025-02-28T00:00:00Z'),
  payment_zone_id: 'Asia/Tokyo',
  payment_amount: 1000n,
  currency: 'JPY',
  attempts: 1,
  is_last_payment: false,
  terminate_with_status: null,
  test_clock_id: null,
  clock_now: new Date('2025-02-28T00:00:05Z'),
};

const due = (overrides: Partial<DuePayment> = {}): DuePayment => ({
  ...paymentColumns,
  ...subscriptionColumns,
  attempts: 0,
  token_active: true,
  token_type: 'recurring',
  token_mode: 'test',
  payment_type: 'card',
  token_confirmed: null,
  card_brand: 'visa',
  qr_gateway: null,
  three_ds_status: null,
  cvv_authorize_enabled: null,
  cvv_authorize_status: null,
  usage_limit: null,
  ...overrides,
});

const toSettle = (overrides: Partial<PaymentToSettle> = {}): PaymentToSettle => ({
  ...paymentColumns,
  ...subscriptionColumns,
  charge_id: CHARGE,
  charge_status: 'successful',
  ...overrides,
});

describe('claimed payments', () => {
  it('charges a due payment as its next try, with the store’s fee terms', () => {
    const { charges, terminations } = decideClaims([
      due({ store_configuration: { percent_fee: 3.6, flat_fees: [{ amount: 30, currency: 'JPY' }] } }),
    ]);
    expect(terminations).toEqual([]);
    expect(charges).toEqual([
      expect.objectContaining({
        payment_id: PAYMENT,
        attempt: 1,
        amount: '1000',
        currency: 'JPY',
        transaction_token_type: 'recurring',
        fee_rate_ppm: 36_000,
        fee_flat_amount: '30',
        refused: false,
        error_code: null,
      }),
    ]);
  });

  it('refuses before the processor a token that can no longer be charged, or a store rule', () => {
    const refusals = decideClaims([
      due({ token_active: false }),
      due({ token_confirmed: false }),
      due({ three_ds_status: 'failed' }),
      due({ cvv_authorize_enabled: true, cvv_authorize_status: 'failed' }),
      due({ cvv_authorize_enabled: true, cvv_authorize_status: 'pending' }),
      due({ store_configuration: { card_configuration: { forbidden_card_brands: ['visa'] } } }),
    ]).charges.map((charge) => [charge.refused, charge.error_code, charge.error_detail]);
    expect(refusals).toEqual([
      [true, 307, 'the transaction token is not active'],
      [true, 307, 'the transaction token is waiting for its confirmation code'],
      [true, 358, "the transaction token's 3-D Secure failed"],
      [true, 309, 'CVV_AUTHORIZATION_NOT_COMPLETED'],
      [true, 309, 'CVV_AUTHORIZATION_NOT_COMPLETED'],
      [true, 309, 'CARD_BRAND_NOT_SUPPORTED'],
    ]);
  });

  it('charges a token whose CVV authorization is current, or switched off', () => {
    const charges = decideClaims([
      due({ cvv_authorize_enabled: true, cvv_authorize_status: 'current' }),
      due({ cvv_authorize_enabled: false, cvv_authorize_status: 'inactive' }),
    ]).charges;
    expect(charges.map((charge) => charge.refused)).toEqual([false, false]);
  });

  it("holds a card charge in the card limit's currency to the limit, its window ending now", () => {
    const now = new Date('2026-03-31T10:00:00Z');
    const limited = {
      card_configuration: { card_limit: { amount: 5000, currency: 'JPY', duration: 'P1M' } },
    };
    const decisions = decideClaims(
      [
        due({ store_configuration: limited }),
        due({ store_configuration: limited, currency: 'USD' }),
        due({ store_configuration: {} }),
      ],
      now,
    );
    expect(decisions.charges.map((c) => [c.card_limit_amount, c.card_limit_since])).toEqual([
      ['5000', '2026-02-28T10:00:00.000Z'],
      [null, null],
      [null, null],
    ]);
    expect(decisions.cardLimitError).toEqual({
      code: 309,
      message: 'PROCESSING_ERROR',
      detail: 'CARD_LIMIT_EXCEEDED_FOR_STORE',
    });
  });

  it('only authorizes the first charge of a subscription that asks so, captured after the duration', () => {
    const before = Date.now();
    const [first, later] = decideClaims([
      due({ sequence: 1, first_charge_authorization_only: true, first_charge_capture_after: 'P3D' }),
      due({ sequence: 2, first_charge_authorization_only: true, first_charge_capture_after: 'P3D' }),
    ]).charges;
    expect(first.capture).toBe(false);
    const captureAt = Date.parse(first.capture_at!);
    expect(captureAt - before).toBeGreaterThanOrEqual(3 * 86_400_000);
    expect(captureAt - Date.now()).toBeLessThanOrEqual(3 * 86_400_000);
    expect(later).toMatchObject({ capture: true, capture_at: null });
    const merchantCaptures = decideClaims([due({ sequence: 1, first_charge_authorization_only: true })])
      .charges[0];
    expect(merchantCaptures).toMatchObject({ capture: false, capture_at: null });
  });

  it('ends without a charge a payment to terminate, or of a subscription that ended', () => {
    const decisions = decideClaims([
      due({ terminate_with_status: 'canceled' }),
      due({ subscription_status: 'canceled' }),
      due({ subscription_status: 'completed' }),
    ]);
    expect(decisions.charges).toEqual([]);
    expect(decisions.terminations).toHaveLength(3);
  });
});

describe('settled payments', () => {
  it('pays, makes the subscription current and schedules the next cycle from the schedule', () => {
    const decisions = decideSettlements([toSettle({ subscription_status: 'unpaid' })]);
    expect(decisions.settlements).toEqual([
      expect.objectContaining({
        payment_status: 'paid',
        subscription_status: 'current',
        successful_payment_date: '2025-02-28T00:00:05.000Z',
        next_try_at: null,
      }),
    ]);
    // without preserve_end_of_month a day lost to February stays lost: 03-28 at 09:00 in Tokyo
    expect(decisions.next).toEqual([
      expect.objectContaining({
        sequence: 3,
        cycle: 3,
        due_date: '2025-03-28',
        due_at: '2025-03-28T00:00:00.000Z',
        next_try_at: '2025-03-28T00:00:00.000Z',
        amount: '1000',
      }),
    ]);
    expect(decisions.events.map((event) => [event.event_type, event.status])).toEqual([
      ['subscription_payment', 'current'],
    ]);
  });

  it('counts down a fixed plan and completes it on the last payment', () => {
    const plan = { subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 3 } };
    const middle = decideSettlements([
      toSettle({ ...plan, payments_left: 2, cycles_left: 2, amount_left: 2000n }),
    ]);
    expect(middle.settlements[0]).toMatchObject({ payments_left: 1, cycles_left: 1, amount_left: '1000' });
    expect(middle.next[0]).toMatchObject({ sequence: 3, is_last_payment: true });

    const last = decideSettlements([
      toSettle({
        ...plan,
        sequence: 3,
        cycle: 3,
        is_last_payment: true,
        payments_left: 1,
        cycles_left: 1,
        amount_left: 1000n,
      }),
    ]);
    expect(last.settlements[0]).toMatchObject({
      subscription_status: 'completed',
      payments_left: 0,
      amount_left: '0',
    });
    expect(last.next).toEqual([]);
    expect(last.events.map((event) => event.event_type)).toEqual([
      'subscription_payment',
      'subscription_completed',
    ]);
  });

  it('never schedules more than what is left of a fixed total', () => {
    const decisions = decideSettlements([
      toSettle({
        subscription_plan: { plan_type: 'fixed_cycle_amount', fixed_cycle_amount: 2500 },
        amount_left: 1500n,
      }),
    ]);
    expect(decisions.next[0]).toMatchObject({ amount: '500', is_last_payment: true });
  });

  it('retries a failed try retry_interval after the due date, then suspends after the store’s tries', () => {
    const first = decideSettlements([toSettle({ charge_status: 'failed', attempts: 1 })]);
    expect(first.settlements[0]).toMatchObject({
      payment_status: 'pending',
      subscription_status: 'unpaid',
      next_try_at: '2025-03-01T00:00:00.000Z',
    });
    const weekly = decideSettlements([
      toSettle({ charge_status: 'error', attempts: 2, retry_interval: 'P1W' }),
    ]);
    expect(weekly.settlements[0]).toMatchObject({ next_try_at: '2025-03-14T00:00:00.000Z' });
    expect(first.next).toEqual([]);

    const third = decideSettlements([toSettle({ charge_status: 'failed', attempts: 3 })]);
    expect(third.settlements[0]).toMatchObject({
      payment_status: 'pending',
      next_try_at: null,
      subscription_status: 'suspended',
    });
    expect(third.events.map((event) => event.event_type)).toEqual([
      'subscription_failure',
      'subscription_suspended',
    ]);
  });

  it('cancels instead when the store does not suspend, after its own number of tries', () => {
    const decisions = decideSettlements([
      toSettle({
        charge_status: 'failed',
        attempts: 5,
        merchant_configuration: { subscription_configuration: { failed_charges_to_cancel: 5 } },
        store_configuration: { subscription_configuration: { suspend_on_cancel: false } },
      }),
    ]);
    expect(decisions.settlements[0]).toMatchObject({
      payment_status: 'failed',
      subscription_status: 'canceled',
    });
    expect(decisions.events.map((event) => event.event_type)).toEqual([
      'subscription_failure',
      'subscription_canceled',
    ]);
  });

  it('makes an unverified subscription authorized while its first charge is only authorized', () => {
    const first = { subscription_status: 'unverified' as const, sequence: 1, cycle: 1 };
    const held = decideSettlements([toSettle({ ...first, charge_status: 'authorized' })]);
    expect(held.settlements[0]).toMatchObject({
      payment_status: 'processing',
      subscription_status: 'authorized',
    });
    expect(held.next).toEqual([]);
    expect(held.events).toEqual([]);
    // captured: current, and the next cycle; voided: unconfirmed
    const captured = decideSettlements([toSettle({ ...first, subscription_status: 'authorized' })]);
    expect(captured.settlements[0]).toMatchObject({ payment_status: 'paid', subscription_status: 'current' });
    expect(captured.next).toHaveLength(1);
    const voided = decideSettlements([
      toSettle({ ...first, subscription_status: 'authorized', charge_status: 'canceled' }),
    ]);
    expect(voided.settlements[0]).toMatchObject({
      payment_status: 'failed',
      subscription_status: 'unconfirmed',
    });
  });

  it('leaves an unverified subscription unconfirmed when its first payment fails', () => {
    const decisions = decideSettlements([
      toSettle({ subscription_status: 'unverified', sequence: 1, cycle: 1, charge_status: 'failed' }),
    ]);
    expect(decisions.settlements[0]).toMatchObject({
      payment_status: 'failed',
      subscription_status: 'unconfirmed',
    });
    expect(decisions.next).toEqual([]);
  });

  it('only settles the payment of a subscription that ended while its try ran', () => {
    const paid = decideSettlements([toSettle({ subscription_status: 'canceled' })]);
    expect(paid.settlements[0]).toMatchObject({ payment_status: 'paid', subscription_status: 'canceled' });
    expect(paid.next).toEqual([]);
    const failed = decideSettlements([
      toSettle({ subscription_status: 'canceled', charge_status: 'failed' }),
    ]);
    expect(failed.settlements[0]).toMatchObject({
      payment_status: 'failed',
      subscription_status: 'canceled',
    });
    expect(failed.events).toEqual([]);
  });

  it('keeps a subscription suspended during a try suspended, its next payment paused', () => {
    const decisions = decideSettlements([toSettle({ subscription_status: 'suspended' })]);
    expect(decisions.settlements[0]).toMatchObject({ subscription_status: 'suspended' });
    expect(decisions.next[0]).toMatchObject({ next_try_at: null });
  });
});
