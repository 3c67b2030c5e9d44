// POST (/stores/{storeId})/subscriptions/simulate_plan through the official SDK's
// subscriptions.simulation and raw HTTP: the schedule the engine computes (libs/schedule), the
// fields of each payment, the 400s naming each field, and who may ask. The real gateway in-process,
// Postgres and Redis; nothing is written.
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { InstallmentPlan, PaymentType, SubscriptionPeriod } from 'univapay-node';
import { computeSchedule, NAMED_PERIODS } from '@kessai/schedule';
import { sdkError, useSuite } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const SHOP_ORIGIN = 'https://shop.example.test';
const suite = useSuite({
  gateway: createGatewayApp,
  merchants: { shop: { domains: [SHOP_ORIGIN] }, foreign: {} },
});
const sdk = () => suite.sdk.shop;
const simulate = (body: unknown, path = '/subscriptions/simulate_plan') =>
  suite.api.shop.request(path, { method: 'POST', json: body });

/** The last day of the month after this one, as a date in Tokyo: a start_on in the future. */
const tokyoToday = () => DateTime.now().setZone('Asia/Tokyo').startOf('day');
const nextMonthEnd = () => tokyoToday().plus({ months: 1 }).endOf('month').toISODate()!;

describe('subscriptions.simulation (the SDK)', () => {
  it('answers the dates and amounts the engine computes: month ends followed from a later start_on', async () => {
    const startOn = nextMonthEnd();
    const payments = await sdk().subscriptions.simulation({
      paymentType: PaymentType.CARD,
      amount: 1000,
      currency: 'JPY',
      period: SubscriptionPeriod.MONTHLY,
      installmentPlan: null,
      scheduleSettings: { zoneId: 'Asia/Tokyo', startOn, preserveEndOfMonth: true },
    });

    const engine = computeSchedule({
      createdAt: new Date(),
      period: NAMED_PERIODS.monthly,
      zoneId: 'Asia/Tokyo',
      startOn,
      preserveEndOfMonth: true,
      amount: 1000n,
      initialAmount: null,
      plan: { type: 'open_ended' },
    });
    expect(payments).toEqual(
      engine.payments.map((payment) => ({
        dueDate: payment.dueDate,
        dueAt: payment.dueAt.toISOString(),
        zoneId: 'Asia/Tokyo',
        amount: 1000,
        amountFormatted: 1000,
        currency: 'JPY',
        isPaid: false,
        isLastPayment: false,
        retryInterval: 'P1D',
      })),
    );
    // open-ended: twelve cycles, each on the last day of its month at 09:00 in Tokyo (00:00 UTC)
    expect(payments).toHaveLength(12);
    expect(payments[0].dueDate).toBe(startOn);
    for (const payment of payments) {
      const date = DateTime.fromISO(payment.dueDate);
      expect(date.day).toBe(date.daysInMonth);
      expect((payment as any).dueAt).toBe(`${payment.dueDate}T00:00:00.000Z`);
    }
  });

  it('takes the store in the path, a cyclical_period, an installment plan and an initial amount', async () => {
    const before = Date.now();
    const payments = await sdk().subscriptions.simulation(
      {
        paymentType: PaymentType.CARD,
        amount: 10000,
        currency: 'JPY',
        cyclicalPeriod: 'P2W',
        initialAmount: 4000,
        installmentPlan: { planType: InstallmentPlan.FIXED_CYCLES, fixedCycles: 4 },
        scheduleSettings: { zoneId: 'America/New_York', retryInterval: 'P3D' },
      },
      undefined,
      suite.merchants.shop.store.id,
    );
    expect(payments.map((p) => [p.amount, p.isLastPayment, p.zoneId])).toEqual([
      [4000, false, 'America/New_York'],
      [2000, false, 'America/New_York'],
      [2000, false, 'America/New_York'],
      [2000, true, 'America/New_York'],
    ]);
    // the first is due at once; the others two weeks apart at 09:00 in New York
    const first = Date.parse((payments[0] as any).dueAt);
    expect(first).toBeGreaterThanOrEqual(before - 1000);
    expect(first).toBeLessThanOrEqual(Date.now() + 1000);
    const today = DateTime.now().setZone('America/New_York').startOf('day');
    expect(payments[0].dueDate).toBe(DateTime.fromMillis(first).setZone('America/New_York').toISODate());
    payments.slice(1).forEach((payment, index) => {
      const due = DateTime.fromISO((payment as any).dueAt).setZone('America/New_York');
      expect(due.toISODate()).toBe(payment.dueDate);
      expect(due.toFormat('HH:mm')).toBe('09:00');
      // two weeks per cycle from the creation date, at 09:00 in New York, whatever its UTC offset
      expect(payment.dueDate).toBe(today.plus({ weeks: 2 * (index + 1) }).toISODate());
    });
    expect(payments.every((p) => (p as any).retryInterval === 'P3D')).toBe(true);
  });

  it('refuses what the engine refuses, with the SDK error naming the field', async () => {
    const error = await sdkError(
      sdk().subscriptions.simulation({
        paymentType: PaymentType.CARD,
        amount: 1000,
        currency: 'JPY',
        period: SubscriptionPeriod.WEEKLY,
        scheduleSettings: { zoneId: 'Asia/Tokyo', preserveEndOfMonth: true },
      }),
    );
    expect(error).toEqual({
      status: 'error',
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'schedule_settings.preserve_end_of_month', reason: 'MUST_BE_MONTH_BASED_TO_SET' }],
      httpCode: 400,
    });
  });
});

describe('POST /subscriptions/simulate_plan (raw HTTP)', () => {
  it('answers 200 with every payment of a fixed plan, the last one marked', async () => {
    const startOn = tokyoToday().plus({ days: 10 }).toISODate()!;
    const res = await simulate({
      payment_type: 'card',
      amount: 1000,
      currency: 'jpy',
      period: 'monthly',
      subscription_plan: { plan_type: 'fixed_cycle_amount', fixed_cycle_amount: 3500 },
      schedule_settings: { start_on: startOn, termination_mode: 'immediate' },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.amount, p.currency, p.is_last_payment, p.is_paid])).toEqual([
      [1000, 'JPY', false, false],
      [1000, 'JPY', false, false],
      [1000, 'JPY', false, false],
      [500, 'JPY', true, false],
    ]);
    expect(res.body[0]).toEqual({
      due_date: startOn,
      due_at: `${startOn}T00:00:00.000Z`,
      zone_id: 'Asia/Tokyo',
      amount: 1000,
      amount_formatted: 1000,
      currency: 'JPY',
      is_paid: false,
      is_last_payment: false,
      retry_interval: 'P1D',
    });
  });

  it('puts an initial amount before the cycles when start_on is later, and names zones as IANA does', async () => {
    const startOn = tokyoToday().plus({ days: 3 }).toISODate()!;
    const res = await simulate({
      payment_type: 'card',
      amount: 1000,
      currency: 'JPY',
      period: 'monthly',
      initial_amount: 250,
      subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 2 },
      schedule_settings: { start_on: startOn, zone_id: 'asia/tokyo' },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((p: any) => [p.amount, p.zone_id, p.is_last_payment])).toEqual([
      [250, 'Asia/Tokyo', false],
      [1000, 'Asia/Tokyo', false],
      [1000, 'Asia/Tokyo', true],
    ]);
    expect(res.body[0].due_date).toBe(tokyoToday().toISODate());
    expect(res.body[1].due_date).toBe(startOn);
  });

  it('answers a revolving plan with one payment of the whole amount', async () => {
    const res = await simulate({
      payment_type: 'card',
      amount: 120000,
      currency: 'JPY',
      period: 'monthly',
      installment_plan: { plan_type: 'revolving' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0]).toMatchObject({ amount: 120000, is_last_payment: true });
  });

  it.each<[Record<string, unknown>, ...[string, string][]]>([
    [{}, ['payment_type', 'REQUIRED_VALUE'], ['amount', 'REQUIRED_VALUE'], ['currency', 'REQUIRED_VALUE']],
    [{ payment_type: 'cash' }, ['payment_type', 'INVALID_FORMAT']],
    [{ amount: 0 }, ['amount', 'CHARGE_AMOUNT_TOO_LOW']],
    [{ amount: 10.5 }, ['amount', 'INVALID_FORMAT']],
    [{ currency: 'XXX' }, ['currency', 'UNSUPPORTED_CURRENCY']],
    [{ period: null }, ['period', 'REQUIRED_VALUE']],
    [{ period: 'fortnightly' }, ['period', 'INVALID_FORMAT']],
    [{ cyclical_period: 'P1M' }, ['cyclical_period', 'FORBIDDEN_PARAMETER']],
    [{ period: undefined, cyclical_period: 'PT12H' }, ['cyclical_period', 'INVALID_SUBSCRIPTION_PERIOD']],
    [{ period: undefined, cyclical_period: 'P0D' }, ['cyclical_period', 'INVALID_SUBSCRIPTION_PERIOD']],
    [{ initial_amount: -1 }, ['initial_amount', 'NOT_WITHIN_BOUNDS']],
    [{ initial_amount: 0 }, ['initial_amount', 'CANNOT_SET_INITIAL_AMOUNT_TO_ZERO']],
    [{ schedule_settings: { zone_id: 'Mars/Olympus' } }, ['schedule_settings.zone_id', 'INVALID_FORMAT']],
    [{ schedule_settings: { start_on: 'tomorrow' } }, ['schedule_settings.start_on', 'INVALID_FORMAT_DATE']],
    [
      { schedule_settings: { start_on: '2001-01-01' } },
      ['schedule_settings.start_on', 'INVALID_SUBSCRIPTION_START_ON'],
    ],
    [
      { schedule_settings: { start_on: '2999-01-01' } },
      ['schedule_settings.start_on', 'START_ON_EXCEEDS_LIMIT'],
    ],
    [
      { schedule_settings: { retry_interval: 'soon' } },
      ['schedule_settings.retry_interval', 'INVALID_DURATION'],
    ],
    [
      { schedule_settings: { termination_mode: 'later' } },
      ['schedule_settings.termination_mode', 'INVALID_FORMAT'],
    ],
    [{ schedule_settings: { colour: 'red' } }, ['schedule_settings.colour', 'FORBIDDEN_PARAMETER']],
    [{ subsequent_cycles_start: 7 }, ['subsequent_cycles_start', 'USE_START_ON']],
    [
      { installment_plan: { plan_type: 'fixed_cycles' } },
      ['installment_plan.fixed_cycles', 'REQUIRED_VALUE'],
    ],
    [
      { installment_plan: { plan_type: 'fixed_cycles', fixed_cycles: 1 } },
      ['installment_plan.fixed_cycles', 'INSTALLMENT_INVALID_CYCLES_COUNT'],
    ],
    [
      { installment_plan: { plan_type: 'fixed_cycle_amount' } },
      ['installment_plan.plan_type', 'INSTALLMENT_INVALID_PLAN_TYPE'],
    ],
    [
      { installment_plan: { plan_type: 'revolving' }, initial_amount: 100 },
      ['initial_amount', 'INSTALLMENT_REVOLVING_PLAN_CANNOT_SET_INITIAL_AMOUNT'],
    ],
    [
      { installment_plan: { plan_type: 'fixed_cycles', fixed_cycles: 3 }, initial_amount: 1200 },
      ['initial_amount', 'MUST_BE_LOWER_THAN_FULL_AMOUNT'],
    ],
    [
      { installment_plan: { plan_type: 'revolving' }, payment_type: 'online' },
      ['installment_plan', 'INSTALLMENT_PAYMENT_TYPE_NOT_ALLOWED_FOR_PLAN'],
    ],
    [
      {
        installment_plan: { plan_type: 'revolving' },
        subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 2 },
      },
      ['subscription_plan', 'SUBSCRIPTION_UNSUPPORTED_FOR_INSTALLMENT'],
    ],
    [
      { subscription_plan: { plan_type: 'fixed_cycle_amount' } },
      ['subscription_plan.fixed_cycle_amount', 'REQUIRED_VALUE'],
    ],
    [
      { subscription_plan: { plan_type: 'fixed_cycle_amount', fixed_cycle_amount: 999 } },
      ['subscription_plan.fixed_cycle_amount', 'NOT_WITHIN_BOUNDS'],
    ],
    [
      { subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 0 } },
      ['subscription_plan.fixed_cycles', 'NOT_WITHIN_BOUNDS'],
    ],
    [{ subscription_plan: { plan_type: 'revolving' } }, ['subscription_plan.plan_type', 'INVALID_FORMAT']],
    [{ transaction_token_id: randomUUID() }, ['transaction_token_id', 'FORBIDDEN_PARAMETER']],
  ])('refuses %j with 400 naming each field', async (overrides, ...expected) => {
    const base =
      Object.keys(overrides).length === 0
        ? {}
        : { payment_type: 'card', amount: 1200, currency: 'JPY', period: 'monthly' };
    const res = await simulate({ ...base, ...overrides });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    for (const [field, reason] of expected) expect(res.body.errors).toContainEqual({ field, reason });
  });
});

describe('who may simulate', () => {
  const body = { payment_type: 'card', amount: 1000, currency: 'JPY', period: 'monthly' };

  it('a merchant token, with or without one of its stores in the path', async () => {
    const merchantApi = suite.api.shop.as(await suite.env.merchantToken(suite.merchants.shop));
    for (const path of [
      '/subscriptions/simulate_plan',
      `/stores/${suite.merchants.shop.store.id}/subscriptions/simulate_plan`,
    ]) {
      const res = await merchantApi.request(path, { method: 'POST', json: body });
      expect({ path, status: res.status, length: res.body.length }).toEqual({
        path,
        status: 200,
        length: 12,
      });
    }
  });

  it("another merchant's store, another store than a store token's, or no uuid: 404", async () => {
    const other = await suite.env.admin.createStore({
      merchantId: suite.merchants.shop.merchant.id,
      name: 'Other Store',
    });
    for (const storeId of [suite.merchants.foreign.store.id, other.id, 'not-a-uuid']) {
      const res = await simulate(body, `/stores/${storeId}/subscriptions/simulate_plan`);
      expect({ storeId, status: res.status, code: res.body.code }).toEqual({
        storeId,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    // the foreign merchant's own token sees its store
    const foreignApi = suite.api.shop.as(suite.merchants.foreign);
    const own = await foreignApi.request(
      `/stores/${suite.merchants.foreign.store.id}/subscriptions/simulate_plan`,
      {
        method: 'POST',
        json: body,
      },
    );
    expect(own.status).toBe(200);
  });

  it('needs a secret: a secret-less token is refused, from an allowed Origin too', async () => {
    const publicAuth = `Bearer ${suite.merchants.shop.storeToken.jwt}`;
    const fromPage = await suite.api.shop.request('/subscriptions/simulate_plan', {
      method: 'POST',
      json: body,
      auth: publicAuth,
      origin: SHOP_ORIGIN,
    });
    expect([fromPage.status, fromPage.body.code]).toEqual([403, 'INVALID_PERMISSIONS']);
    const noOrigin = await suite.api.shop.request('/subscriptions/simulate_plan', {
      method: 'POST',
      json: body,
      auth: publicAuth,
    });
    expect([noOrigin.status, noOrigin.body.code]).toEqual([401, 'INVALID_DOMAIN']);
    const anonymous = await suite.gateway.request('/subscriptions/simulate_plan', {
      method: 'POST',
      json: body,
    });
    expect(anonymous.status).toBe(401);
  });
});
