// The subscriptions API through the official SDK (subscriptions.create/get/list/update/suspend/
// unsuspend/updateToken/delete/charges, payments.list/get/update/listCharges) and raw HTTP: the rows
// and events each route writes, its refusals, and the races between status changes. The real
// gateway in-process, Postgres and Redis; no engine runs, so a subscription's first payment stays
// pending (nothing here charges).
import { randomUUID } from 'node:crypto';
import type SDK from 'univapay-node';
import { SubscriptionPeriod } from 'univapay-node';
import { computeSchedule, NAMED_PERIODS } from '@kessai/schedule';
import { insertPendingCharge, sdkCardToken, sdkError, sdkFor, useSuite, whileHolding } from '@kessai/testing';
import { createGatewayApp } from '../../apps/gateway/src/app.factory';

const suite = useSuite({
  variables: { CHARGE_POLLING_MAX_WAIT_MS: '3000' },
  gateway: createGatewayApp,
  merchants: { shop: { pci: true, label: 'subs-shop' }, foreign: { pci: true } },
});

const sdk = (): SDK => suite.sdk.shop;
const storeId = () => suite.merchants.shop.store.id;

function subscriptionToken(client: SDK = sdk()) {
  return sdkCardToken(client, { type: 'subscription' });
}

/** A monthly subscription of 1,000 JPY (open-ended unless `extra` says otherwise). */
async function createSubscription(extra: Record<string, unknown> = {}): Promise<any> {
  const token = await subscriptionToken();
  return sdk().subscriptions.create({
    transactionTokenId: token.id,
    amount: 1000,
    currency: 'JPY',
    period: SubscriptionPeriod.MONTHLY,
    scheduleSettings: { zoneId: 'Asia/Tokyo' },
    ...extra,
  });
}

const rowOf = (id: string) => suite.env.prisma.subscription.findUniqueOrThrow({ where: { id } });
const paymentsOf = (subscriptionId: string) =>
  suite.env.prisma.scheduledPayment.findMany({ where: { subscriptionId }, orderBy: { sequence: 'asc' } });
const eventsOf = (aggregateId: string, eventType?: string) =>
  suite.env.prisma.outboxEvent.findMany({
    where: { aggregateId, ...(eventType ? { eventType } : {}) },
    orderBy: { sequence: 'asc' },
  });

describe('subscriptions.create', () => {
  it('creates an unverified subscription, its first payment due at once and subscription_created, together', async () => {
    const token = await subscriptionToken();
    const before = Date.now();
    const created: any = await sdk().subscriptions.create({
      transactionTokenId: token.id,
      amount: 1500,
      currency: 'JPY',
      period: SubscriptionPeriod.MONTHLY,
      descriptor: 'MONTHLY BOX',
      metadata: { order: 'S-1' },
      scheduleSettings: { zoneId: 'America/New_York' },
    });
    expect(created).toMatchObject({
      storeId: storeId(),
      transactionTokenId: token.id,
      mode: 'test',
      status: 'unverified',
      amount: 1500,
      amountFormatted: 1500,
      currency: 'JPY',
      // open-ended: nothing counted down, 0 as the SDK types numbers (decision 0044)
      amountLeft: 0,
      amountLeftFormatted: 0,
      paymentsLeft: 0,
      initialAmount: null,
      period: 'monthly',
      descriptor: 'MONTHLY BOX',
      onlyDirectCurrency: false,
      metadata: { order: 'S-1' },
      scheduleSettings: {
        // the instant the schedule started, with the zone's offset (New York's: -05:00 or -04:00)
        startOn: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T00:00:00\.000-0[45]:00$/),
        zoneId: 'America/New_York',
        preserveEndOfMonth: false,
        retryInterval: 'P1D',
        terminationMode: 'immediate',
      },
      nextPayment: {
        amount: 1500,
        currency: 'JPY',
        isPaid: false,
        isLastPayment: false,
        retryInterval: 'P1D',
      },
    });
    expect(created).not.toHaveProperty('cyclicalPeriod');
    expect(created).not.toHaveProperty('cyclesLeft');
    // none given: the start of the local day it was created on, which the SDK's poll helper compares
    // with now to wait for the first charge (a bare date read as midnight UTC, tomorrow east of UTC)
    expect(created.scheduleSettings.startOn.slice(0, 10)).toBe(created.nextPayment.dueDate);
    expect(new Date(created.scheduleSettings.startOn).getTime()).toBeLessThanOrEqual(
      new Date(created.nextPayment.dueAt).getTime(),
    );
    expect(created).not.toHaveProperty('testClockId');
    expect(new Date(created.nextPayment.dueAt).getTime()).toBeGreaterThanOrEqual(before - 5);
    expect(created.nextPaymentDate).toBe(created.nextPayment.dueDate);

    const row = await rowOf(created.id);
    expect(row.scheduleCreatedAt.toISOString()).toBe(created.nextPayment.dueAt);
    const [payment, ...others] = await paymentsOf(created.id);
    expect(others).toEqual([]);
    expect(payment).toMatchObject({
      id: created.nextPayment.id,
      sequence: 1,
      cycle: 1,
      status: 'pending',
      attempts: 0,
      zoneId: 'America/New_York',
      amount: 1500n,
      testClockId: null,
    });
    expect(payment.nextTryAt?.toISOString()).toBe(created.nextPayment.dueAt);
    const events = await eventsOf(created.id);
    expect(events.map((event) => [event.eventType, event.payload])).toEqual([
      [
        'subscription_created',
        {
          subscription_id: created.id,
          store_id: storeId(),
          status: 'unverified',
          scheduled_payment_id: payment.id,
          charge_id: null,
        },
      ],
    ]);
  });

  it('computes the schedule as simulate_plan does: fixed cycles, an initial amount before a later start_on', async () => {
    const startOn = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const created: any = await createSubscription({
      amount: 1000,
      initialAmount: 300,
      cyclicalPeriod: 'P1M',
      period: undefined,
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 3 },
      scheduleSettings: { zoneId: 'Asia/Tokyo', startOn, retryInterval: 'P2D' },
    });
    const engine = computeSchedule({
      createdAt: (await rowOf(created.id)).scheduleCreatedAt,
      period: NAMED_PERIODS.monthly,
      zoneId: 'Asia/Tokyo',
      startOn,
      preserveEndOfMonth: false,
      amount: 1000n,
      initialAmount: 300n,
      plan: { type: 'fixed_cycles', cycles: 3 },
    });
    expect(engine.payments).toHaveLength(4);
    expect(created).toMatchObject({
      // the initial amount is charged at once: that charge verifies it
      status: 'unverified',
      cyclicalPeriod: 'P1M',
      initialAmount: 300,
      initialAmountFormatted: 300,
      paymentsLeft: 4,
      cyclesLeft: 3,
      amountLeft: 3300,
      amountLeftFormatted: 3300,
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 3 },
      // a later start: that day's payment time (09:00 in Tokyo), when its first cycle falls due
      scheduleSettings: { startOn: `${startOn}T09:00:00.000+09:00`, retryInterval: 'P2D' },
      nextPayment: {
        amount: 300,
        dueDate: engine.payments[0].dueDate,
        dueAt: engine.payments[0].dueAt.toISOString(),
        retryInterval: 'P2D',
      },
    });
    expect(created).not.toHaveProperty('period');
    const [payment] = await paymentsOf(created.id);
    expect(payment.cycle).toBeNull();
  });

  it('a later start_on with nothing due now (a free trial, billed later): current at once, so the SDK’s poll helpers end', async () => {
    const startOn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created: any = await createSubscription({ scheduleSettings: { zoneId: 'Asia/Tokyo', startOn } });
    // its token was checked at creation, and nothing is charged before start_on: nothing left to verify
    expect(created.status).toBe('current');
    expect((await rowOf(created.id)).status).toBe('current');
    expect(await sdk().subscriptions.poll(storeId(), created.id)).toMatchObject({ status: 'current' });
    const first = await sdk().subscriptions.pollSubscriptionWithFirstCharge(storeId(), created.id);
    expect(first.subscription).toMatchObject({ id: created.id, status: 'current' });
    // nothing charged yet: the SDK's helper answers no charge (null, whatever its type says)
    expect(first.charge ?? null).toBeNull();
    const [payment] = await paymentsOf(created.id);
    expect(payment).toMatchObject({ sequence: 1, status: 'pending' });
    expect(created.nextPayment).toMatchObject({ dueDate: startOn });
    const [event] = await eventsOf(created.id, 'subscription_created');
    expect(event.payload).toMatchObject({ status: 'current' });
  });

  it('refuses what simulate_plan refuses, with the same reasons, and writes nothing', async () => {
    const token = await subscriptionToken();
    const count = await suite.env.prisma.subscription.count();
    const refusals: [Record<string, unknown>, { field: string; reason: string }][] = [
      [{ cyclicalPeriod: 'PT12H' }, { field: 'cyclical_period', reason: 'INVALID_SUBSCRIPTION_PERIOD' }],
      [
        { scheduleSettings: { zoneId: 'Asia/Tokyo', startOn: '2000-01-01' } },
        { field: 'schedule_settings.start_on', reason: 'INVALID_SUBSCRIPTION_START_ON' },
      ],
      [{ amount: 0 }, { field: 'amount', reason: 'CHARGE_AMOUNT_TOO_LOW' }],
      [
        { firstChargeCaptureAfter: 'P7D' },
        { field: 'first_charge_authorization_only', reason: 'REQUIRED_VALUE' },
      ],
      [
        { firstChargeAuthorizationOnly: true, firstChargeCaptureAfter: 'PT0S' },
        { field: 'first_charge_capture_after', reason: 'INVALID_DURATION' },
      ],
      [{ subsequentCyclesStart: 3 }, { field: 'subsequent_cycles_start', reason: 'USE_START_ON' }],
    ];
    for (const [extra, expected] of refusals) {
      const error = await sdkError(
        sdk().subscriptions.create({
          transactionTokenId: token.id,
          amount: 1000,
          currency: 'JPY',
          period: SubscriptionPeriod.MONTHLY,
          ...extra,
        }),
      );
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', httpCode: 400 });
      expect(error.errors).toContainEqual(expected);
    }
    // the SDK refuses a missing period itself: the gateway's answer, raw
    const raw = await suite.api.shop.request('/subscriptions', {
      method: 'POST',
      json: { transaction_token_id: token.id, amount: 1000, currency: 'JPY' },
    });
    expect(raw.status).toBe(400);
    expect(raw.body.errors).toContainEqual({ field: 'period', reason: 'REQUIRED_VALUE' });
    expect(await suite.env.prisma.subscription.count()).toBe(count);
  });

  it('takes subscription and recurring tokens of its store and mode only, naming transaction_token_id', async () => {
    const base = { amount: 1000, currency: 'JPY', period: SubscriptionPeriod.MONTHLY };
    const create = (transactionTokenId: string, client = sdk()) =>
      sdkError(client.subscriptions.create({ ...base, transactionTokenId }));

    const recurring = await sdkCardToken(sdk(), { type: 'recurring' });
    expect(await sdk().subscriptions.create({ ...base, transactionTokenId: recurring.id })).toMatchObject({
      status: 'unverified',
    });

    const oneTime = await sdkCardToken(sdk());
    expect(await create(oneTime.id)).toMatchObject({
      code: 'NOT_SUBSCRIPTION_TOKEN',
      httpCode: 400,
      errors: [{ field: 'transaction_token_id', reason: 'NOT_SUBSCRIPTION_TOKEN' }],
    });

    const inactive = await subscriptionToken();
    await suite.env.prisma.transactionToken.update({ where: { id: inactive.id }, data: { active: false } });
    expect(await create(inactive.id)).toMatchObject({
      code: 'INVALID_TOKEN',
      errors: [{ field: 'transaction_token_id', reason: 'NOT_ACTIVE' }],
    });

    const { storeToken: otherStoreToken } = await suite.env.seedStore(suite.merchants.shop, 'Second Store');
    // a sibling store's token looks like a missing one to a store's credential: no oracle of its ids
    const elsewhere = await subscriptionToken(sdkFor(suite.url, otherStoreToken));
    expect(await create(elsewhere.id)).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });

    const live = sdkFor(suite.url, await suite.env.liveStoreToken(suite.merchants.shop));
    expect(await create((await subscriptionToken()).id, live)).toMatchObject({
      code: 'PROCESSING_MODE_MISMATCH',
      errors: [{ field: 'transaction_token_id', reason: 'PROCESSING_MODE_MISMATCH' }],
    });

    const foreignToken = await subscriptionToken(suite.sdk.foreign);
    expect(await create(foreignToken.id)).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
    expect(await create(randomUUID())).toMatchObject({ code: 'NOT_FOUND', httpCode: 404 });
  });

  it('answers a repeated POST with the same Idempotency-Key with the first subscription, created once', async () => {
    const token = await subscriptionToken();
    const key = randomUUID();
    const body = { transaction_token_id: token.id, amount: 800, currency: 'JPY', period: 'weekly' };
    const first = await suite.api.shop.request('/subscriptions', { method: 'POST', json: body, key });
    const second = await suite.api.shop.request('/subscriptions', { method: 'POST', json: body, key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect(await suite.env.prisma.subscription.count({ where: { transactionTokenId: token.id } })).toBe(1);
    const other = await suite.api.shop.request('/subscriptions', {
      method: 'POST',
      json: { ...body, amount: 900 },
      key,
    });
    expect(other.status).toBe(409);
  });

  it('refuses a store whose subscription_configuration is not enabled, and writes nothing', async () => {
    const token = await subscriptionToken();
    await sdk().stores.update(storeId(), {
      configuration: { subscriptionConfiguration: { enabled: false } },
    });
    try {
      const body = { transaction_token_id: token.id, amount: 800, currency: 'JPY', period: 'weekly' };
      const refused = await suite.api.shop.request('/subscriptions', { method: 'POST', json: body });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        code: 'SUBSCRIPTION_NOT_ENABLED',
        errors: [{ field: 'transaction_token_id', reason: 'SUBSCRIPTION_NOT_ENABLED' }],
      });
      expect(await suite.env.prisma.subscription.count({ where: { transactionTokenId: token.id } })).toBe(0);
    } finally {
      await sdk().stores.update(storeId(), {
        configuration: { subscriptionConfiguration: { enabled: true } },
      });
    }
  });

  it('refuses an installment plan while the store’s installments_configuration is not enabled (403)', async () => {
    const shown: any = await sdk().stores.get(storeId());
    expect(shown.configuration.installmentsConfiguration).toEqual({
      enabled: true,
      onlyWithProcessor: false,
    });
    await sdk().stores.update(storeId(), {
      configuration: { installmentsConfiguration: { enabled: false } },
    });
    try {
      const off: any = await sdk().stores.get(storeId());
      expect(off.configuration.installmentsConfiguration).toEqual({
        enabled: false,
        onlyWithProcessor: false,
      });
      const before = await suite.env.prisma.subscription.count({ where: { storeId: storeId() } });
      expect(
        await sdkError(createSubscription({ installmentPlan: { planType: 'fixed_cycles', fixedCycles: 3 } })),
      ).toMatchObject({
        httpCode: 403,
        code: 'INSTALLMENTS_NOT_ENABLED',
        errors: [{ field: 'installment_plan', reason: 'INSTALLMENTS_NOT_ENABLED' }],
      });
      expect(await suite.env.prisma.subscription.count({ where: { storeId: storeId() } })).toBe(before);
      // a subscription without installments is still taken
      expect(await createSubscription()).toMatchObject({ status: 'unverified' });
    } finally {
      await sdk().stores.update(storeId(), { configuration: { installmentsConfiguration: null } } as never);
    }
  });
});

describe('subscriptions.get, poll, list', () => {
  it('reads a subscription of its scope; another merchant or store sees 404', async () => {
    const created: any = await createSubscription();
    expect(await sdk().subscriptions.get(storeId(), created.id)).toEqual(created);
    const foreignSdk = suite.sdk.foreign;
    expect(await sdkError(foreignSdk.subscriptions.get(storeId(), created.id))).toMatchObject({
      httpCode: 404,
    });
    expect(
      await sdkError(foreignSdk.subscriptions.get(suite.merchants.foreign.store.id, created.id)),
    ).toMatchObject({
      httpCode: 404,
    });
    expect((await suite.api.shop.request(`/stores/${storeId()}/subscriptions/not-an-id`)).status).toBe(404);
  });

  it('with polling=true, holds an unverified subscription until its status changes', async () => {
    const created: any = await createSubscription();
    const polled = suite.api.shop.request(`/stores/${storeId()}/subscriptions/${created.id}?polling=true`);
    // the engine's move, made while the GET waits
    await new Promise((resolve) => setTimeout(resolve, 300));
    await suite.env.prisma.subscription.update({ where: { id: created.id }, data: { status: 'current' } });
    const answer = await polled;
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('current');
  });

  it('lists with the pagination of §4 and the status and mode filters', async () => {
    const a: any = await createSubscription();
    const b: any = await createSubscription();
    await sdk()
      .subscriptions.suspend(storeId(), b.id)
      .catch(() => undefined);
    await suite.env.prisma.subscription.update({ where: { id: b.id }, data: { status: 'current' } });

    for (let i = 0; i < 10; i++) await createSubscription();
    const page: any = await sdk().subscriptions.list({ limit: 10 }, undefined, storeId());
    expect(page.items).toHaveLength(10);
    expect(page.hasMore).toBe(true);
    expect(page.totalHits).toBeGreaterThanOrEqual(12);
    expect(page.items[0]).toMatchObject({ storeName: 'subs-shop Store', merchantName: 'subs-shop Merchant' });
    const next: any = await sdk().subscriptions.list({ limit: 10, cursor: page.items[9].id });
    expect(next.totalHits).toBeUndefined();
    const seen = new Set(page.items.map((item: any) => item.id));
    expect(next.items.length).toBeGreaterThan(0);
    expect(next.items.some((item: any) => seen.has(item.id))).toBe(false);

    const current: any = await sdk().subscriptions.list({ status: 'current', limit: 100 } as any);
    expect(current.items.map((item: any) => item.id)).toContain(b.id);
    expect(current.items.map((item: any) => item.id)).not.toContain(a.id);
    expect(current.items.every((item: any) => item.status === 'current')).toBe(true);
    const live: any = await sdk().subscriptions.list({ mode: 'live' } as any);
    expect(live.items).toEqual([]);
    const foreignList: any = await suite.sdk.foreign.subscriptions.list();
    expect(foreignList.items.map((item: any) => item.id)).not.toContain(a.id);
  });

  it('searches the metadata text, with the other filters and the pagination', async () => {
    const tag = `campaign-${randomUUID().slice(0, 8)}`;
    const gold: any[] = [];
    for (let i = 0; i < 11; i++)
      gold.push(await createSubscription({ metadata: { plan: `Gold ${tag}`, i } }));
    const silver: any = await createSubscription({ metadata: { plan: `silver ${tag}` } });
    const keyed: any = await createSubscription({ metadata: { [`gold_${tag}`.replace(/-/g, '_')]: 'yes' } });

    // case-insensitive, in any value (the key's underscores do not match the tag's hyphens)
    const all: any = await sdk().subscriptions.list({ search: tag.toUpperCase(), limit: 100 });
    expect(all.totalHits).toBe(12);
    expect(all.items.map((item: any) => item.id)).not.toContain(keyed.id);
    const found: any = await sdk().subscriptions.list({ search: `gold ${tag}`, limit: 10 });
    expect(found.items.map((item: any) => item.id)).toEqual(
      gold
        .slice(1)
        .reverse()
        .map((item) => item.id),
    );
    expect(found).toMatchObject({ hasMore: true, totalHits: 11 });
    const rest: any = await sdk().subscriptions.list({
      search: `gold ${tag}`,
      limit: 10,
      cursor: gold[1].id,
    });
    expect(rest.items.map((item: any) => item.id)).toEqual([gold[0].id]);
    expect(rest.hasMore).toBe(false);
    // a key matches too; a status filter narrows it; another merchant finds nothing
    const byKey: any = await sdk().subscriptions.list({ search: `gold_${tag}`.replace(/-/g, '_') });
    expect(byKey.items.map((item: any) => item.id)).toEqual([keyed.id]);
    await sdk().subscriptions.delete(storeId(), silver.id);
    const canceled: any = await sdk().subscriptions.list({ search: tag, status: 'canceled' } as any);
    expect(canceled.items.map((item: any) => item.id)).toEqual([silver.id]);
    const foreignFound: any = await suite.sdk.foreign.subscriptions.list({
      search: tag,
    });
    expect(foreignFound.items).toEqual([]);
    // a cursor that names no subscription of the scope is refused, as for an unsearched list
    const unknown = await sdkError(sdk().subscriptions.list({ search: tag, cursor: randomUUID() }));
    expect(unknown).toMatchObject({ httpCode: 400 });
  });
});

describe('subscriptions.update and updateToken', () => {
  it('changes metadata, descriptor and the amount of the payments not charged yet, with subscription_updated', async () => {
    const created: any = await createSubscription({
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 3 },
    });
    expect(created.amountLeft).toBe(3000);
    const updated: any = await sdk().subscriptions.update(storeId(), created.id, {
      amount: 1200,
      metadata: { plan: 'gold' },
      scheduleSettings: { terminationMode: 'on_next_payment' as any },
    });
    expect(updated).toMatchObject({
      amount: 1200,
      amountLeft: 3600,
      metadata: { plan: 'gold' },
      nextPayment: { amount: 1200 },
      scheduleSettings: { terminationMode: 'on_next_payment' },
    });
    const [event] = await eventsOf(created.id, 'subscription_updated');
    expect(event.payload).toMatchObject({
      changed: ['metadata', 'schedule_settings.termination_mode', 'amount'],
      status: 'unverified',
    });
  });

  it('refuses an amount for installments, and a status change', async () => {
    const created: any = await createSubscription({
      installmentPlan: { planType: 'fixed_cycles', fixedCycles: 3 },
    });
    expect(await sdkError(sdk().subscriptions.update(storeId(), created.id, { amount: 5000 }))).toMatchObject(
      {
        code: 'CANNOT_CHANGE_INSTALLMENT_AMOUNT',
        errors: [{ field: 'amount', reason: 'CANNOT_CHANGE_INSTALLMENT_AMOUNT' }],
      },
    );
    expect(
      await sdkError(sdk().subscriptions.update(storeId(), created.id, { status: 'canceled' as any })),
    ).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'status', reason: 'NOT_ALLOWED' }] });
  });

  it('replaces the token with another subscription or recurring token of its store', async () => {
    const created: any = await createSubscription();
    const next = await sdkCardToken(sdk(), { type: 'recurring' });
    const updated: any = await sdk().subscriptions.updateToken(storeId(), created.id, {
      transactionTokenId: next.id,
    });
    expect(updated.transactionTokenId).toBe(next.id);
    expect((await rowOf(created.id)).transactionTokenId).toBe(next.id);
    const oneTime = await sdkCardToken(sdk());
    expect(
      await sdkError(
        sdk().subscriptions.updateToken(storeId(), created.id, { transactionTokenId: oneTime.id }),
      ),
    ).toMatchObject({ code: 'NOT_SUBSCRIPTION_TOKEN', errors: [{ field: 'transaction_token_id' }] });
    expect((await rowOf(created.id)).transactionTokenId).toBe(next.id);
  });
});

describe('cancel, suspend, unsuspend', () => {
  it('DELETE cancels at once: the pending payment canceled, subscription_canceled once; then final', async () => {
    const created: any = await createSubscription();
    await sdk().subscriptions.delete(storeId(), created.id);
    expect((await rowOf(created.id)).status).toBe('canceled');
    const [payment] = await paymentsOf(created.id);
    expect(payment).toMatchObject({ status: 'canceled', nextTryAt: null });
    const got: any = await sdk().subscriptions.get(storeId(), created.id);
    // no payment to come: next_payment is the last one it had, the canceled one (decision 0044)
    expect(got).toMatchObject({ status: 'canceled', nextPayment: { id: payment.id, isPaid: false } });
    expect(got.nextPaymentDate).toBeUndefined();

    await sdk().subscriptions.delete(storeId(), created.id); // idempotent
    expect(await eventsOf(created.id, 'subscription_canceled')).toHaveLength(1);
    expect(
      await sdkError(sdk().subscriptions.update(storeId(), created.id, { metadata: { a: 1 } })),
    ).toMatchObject({
      code: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
      httpCode: 400,
    });
    expect(await sdkError(sdk().subscriptions.unsuspend(storeId(), created.id))).toMatchObject({
      code: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
    });
  });

  it('leaves a payment whose charge is in flight to the engine', async () => {
    const created: any = await createSubscription();
    await suite.env.prisma.scheduledPayment.updateMany({
      where: { subscriptionId: created.id },
      data: { status: 'processing', attempts: 1, nextTryAt: null },
    });
    await sdk().subscriptions.delete(storeId(), created.id);
    expect((await rowOf(created.id)).status).toBe('canceled');
    expect((await paymentsOf(created.id))[0].status).toBe('processing');
  });

  it('with termination_mode on_next_payment, DELETE marks the pending payment and the engine cancels later', async () => {
    const created: any = await createSubscription({
      scheduleSettings: { zoneId: 'Asia/Tokyo', terminationMode: 'on_next_payment' },
    });
    await sdk().subscriptions.delete(storeId(), created.id);
    expect((await rowOf(created.id)).status).toBe('unverified');
    expect((await paymentsOf(created.id))[0]).toMatchObject({
      status: 'pending',
      terminateWithStatus: 'canceled',
    });
    const got: any = await sdk().subscriptions.get(storeId(), created.id);
    expect(got.nextPayment.terminateWithStatus).toBe('canceled');
  });

  it('with termination_mode on_next_payment, DELETE cancels at once a subscription that has ended unconfirmed', async () => {
    const created: any = await createSubscription({
      scheduleSettings: { zoneId: 'Asia/Tokyo', terminationMode: 'on_next_payment' },
    });
    // as the engine leaves a subscription whose first payment failed: no payment will ever fall due
    await suite.env.prisma.scheduledPayment.updateMany({
      where: { subscriptionId: created.id },
      data: { status: 'failed', attempts: 1, nextTryAt: null },
    });
    await suite.env.prisma.subscription.update({
      where: { id: created.id },
      data: { status: 'unconfirmed' },
    });

    await sdk().subscriptions.delete(storeId(), created.id);
    expect((await rowOf(created.id)).status).toBe('canceled');
    expect((await paymentsOf(created.id))[0].status).toBe('failed');
    expect(await eventsOf(created.id, 'subscription_canceled')).toHaveLength(1);
  });

  it('suspends a current subscription (payment paused), unsuspends it to unpaid (payment due again)', async () => {
    const created: any = await createSubscription();
    expect(await sdkError(sdk().subscriptions.suspend(storeId(), created.id))).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'status', reason: 'NOT_ALLOWED' }],
    });
    await suite.env.prisma.subscription.update({ where: { id: created.id }, data: { status: 'current' } });

    const suspended: any = await sdk().subscriptions.suspend(storeId(), created.id);
    expect(suspended.status).toBe('suspended');
    expect((await paymentsOf(created.id))[0]).toMatchObject({ status: 'pending', nextTryAt: null });
    const [suspendedEvent] = await eventsOf(created.id, 'subscription_suspended');
    expect(suspendedEvent.payload).toMatchObject({
      status: 'suspended',
      scheduled_payment_id: created.nextPayment.id,
    });

    const beforeUnsuspend = Date.now();
    const unsuspended: any = await sdk().subscriptions.unsuspend(storeId(), created.id);
    expect(unsuspended.status).toBe('unpaid');
    const [payment] = await paymentsOf(created.id);
    expect(payment.nextTryAt!.getTime()).toBeGreaterThanOrEqual(beforeUnsuspend - 1000);
    const updates = await eventsOf(created.id, 'subscription_updated');
    expect(updates.map((event) => event.payload)).toContainEqual(
      expect.objectContaining({ changed: ['status'], status: 'unpaid' }),
    );
    expect(await sdkError(sdk().subscriptions.unsuspend(storeId(), created.id))).toMatchObject({
      errors: [{ field: 'status', reason: 'NOT_ALLOWED' }],
    });
  });

  it('suspend with on_next_payment marks the pending payment instead', async () => {
    const created: any = await createSubscription();
    await suite.env.prisma.subscription.update({ where: { id: created.id }, data: { status: 'current' } });
    const answer = await suite.api.shop.request(`/subscriptions/${created.id}/suspend`, {
      method: 'PATCH',
      json: { schedule_settings: { termination_mode: 'on_next_payment' } },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      status: 'current',
      next_payment: { terminate_with_status: 'suspended' },
    });
    expect(await eventsOf(created.id, 'subscription_suspended')).toEqual([]);
  });

  it('of a cancel and a suspend racing, the outcome is one of the two orders, never both half-done', async () => {
    for (let round = 0; round < 8; round++) {
      const created: any = await createSubscription();
      await suite.env.prisma.subscription.update({ where: { id: created.id }, data: { status: 'current' } });
      const [suspend, cancel] = await Promise.allSettled([
        sdk().subscriptions.suspend(storeId(), created.id),
        sdk().subscriptions.delete(storeId(), created.id),
      ]);
      expect(cancel.status).toBe('fulfilled');
      expect((await rowOf(created.id)).status).toBe('canceled');
      const events = (await eventsOf(created.id)).map((event) => event.eventType);
      // suspended first then canceled (both answered), or canceled first and the suspend refused
      if (suspend.status === 'fulfilled') {
        expect(events).toEqual(['subscription_created', 'subscription_suspended', 'subscription_canceled']);
      } else {
        expect(events).toEqual(['subscription_created', 'subscription_canceled']);
        expect(await sdkError(Promise.reject(suspend.reason as Error))).toMatchObject({
          code: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
        });
      }
    }
  });

  it('of two suspends racing exactly one wins; of two cancels, one subscription_canceled', async () => {
    for (let round = 0; round < 4; round++) await suspendsAndCancelsRacing();
  });
});

async function suspendsAndCancelsRacing() {
  {
    const created: any = await createSubscription();
    await suite.env.prisma.subscription.update({ where: { id: created.id }, data: { status: 'current' } });
    const suspends = await Promise.allSettled(
      [1, 2, 3].map(() => sdk().subscriptions.suspend(storeId(), created.id)),
    );
    expect(suspends.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(await eventsOf(created.id, 'subscription_suspended')).toHaveLength(1);

    const cancels = await Promise.allSettled(
      [1, 2, 3].map(() => sdk().subscriptions.delete(storeId(), created.id)),
    );
    expect(cancels.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(await eventsOf(created.id, 'subscription_canceled')).toHaveLength(1);
    const losers = suspends.filter((result) => result.status === 'rejected');
    for (const loser of losers) {
      expect(await sdkError(Promise.reject(loser.reason as Error))).toMatchObject({
        errors: [{ field: 'status', reason: 'NOT_ALLOWED' }],
      });
    }
  }
}

describe('scheduled payments and charges', () => {
  it('a payment PATCH locks its subscription before the payment, as every other subscription write', async () => {
    const created: any = await createSubscription({
      scheduleSettings: {
        zoneId: 'Asia/Tokyo',
        startOn: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
      },
    });
    await suite.env.prisma.store.update({
      where: { id: storeId() },
      data: { configuration: { subscription_configuration: { allow_merchant_amount_patch: true } } },
    });
    const paymentId = created.nextPayment.id;
    try {
      // a cancel (or a store's deletion) holds the subscription and will go on to its payment
      const patched = await whileHolding(
        suite.env.database.url,
        { sql: 'SELECT id FROM subscriptions WHERE id = $1 FOR UPDATE', params: [created.id] },
        () => sdk().subscriptions.payments.update(storeId(), created.id, paymentId, { amount: 800 }),
        'the PATCH waiting for the subscription',
        async (probe) => {
          // the PATCH, waiting for the subscription, holds nothing of the payment
          await probe.query('SELECT id FROM scheduled_payments WHERE id = $1 FOR UPDATE NOWAIT', [paymentId]);
        },
      );
      expect(patched).toMatchObject({ amount: 800 });
    } finally {
      await suite.env.prisma.store.update({ where: { id: storeId() }, data: { configuration: {} } });
    }
  });

  it('lists and reads the payments; PATCH follows the store configuration', async () => {
    const startOn = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created: any = await createSubscription({
      subscriptionPlan: { planType: 'fixed_cycles', fixedCycles: 2 },
      scheduleSettings: { zoneId: 'Asia/Tokyo', startOn },
    });
    const list: any = await sdk().subscriptions.payments.list(storeId(), created.id);
    expect(list.items).toHaveLength(1);
    expect(list.totalHits).toBe(1);
    const id = created.nextPayment.id;
    expect(await sdk().subscriptions.payments.get(storeId(), created.id, id)).toEqual(created.nextPayment);

    const laterDate = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    expect(
      await sdkError(sdk().subscriptions.payments.update(storeId(), created.id, id, { dueDate: laterDate })),
    ).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ field: 'due_date', reason: 'FORBIDDEN_PARAMETER' }],
    });

    await suite.env.prisma.store.update({
      where: { id: storeId() },
      data: {
        configuration: {
          subscription_configuration: {
            allow_merchant_due_date_patch: true,
            allow_merchant_amount_patch: true,
          },
        },
      },
    });
    const moved: any = await sdk().subscriptions.payments.update(storeId(), created.id, id, {
      dueDate: laterDate,
      amount: 700,
    });
    expect(moved).toMatchObject({ dueDate: laterDate, amount: 700 });
    // 09:00 in Tokyo is 00:00 UTC
    expect(moved.dueAt).toBe(`${laterDate}T00:00:00.000Z`);
    const [payment] = await paymentsOf(created.id);
    expect(payment.nextTryAt?.toISOString()).toBe(moved.dueAt);
    expect((await rowOf(created.id)).amountLeft).toBe(1700n);
    expect(
      await sdkError(
        sdk().subscriptions.payments.update(storeId(), created.id, id, { dueDate: '2001-01-01' }),
      ),
    ).toMatchObject({ errors: [{ field: 'due_date', reason: 'NOT_WITHIN_BOUNDS' }] });

    await sdk().subscriptions.delete(storeId(), created.id);
    expect(
      await sdkError(sdk().subscriptions.payments.update(storeId(), created.id, id, { amount: 900 })),
    ).toMatchObject({
      code: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
    });
    await suite.env.prisma.store.update({ where: { id: storeId() }, data: { configuration: {} } });
  });

  it("lists the subscription's charges and its payment's charges; latest is 404 until there is one", async () => {
    const created: any = await createSubscription();
    expect(
      (await suite.api.shop.request(`/stores/${storeId()}/subscriptions/${created.id}/charges/latest`))
        .status,
    ).toBe(404);
    expect(((await sdk().subscriptions.charges(storeId(), created.id)) as any).items).toEqual([]);

    const chargeId = await insertPendingCharge(suite.env, suite.merchants.shop, created.transactionTokenId, {
      requested: false,
    });
    await suite.env.prisma.charge.update({
      where: { id: chargeId },
      data: { subscriptionId: created.id, scheduledPaymentId: created.nextPayment.id, paymentAttempt: 1 },
    });
    const charges: any = await sdk().subscriptions.charges(storeId(), created.id);
    expect(charges.items.map((charge: any) => charge.id)).toEqual([chargeId]);
    const latest = await suite.api.shop.request(
      `/stores/${storeId()}/subscriptions/${created.id}/charges/latest`,
    );
    expect(latest.body).toMatchObject({ id: chargeId, subscription_id: created.id });
    const ofPayment: any = await sdk().subscriptions.payments.listCharges(
      storeId(),
      created.id,
      created.nextPayment.id,
    );
    expect(ofPayment.items.map((charge: any) => charge.id)).toEqual([chargeId]);
  });
});
