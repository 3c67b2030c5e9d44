import type {
  AccessScope,
  ChargesRepository,
  ScheduledPayment,
  StoresRepository,
  SubscriptionChanges,
  SubscriptionStatus,
  SubscriptionWithNextPayment,
  SubscriptionsRepository,
  TestClocksRepository,
  TransactionToken,
  TransactionTokensRepository,
} from '@kessai/db';
import { DomainError, NotFoundError } from '@kessai/domain';
import type { StoreActor } from '@kessai/payments';
import type { SubscriptionInput } from './subscription-inputs';
import { checkSubscriptionToken } from './subscription-token';
import { SubscriptionsService } from './subscriptions.service';

// The subscription rules of SubscriptionsService on in-memory repositories: the token rule, a new
// subscription's checks, and what a change, a cancel and a suspend may do. The SQL behind each
// write (conditional on the row's status) is the e2e suites' (test/subscriptions-*.e2e-spec.ts).

const MERCHANT = '00000000-0000-4000-8000-000000000001';
const STORE = '00000000-0000-4000-8000-000000000002';
const OTHER_STORE = '00000000-0000-4000-8000-000000000003';
const TOKEN = '00000000-0000-4000-8000-000000000004';
const NEW_TOKEN = '00000000-0000-4000-8000-000000000005';
const SUBSCRIPTION = '00000000-0000-4000-8000-000000000006';
const CLOCK = '00000000-0000-4000-8000-000000000007';
const actor: StoreActor = { merchantId: MERCHANT, storeId: STORE, mode: 'test' };
const merchantScope: AccessScope = { merchantId: MERCHANT, storeId: null };
const correlation = { correlationId: 'req-1' };

function tokenOf(overrides: Partial<TransactionToken> = {}): TransactionToken {
  return {
    id: TOKEN,
    merchantId: MERCHANT,
    storeId: STORE,
    type: 'recurring',
    paymentType: 'card',
    mode: 'test',
    active: true,
    confirmed: null,
    ...overrides,
  } as TransactionToken;
}

function openPayment(overrides: Partial<ScheduledPayment> = {}): ScheduledPayment {
  return {
    id: '00000000-0000-4000-8000-0000000000p1',
    sequence: 2,
    status: 'pending',
    amount: 1000n,
    ...overrides,
  } as ScheduledPayment;
}

function subscriptionOf(overrides: Partial<SubscriptionWithNextPayment> = {}): SubscriptionWithNextPayment {
  return {
    id: SUBSCRIPTION,
    merchantId: MERCHANT,
    storeId: STORE,
    transactionTokenId: TOKEN,
    mode: 'test',
    status: 'current',
    period: 'monthly',
    cyclicalPeriod: null,
    amount: 1000n,
    currency: 'JPY',
    initialAmount: null,
    scheduleCreatedAt: new Date('2026-01-05T00:00:00Z'),
    startOn: null,
    zoneId: 'Asia/Tokyo',
    preserveEndOfMonth: false,
    retryInterval: null,
    terminationMode: 'immediate',
    installmentPlan: null,
    subscriptionPlan: null,
    testClockId: null,
    nextPayment: openPayment(),
    ...overrides,
  } as unknown as SubscriptionWithNextPayment;
}

function requestOf(overrides: Partial<SubscriptionInput> = {}): SubscriptionInput {
  return { transaction_token_id: TOKEN, amount: 1000, currency: 'JPY', period: 'monthly', ...overrides };
}

/** In-memory stand-ins for the repositories SubscriptionsService reads and writes. */
class FakeRepositories {
  tokens = new Map<string, TransactionToken>();
  subscriptions = new Map<string, SubscriptionWithNextPayment>();
  clocks = new Map<string, { frozenTime: Date }>();
  subscriptionsEnabled = true;
  paid = 0n;
  updates: { changes: SubscriptionChanges; changed: string[] }[] = [];
  /** what a conditional status change answers (the SQL's decision in production) */
  transition: { moved: true } | { moved: false; status: SubscriptionStatus | null } = { moved: true };
  termination = { marked: true, status: 'current' as SubscriptionStatus | null, hasPending: true };
  calls: string[] = [];

  readonly subscriptionRows: Partial<SubscriptionsRepository> = {
    findInScope: (_scope, id) => Promise.resolve(this.subscriptions.get(id) ?? null),
    paidAmount: () => Promise.resolve(this.paid),
    update: (_scope, _id, changes, changed) => {
      this.updates.push({ changes, changed });
      return Promise.resolve(this.transition);
    },
    cancel: () => {
      this.calls.push('cancel');
      return Promise.resolve(this.transition);
    },
    suspend: () => {
      this.calls.push('suspend');
      return Promise.resolve(this.transition);
    },
    markTermination: (_scope, _id, _from, terminateWith) => {
      this.calls.push(`mark ${terminateWith}`);
      return Promise.resolve(this.termination);
    },
  };

  readonly transactionTokens: Partial<TransactionTokensRepository> = {
    findInMerchant: (_merchantId, id) => Promise.resolve(this.tokens.get(id) ?? null),
  };

  readonly testClocks: Partial<TestClocksRepository> = {
    findActive: (_merchantId, id) =>
      Promise.resolve(
        (this.clocks.get(id) ?? null) as Awaited<ReturnType<TestClocksRepository['findActive']>>,
      ),
  };

  readonly stores: Partial<StoresRepository> = {
    findVisibleWithMerchant: (_scope, storeId) =>
      Promise.resolve({
        id: storeId,
        configuration: { subscription_configuration: { enabled: this.subscriptionsEnabled } },
        merchant: { configuration: {} },
      } as unknown as Awaited<ReturnType<StoresRepository['findVisibleWithMerchant']>>),
  };

  service(): SubscriptionsService {
    return new SubscriptionsService(
      this.subscriptionRows as SubscriptionsRepository,
      this.transactionTokens as TransactionTokensRepository,
      this.testClocks as TestClocksRepository,
      {} as ChargesRepository,
      this.stores as StoresRepository,
    );
  }
}

async function refusal(work: Promise<unknown>): Promise<{ code: string; errors: unknown[] }> {
  const error: unknown = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof DomainError)) throw new Error(`expected a domain error, got ${String(error)}`);
  return { code: error.code, errors: error.errors };
}

describe('checkSubscriptionToken', () => {
  const expected = { storeId: STORE, mode: 'test' };
  const refused = (token: TransactionToken | null, callerStoreId: string | null = null) => {
    try {
      checkSubscriptionToken(token, expected, callerStoreId);
    } catch (error) {
      if (error instanceof NotFoundError) return 'NOT_FOUND';
      if (error instanceof DomainError) return `${error.code} ${error.errors.map((e) => e.reason).join()}`;
      throw error;
    }
    return null;
  };

  it('takes a recurring or subscription card token of the store and mode', () => {
    expect(refused(tokenOf())).toBeNull();
    expect(refused(tokenOf({ type: 'subscription' }))).toBeNull();
  });

  it('answers a missing token, and a sibling store’s to a store-scoped caller, as not found', () => {
    expect(refused(null)).toBe('NOT_FOUND');
    expect(refused(tokenOf({ storeId: OTHER_STORE }), STORE)).toBe('NOT_FOUND');
  });

  it.each([
    ['another store’s, to a merchant caller', tokenOf({ storeId: OTHER_STORE }), 'TOKEN_FOR_WRONG_STORE'],
    ['another mode', tokenOf({ mode: 'live' }), 'PROCESSING_MODE_MISMATCH'],
    ['a one-time token', tokenOf({ type: 'one_time' }), 'NOT_SUBSCRIPTION_TOKEN'],
    ['an online token', tokenOf({ paymentType: 'online' }), 'PAYMENT_TYPE_NOT_ALLOWED'],
    ['an inactive token', tokenOf({ active: false }), 'INVALID_TOKEN'],
    ['an unconfirmed token', tokenOf({ confirmed: false }), 'TOKEN_MUST_BE_CONFIRMED'],
  ])('refuses %s, naming transaction_token_id', (_label, token, code) => {
    expect(refused(token)).toMatch(new RegExp(`^${code} `));
  });
});

describe('SubscriptionsService: a new subscription', () => {
  let repositories: FakeRepositories;
  let subscriptions: SubscriptionsService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    repositories.tokens.set(TOKEN, tokenOf());
    subscriptions = repositories.service();
  });

  it('computes its first payment and what is left of a fixed plan', async () => {
    const created = await subscriptions.prepare(
      actor,
      requestOf({ subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 3 } }),
    );
    expect(created).toMatchObject({
      merchantId: MERCHANT,
      storeId: STORE,
      transactionTokenId: TOKEN,
      mode: 'test',
      amount: 1000n,
      paymentsLeft: 3,
      cyclesLeft: 3,
      amountLeft: 3000n,
      terminationMode: 'immediate',
      testClockId: null,
    });
    expect(created.firstPayment.amount).toBe(1000n);
  });

  it('starts on its test clock’s time, in test mode only', async () => {
    const frozenTime = new Date('2030-02-01T00:00:00Z');
    repositories.clocks.set(CLOCK, { frozenTime });
    const created = await subscriptions.prepare(actor, requestOf({ test_clock_id: CLOCK }));
    expect(created.scheduleCreatedAt).toEqual(frozenTime);

    const live = await refusal(
      subscriptions.prepare({ ...actor, mode: 'live' }, requestOf({ test_clock_id: CLOCK })),
    );
    expect(live.errors).toEqual([{ field: 'test_clock_id', reason: 'MODE_NOT_SUPPORTED' }]);
    await expect(
      subscriptions.prepare(actor, requestOf({ test_clock_id: '00000000-0000-4000-8000-0000000000ff' })),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('is refused by a store whose subscriptions are not enabled', async () => {
    repositories.subscriptionsEnabled = false;
    expect(await refusal(subscriptions.prepare(actor, requestOf()))).toEqual({
      code: 'SUBSCRIPTION_NOT_ENABLED',
      errors: [{ field: 'transaction_token_id', reason: 'SUBSCRIPTION_NOT_ENABLED' }],
    });
  });

  it('checks its token as the token rule says', async () => {
    repositories.tokens.set(TOKEN, tokenOf({ type: 'one_time' }));
    expect((await refusal(subscriptions.prepare(actor, requestOf()))).code).toBe('NOT_SUBSCRIPTION_TOKEN');
  });
});

describe('SubscriptionsService: changes', () => {
  let repositories: FakeRepositories;
  let subscriptions: SubscriptionsService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    repositories.tokens.set(TOKEN, tokenOf());
    repositories.tokens.set(NEW_TOKEN, tokenOf({ id: NEW_TOKEN }));
    subscriptions = repositories.service();
  });

  const update = (subscription: SubscriptionWithNextPayment, input: object, caller = merchantScope) => {
    repositories.subscriptions.set(subscription.id, subscription);
    return subscriptions.update(caller, merchantScope, subscription, input, correlation);
  };

  it('writes the fields that change, and names them', async () => {
    await update(subscriptionOf(), {
      metadata: { a: 1 },
      amount: 2000,
      transaction_token_id: NEW_TOKEN,
      schedule_settings: { termination_mode: 'on_next_payment' },
    });
    expect(repositories.updates).toEqual([
      {
        changes: {
          metadata: { a: 1 },
          terminationMode: 'on_next_payment',
          amount: 2000n,
          transactionTokenId: NEW_TOKEN,
        },
        changed: ['metadata', 'schedule_settings.termination_mode', 'amount', 'transaction_token_id'],
      },
    ]);
  });

  it('accepts status only as it is', async () => {
    expect((await refusal(update(subscriptionOf(), { status: 'suspended' }))).errors).toEqual([
      { field: 'status', reason: 'NOT_ALLOWED' },
    ]);
    await update(subscriptionOf(), { status: 'current' });
    expect(repositories.updates).toHaveLength(0);
  });

  it('refuses a new amount for installments and fixed totals', async () => {
    const installments = subscriptionOf({ installmentPlan: { plan_type: 'fixed_cycles', fixed_cycles: 3 } });
    expect((await refusal(update(installments, { amount: 2000 }))).code).toBe(
      'CANNOT_CHANGE_INSTALLMENT_AMOUNT',
    );
    const total = subscriptionOf({ subscriptionPlan: { plan_type: 'fixed_cycle_amount' } });
    expect((await refusal(update(total, { amount: 2000 }))).errors).toEqual([
      { field: 'amount', reason: 'NOT_ALLOWED' },
    ]);
  });

  it('answers an ended subscription with the reference’s codes, even when nothing changes', async () => {
    expect((await refusal(update(subscriptionOf({ status: 'canceled' }), {}))).code).toBe(
      'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
    );
    expect((await refusal(update(subscriptionOf({ status: 'completed' }), {}))).code).toBe(
      'SUBSCRIPTION_ALREADY_ENDED',
    );
  });

  it('answers a change the row refused with the status that refused it', async () => {
    repositories.transition = { moved: false, status: 'canceled' };
    expect((await refusal(update(subscriptionOf(), { metadata: { a: 1 } }))).code).toBe(
      'CANNOT_CHANGE_CANCELED_SUBSCRIPTION',
    );
  });

  it('hides a sibling store’s token from a store-scoped caller', async () => {
    repositories.tokens.set(NEW_TOKEN, tokenOf({ id: NEW_TOKEN, storeId: OTHER_STORE }));
    const caller = { merchantId: MERCHANT, storeId: STORE };
    await expect(
      update(subscriptionOf(), { transaction_token_id: NEW_TOKEN }, caller),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await refusal(update(subscriptionOf(), { transaction_token_id: NEW_TOKEN }))).code).toBe(
      'TOKEN_FOR_WRONG_STORE',
    );
  });

  describe('the plan', () => {
    it('recomputes what is left from the open payment on', async () => {
      await update(subscriptionOf(), { subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 4 } });
      const [{ changes, changed }] = repositories.updates as [
        { changes: SubscriptionChanges; changed: string[] },
      ];
      expect(changed).toEqual(['subscription_plan']);
      // payments 2, 3 and 4 of four are left
      expect(changes.plan).toMatchObject({
        paymentsLeft: 3,
        cyclesLeft: 3,
        amountLeft: 3000n,
        openIsLast: false,
        openAmount: 1000n,
      });
    });

    it('becomes open-ended with null', async () => {
      await update(subscriptionOf({ subscriptionPlan: { plan_type: 'fixed_cycles', fixed_cycles: 4 } }), {
        subscription_plan: null,
      });
      expect(repositories.updates[0]?.changes.plan).toMatchObject({
        subscriptionPlan: null,
        paymentsLeft: null,
        amountLeft: null,
      });
    });

    it('waits for a payment in flight, and refuses a plan that ends before the open payment', async () => {
      const inFlight = subscriptionOf({ nextPayment: openPayment({ status: 'processing' }) });
      expect((await refusal(update(inFlight, { subscription_plan: null }))).code).toBe(
        'SUBSCRIPTION_PROCESSING',
      );

      const past = await refusal(
        update(subscriptionOf(), { subscription_plan: { plan_type: 'fixed_cycles', fixed_cycles: 1 } }),
      );
      expect(past.errors).toEqual([{ field: 'subscription_plan.fixed_cycles', reason: 'NOT_WITHIN_BOUNDS' }]);
    });

    it('is not for installments', async () => {
      const installments = subscriptionOf({ installmentPlan: { plan_type: 'revolving' } });
      expect((await refusal(update(installments, { subscription_plan: null }))).errors).toEqual([
        { field: 'subscription_plan', reason: 'SUBSCRIPTION_UNSUPPORTED_FOR_INSTALLMENT' },
      ]);
    });
  });
});

describe('SubscriptionsService: cancel and suspend', () => {
  let repositories: FakeRepositories;
  let subscriptions: SubscriptionsService;

  beforeEach(() => {
    repositories = new FakeRepositories();
    subscriptions = repositories.service();
  });

  it('cancels a canceled subscription again without a write', async () => {
    repositories.subscriptions.set(SUBSCRIPTION, subscriptionOf({ status: 'canceled' }));
    await subscriptions.cancel(merchantScope, SUBSCRIPTION, correlation);
    expect(repositories.calls).toEqual([]);
  });

  it('marks the pending payment when termination_mode is on_next_payment', async () => {
    repositories.subscriptions.set(SUBSCRIPTION, subscriptionOf({ terminationMode: 'on_next_payment' }));
    await subscriptions.cancel(merchantScope, SUBSCRIPTION, correlation);
    expect(repositories.calls).toEqual(['mark canceled']);
  });

  it('says a marked cancel waits for the payment in flight', async () => {
    repositories.subscriptions.set(SUBSCRIPTION, subscriptionOf({ terminationMode: 'on_next_payment' }));
    repositories.termination = { marked: false, status: 'current', hasPending: false };
    expect((await refusal(subscriptions.cancel(merchantScope, SUBSCRIPTION, correlation))).code).toBe(
      'SUBSCRIPTION_PROCESSING',
    );
  });

  it('answers a completed subscription’s cancel as already ended', async () => {
    repositories.subscriptions.set(SUBSCRIPTION, subscriptionOf());
    repositories.transition = { moved: false, status: 'completed' };
    expect((await refusal(subscriptions.cancel(merchantScope, SUBSCRIPTION, correlation))).code).toBe(
      'SUBSCRIPTION_ALREADY_ENDED',
    );
  });

  it('suspends at once, or marks the payment with on_next_payment', async () => {
    repositories.subscriptions.set(SUBSCRIPTION, subscriptionOf());
    await subscriptions.suspend(merchantScope, SUBSCRIPTION, {}, correlation);
    await subscriptions.suspend(
      merchantScope,
      SUBSCRIPTION,
      { schedule_settings: { termination_mode: 'on_next_payment' } },
      correlation,
    );
    expect(repositories.calls).toEqual(['suspend', 'mark suspended']);
  });

  it('refuses to suspend a suspended subscription', async () => {
    repositories.transition = { moved: false, status: 'suspended' };
    expect(
      (await refusal(subscriptions.suspend(merchantScope, SUBSCRIPTION, {}, correlation))).errors,
    ).toEqual([{ field: 'status', reason: 'NOT_ALLOWED' }]);
  });
});
