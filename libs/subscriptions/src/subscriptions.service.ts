import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  ChargesRepository,
  StoresRepository,
  SubscriptionsRepository,
  TestClocksRepository,
  TransactionTokensRepository,
  type AccessScope,
  type AuditEntry,
  type Charge,
  type SubscriptionChanges,
  type SubscriptionFilters,
  type SubscriptionWithNextPayment,
  type NewSubscription,
  type TerminationMode,
} from '@kessai/db';
import {
  BusinessRuleError,
  CHARGING_SUBSCRIPTION_STATUSES,
  isFinalSubscriptionStatus,
  isUuid,
  NotFoundError,
  PermissionError,
  SUSPENDABLE_SUBSCRIPTION_STATUSES,
  ValidationError,
  type PageRequest,
  subscriptionEntryStatus,
} from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import type { PaymentsActor, StoreActor } from '@kessai/payments';
import {
  computeSchedule,
  formatCalendarPeriod,
  storedScheduleInput,
  type CalendarPeriod,
  type PlannedPayment,
} from '@kessai/schedule';
import { effectiveConfiguration } from '@kessai/store-configuration';
import type { ScheduleFieldsInput, SubscriptionChangesInput, SubscriptionInput } from './subscription-inputs';
import { retryIntervalOf, scheduleInputOf } from './subscription-schedule';
import { paymentInFlight, subscriptionRefusal } from './subscription-refusals';
import { checkSubscriptionToken } from './subscription-token';

/** Drops the null members of a request object (stored as given, without the SDK's explicit nulls). */
const compact = (value: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(value).filter(([, member]) => member !== null && member !== undefined));

/**
 * The subscription use cases (api-reference §5.3, docs/subscriptions.md "The API"), for the gateway
 * and any other front end: simulate a plan, create a subscription (with its first scheduled payment
 * and event, in one statement), read and list, change it, and move its status (cancel, suspend,
 * unsuspend). Inputs are parsed already; answers are rows, which each front end presents. Charging
 * the scheduled payments is subscription-service's.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly tokens: TransactionTokensRepository,
    private readonly clocks: TestClocksRepository,
    private readonly charges: ChargesRepository,
    private readonly stores: StoresRepository,
  ) {}

  /**
   * A store `scope` may see, for a route that names one (simulate_plan under a store). Another
   * merchant's store, or another store than a store token's, is 404 as an unknown one.
   */
  async checkStoreVisible(scope: AccessScope, storeId: string): Promise<void> {
    if (!isUuid(storeId) || !(await this.stores.findVisible(scope, storeId))) {
      throw new NotFoundError('store');
    }
  }

  /** The payments a plan would make, from now, and the interval between tries of a failed one. */
  simulatePlan(request: ScheduleFieldsInput): { payments: PlannedPayment[]; retryInterval: CalendarPeriod } {
    const schedule = computeSchedule(scheduleInputOf(request, new Date()));
    return { payments: schedule.payments, retryInterval: retryIntervalOf(request) };
  }

  /**
   * Creates a subscription in the actor's store. The schedule is computed as simulate_plan computes
   * it, from the creation instant: now, or the test clock's time. `id`: the new subscription's id
   * when the caller chose it (the hosted link page claims it first).
   */
  async create(actor: StoreActor, request: SubscriptionInput, correlation: Correlation, id?: string) {
    const subscription = await this.prepare(actor, request);
    if (id !== undefined) subscription.id = id;
    const created = await this.subscriptions.create(subscription, correlation.correlationId);
    // the store or the clock was deleted between its read and the insert: say which
    if (!created)
      throw new NotFoundError(
        subscription.testClockId && (await this.stores.findVisible(actor, subscription.storeId)) !== null
          ? 'test_clock'
          : 'store',
      );
    return created;
  }

  /**
   * A subscription's creation up to the write: its token checked, its schedule computed. Resolves
   * to the subscription and first payment to create (one subscription, or one of a batch).
   */
  async prepare(actor: StoreActor, request: SubscriptionInput): Promise<NewSubscription> {
    const storeId = actor.storeId;
    const createdAt = await this.creationInstant(actor, request);
    const schedule = computeSchedule(scheduleInputOf(request, createdAt));
    const token = checkSubscriptionToken(
      await this.tokens.findInMerchant(actor.merchantId, request.transaction_token_id),
      { storeId, mode: actor.mode },
      actor.storeId,
    );
    await this.refuseWhenDisabled(actor, storeId, request);

    const payments = schedule.payments;
    const first = payments[0];
    const settings = request.schedule_settings;
    return {
      id: randomUUID(),
      merchantId: actor.merchantId,
      storeId,
      transactionTokenId: token.id,
      mode: token.mode,
      status: subscriptionEntryStatus(first.dueAt, createdAt),
      period: request.period ?? null,
      cyclicalPeriod: request.cyclical_period ? formatCalendarPeriod(request.cyclical_period) : null,
      amount: BigInt(request.amount),
      currency: request.currency,
      initialAmount: request.initial_amount == null ? null : BigInt(request.initial_amount),
      scheduleCreatedAt: createdAt,
      startOn: settings?.start_on ?? null,
      zoneId: schedule.zoneId,
      preserveEndOfMonth: settings?.preserve_end_of_month ?? false,
      retryInterval: settings?.retry_interval ? formatCalendarPeriod(settings.retry_interval) : null,
      terminationMode: settings?.termination_mode ?? 'immediate',
      installmentPlan: request.installment_plan ? compact(request.installment_plan) : null,
      subscriptionPlan: request.subscription_plan ? compact(request.subscription_plan) : null,
      paymentsLeft: schedule.finite ? payments.length : null,
      cyclesLeft: schedule.finite ? payments.filter((payment) => payment.cycle !== null).length : null,
      amountLeft: schedule.finite ? payments.reduce((sum, payment) => sum + payment.amount, 0n) : null,
      descriptor: request.descriptor ?? null,
      onlyDirectCurrency: request.only_direct_currency ?? false,
      threeDs: request.three_ds ? compact(request.three_ds) : null,
      firstChargeAuthorizationOnly: request.first_charge_authorization_only ?? false,
      firstChargeCaptureAfter: request.first_charge_capture_after ?? null,
      metadata: request.metadata ?? {},
      testClockId: request.test_clock_id ?? null,
      firstPayment: {
        id: randomUUID(),
        cycle: first.cycle,
        dueDate: first.dueDate,
        dueAt: first.dueAt,
        amount: first.amount,
        isLastPayment: first.isLastPayment,
      },
    };
  }

  /** A subscription the scope may see; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, id: string): Promise<SubscriptionWithNextPayment> {
    return this.findVisible(scope, id);
  }

  /** A subscription's status alone (a polling read), or null when there is no such subscription. */
  status(id: string): Promise<string | null> {
    return this.subscriptions.findStatus(id);
  }

  /**
   * A page of the subscriptions `scope` may see, `storeId` the store a route names (which must
   * exist), with the total count on a first page.
   */
  async list(scope: AccessScope, storeId: string | null, where: SubscriptionFilters, page: PageRequest) {
    if (storeId !== null && !(await this.stores.findVisible(scope, storeId))) {
      throw new NotFoundError('store');
    }
    const rows = await this.subscriptions.list(scope, where, page);
    if (page.cursor !== null) return { rows, totalHits: null };
    return { rows, totalHits: await this.subscriptions.count(scope, where) };
  }

  /**
   * PATCH: metadata, descriptor, amount (the payments not charged yet), the token, termination_mode
   * and only_direct_currency, on a subscription that is not final; `status` only as it is.
   * `subscription` as find() read it in `scope`; `actor` is the caller's own scope (the token rule).
   */
  async update(
    actor: AccessScope,
    scope: AccessScope,
    subscription: SubscriptionWithNextPayment,
    request: SubscriptionChangesInput,
    correlation: Correlation,
  ): Promise<SubscriptionWithNextPayment> {
    const id = subscription.id;
    if (request.status !== undefined && request.status !== subscription.status) {
      throw ValidationError.field('status', 'NOT_ALLOWED');
    }
    const changes: SubscriptionChanges = {};
    const changed: string[] = [];
    const change = <K extends keyof SubscriptionChanges>(
      key: K,
      field: string,
      value: SubscriptionChanges[K],
    ) => {
      changes[key] = value;
      changed.push(field);
    };
    if (request.metadata !== undefined) change('metadata', 'metadata', request.metadata);
    if (request.descriptor !== undefined) change('descriptor', 'descriptor', request.descriptor);
    if (request.only_direct_currency !== undefined)
      change('onlyDirectCurrency', 'only_direct_currency', request.only_direct_currency);
    const terminationMode = request.schedule_settings?.termination_mode;
    if (terminationMode != null)
      change('terminationMode', 'schedule_settings.termination_mode', terminationMode);
    if (request.amount !== undefined && BigInt(request.amount) !== subscription.amount) {
      checkAmountChangeable(subscription);
      change('amount', 'amount', BigInt(request.amount));
    }
    if (request.subscription_plan !== undefined) {
      const plan = request.subscription_plan ? compact(request.subscription_plan) : null;
      const paid = await this.subscriptions.paidAmount(subscription.id);
      changes.plan = planChange(subscription, plan, changes.amount ?? subscription.amount, paid);
      changed.push('subscription_plan');
    }
    let retryWith: string | null = null;
    if (request.transaction_token_id !== undefined) {
      const token = await this.subscriptionToken(subscription, request.transaction_token_id, actor);
      // its first payment failed: the token tries it again, after the other changes (decision 0031)
      if (subscription.status === 'unconfirmed') retryWith = token;
      else if (token !== subscription.transactionTokenId)
        change('transactionTokenId', 'transaction_token_id', token);
    }
    if (changed.length === 0 && retryWith === null) {
      if (subscriptionIsFinal(subscription)) throw subscriptionRefusal(subscription.status);
      return subscription;
    }
    if (changed.length > 0) {
      const result = await this.subscriptions.update(scope, id, changes, changed, correlation.correlationId);
      if (!result.moved) throw subscriptionRefusal(result.status);
    }
    if (retryWith !== null) return this.retryFirstPayment(scope, id, retryWith, correlation);
    return this.findVisible(scope, id);
  }

  /** PATCH …/token: the token part of PATCH; `subscription` as find() read it in `scope`. */
  async updateToken(
    actor: AccessScope,
    scope: AccessScope,
    subscription: SubscriptionWithNextPayment,
    transactionTokenId: string,
    correlation: Correlation,
  ): Promise<SubscriptionWithNextPayment> {
    const id = subscription.id;
    const token = await this.subscriptionToken(subscription, transactionTokenId, actor);
    if (subscriptionIsFinal(subscription)) throw subscriptionRefusal(subscription.status);
    // its first payment failed: a token (even the same one, the card since topped up) tries it again
    if (subscription.status === 'unconfirmed') return this.retryFirstPayment(scope, id, token, correlation);
    if (token === subscription.transactionTokenId) return subscription;
    const result = await this.subscriptions.update(
      scope,
      id,
      { transactionTokenId: token },
      ['transaction_token_id'],
      correlation.correlationId,
    );
    if (!result.moved) throw subscriptionRefusal(result.status);
    return this.findVisible(scope, id);
  }

  /**
   * A subscription whose first payment failed (`unconfirmed`), given a token: back to `unverified`
   * with it, and its first payment tried again at once (decision 0031). A subscription that is no
   * longer unconfirmed (a cancel, or a retry, in between) is refused as its status says.
   */
  private async retryFirstPayment(
    scope: AccessScope,
    id: string,
    token: string,
    correlation: Correlation,
  ): Promise<SubscriptionWithNextPayment> {
    const result = await this.subscriptions.retryFirstPayment(scope, id, token, correlation.correlationId);
    if (!result.moved) throw subscriptionRefusal(result.status);
    return this.findVisible(scope, id);
  }

  /**
   * DELETE: cancels. A canceled subscription answers 204 again (idempotent); a completed one is
   * SUBSCRIPTION_ALREADY_ENDED. With the subscription's termination_mode on_next_payment (and a
   * status whose payment still falls due), its pending payment is marked instead and the engine
   * cancels it when the payment falls due; while that payment's charge is in flight:
   * SUBSCRIPTION_PROCESSING. A suspended or unconfirmed one has no payment that will fall due: it is
   * canceled at once.
   */
  async cancel(
    scope: AccessScope,
    id: string,
    correlation: Correlation,
    options: { audit?: AuditEntry } = {},
  ): Promise<void> {
    const { audit } = options;
    const subscription = await this.findVisible(scope, id);
    if (subscription.status === 'canceled') return;
    const from = CHARGING_SUBSCRIPTION_STATUSES;
    if (subscription.terminationMode === 'on_next_payment' && from.includes(subscription.status)) {
      const result = await this.subscriptions.markTermination(
        scope,
        id,
        from,
        'canceled',
        correlation.correlationId,
        audit,
      );
      if (result.marked || result.status === 'canceled') return;
      if (result.status !== null && from.includes(result.status) && !result.hasPending)
        throw paymentInFlight();
      if (result.status === null || isFinalSubscriptionStatus(result.status))
        throw subscriptionRefusal(result.status);
      // suspended or ended meanwhile: nothing falls due any more, so it is canceled at once
    }
    const result = await this.subscriptions.cancel(scope, id, correlation.correlationId, audit);
    if (result.moved || result.status === 'canceled') return;
    throw subscriptionRefusal(result.status);
  }

  /**
   * PATCH …/suspend: from current or unpaid. termination_mode on_next_payment marks the pending
   * payment instead (the engine suspends when it falls due).
   */
  async suspend(
    scope: AccessScope,
    id: string,
    request: { schedule_settings?: { termination_mode?: TerminationMode | null } | null },
    correlation: Correlation,
    options: { audit?: AuditEntry } = {},
  ): Promise<SubscriptionWithNextPayment> {
    const { audit } = options;
    if (request.schedule_settings?.termination_mode === 'on_next_payment') {
      const result = await this.subscriptions.markTermination(
        scope,
        id,
        SUSPENDABLE_SUBSCRIPTION_STATUSES,
        'suspended',
        correlation.correlationId,
        audit,
      );
      if (!result.marked) {
        if (result.status !== null && SUSPENDABLE_SUBSCRIPTION_STATUSES.includes(result.status))
          throw paymentInFlight();
        throw subscriptionRefusal(result.status);
      }
    } else {
      const result = await this.subscriptions.suspend(scope, id, correlation.correlationId, audit);
      if (!result.moved) throw subscriptionRefusal(result.status);
    }
    return this.findVisible(scope, id);
  }

  /** PATCH …/unsuspend: suspended → unpaid, the pending payment tried again from now. */
  async unsuspend(
    scope: AccessScope,
    id: string,
    correlation: Correlation,
    options: { audit?: AuditEntry } = {},
  ): Promise<SubscriptionWithNextPayment> {
    const result = await this.subscriptions.unsuspend(scope, id, correlation.correlationId, options.audit);
    if (!result.moved) throw subscriptionRefusal(result.status);
    return this.findVisible(scope, id);
  }

  /** Its newest charge; 404 when it has none yet. */
  async latestCharge(scope: AccessScope, id: string): Promise<Charge> {
    const subscription = await this.findVisible(scope, id);
    const [latest] = await this.charges.list(
      scope.merchantId,
      { storeId: subscription.storeId, subscriptionId: subscription.id },
      { limit: 1, cursor: null, direction: 'desc' },
    );
    if (!latest) throw new NotFoundError('charge');
    return latest;
  }

  private async findVisible(scope: AccessScope, id: string): Promise<SubscriptionWithNextPayment> {
    const subscription = isUuid(id) ? await this.subscriptions.findInScope(scope, id) : null;
    if (!subscription) throw new NotFoundError('subscription');
    return subscription;
  }

  /**
   * A store (or its merchant) whose subscription_configuration is not enabled takes no new
   * subscription, and one whose installments_configuration is not enabled no new installment
   * plan; those it has go on.
   */
  private async refuseWhenDisabled(
    actor: AccessScope,
    storeId: string,
    request: Pick<SubscriptionInput, 'installment_plan'>,
  ): Promise<void> {
    const scope = { merchantId: actor.merchantId, storeId };
    const store = await this.stores.findVisibleWithMerchant(scope, storeId);
    if (!store) throw new NotFoundError('store');
    const configuration = effectiveConfiguration(store.merchant.configuration, store.configuration);
    if (!configuration.subscription_configuration.enabled)
      throw new BusinessRuleError('SUBSCRIPTION_NOT_ENABLED', [
        { field: 'transaction_token_id', reason: 'SUBSCRIPTION_NOT_ENABLED' },
      ]);
    if (request.installment_plan != null && !configuration.installments_configuration.enabled)
      throw new PermissionError('INSTALLMENTS_NOT_ENABLED', [
        { field: 'installment_plan', reason: 'INSTALLMENTS_NOT_ENABLED' },
      ]);
  }

  /** The creation instant: now, or the time of the test clock the subscription is created on. */
  private async creationInstant(actor: PaymentsActor, request: SubscriptionInput): Promise<Date> {
    if (request.test_clock_id == null) return new Date();
    // live mode never sees a test clock
    if (actor.mode !== 'test') throw ValidationError.field('test_clock_id', 'MODE_NOT_SUPPORTED');
    const clock = await this.clocks.findActive(actor.merchantId, request.test_clock_id);
    if (!clock) throw new NotFoundError('test_clock');
    return clock.frozenTime;
  }

  private async subscriptionToken(
    subscription: SubscriptionWithNextPayment,
    tokenId: string,
    actor: AccessScope,
  ): Promise<string> {
    const token = await this.tokens.findInMerchant(subscription.merchantId, tokenId);
    const expected = { storeId: subscription.storeId, mode: subscription.mode };
    return checkSubscriptionToken(token, expected, actor.storeId).id;
  }
}

function subscriptionIsFinal(subscription: SubscriptionWithNextPayment): boolean {
  return isFinalSubscriptionStatus(subscription.status);
}

/**
 * A new per-cycle amount applies to the cycles not charged yet. Installments split a whole price
 * and fixed_cycle_amount caps a total, so neither takes one (the schedule would change shape).
 */
function checkAmountChangeable(subscription: SubscriptionWithNextPayment): void {
  if (subscription.installmentPlan !== null) {
    throw new BusinessRuleError('CANNOT_CHANGE_INSTALLMENT_AMOUNT', [
      { field: 'amount', reason: 'CANNOT_CHANGE_INSTALLMENT_AMOUNT' },
    ]);
  }
  const plan = subscription.subscriptionPlan as { plan_type?: string } | null;
  if (plan?.plan_type === 'fixed_cycle_amount') throw ValidationError.field('amount', 'NOT_ALLOWED');
}

/**
 * PATCH of subscription_plan (docs/subscriptions.md, "Changing the plan"): a number of cycles
 * (fixed_cycles), a total (fixed_cycle_amount) or none (null: open-ended), counted from the
 * subscription's start as at creation (a subscription whose plan has a total never had its amount
 * changed, so the payments made are the schedule's).
 * What is left is recomputed from the open payment on, with the same schedule engine; the open
 * payment must be pending (not in flight) and still within the new plan.
 */
function planChange(
  subscription: SubscriptionWithNextPayment,
  plan: Record<string, unknown> | null,
  amount: bigint,
  paid: bigint,
): NonNullable<SubscriptionChanges['plan']> {
  if (subscription.installmentPlan !== null)
    throw ValidationError.field('subscription_plan', 'SUBSCRIPTION_UNSUPPORTED_FOR_INSTALLMENT');
  const open = subscription.nextPayment;
  if (subscriptionIsFinal(subscription) || open === null) throw subscriptionRefusal(subscription.status);
  if (open.status !== 'pending') throw new BusinessRuleError('SUBSCRIPTION_PROCESSING');
  if (plan === null)
    return {
      subscriptionPlan: null,
      paymentsLeft: null,
      cyclesLeft: null,
      amountLeft: null,
      openPaymentId: open.id,
      openIsLast: false,
      openAmount: open.amount,
    };
  const schedule = computeSchedule(
    storedScheduleInput({
      scheduleCreatedAt: subscription.scheduleCreatedAt,
      period: subscription.period,
      cyclicalPeriod: subscription.cyclicalPeriod,
      zoneId: subscription.zoneId,
      startOn: subscription.startOn === null ? null : subscription.startOn.toISOString().slice(0, 10),
      preserveEndOfMonth: subscription.preserveEndOfMonth,
      amount,
      initialAmount: subscription.initialAmount,
      installmentPlan: null,
      subscriptionPlan: plan,
      retryInterval: subscription.retryInterval,
    }),
  );
  // the payments from the open one on: it must be one of them
  const left = schedule.payments.filter((payment) => payment.sequence >= open.sequence);
  if (left.length === 0) {
    const field = plan.plan_type === 'fixed_cycles' ? 'fixed_cycles' : 'fixed_cycle_amount';
    throw ValidationError.field(`subscription_plan.${field}`, 'NOT_WITHIN_BOUNDS');
  }
  // a total counts what was paid: the payments made must be the new schedule's (an amount changed
  // earlier makes them differ, and the total could not be kept)
  const before = schedule.payments.filter((payment) => payment.sequence < open.sequence);
  if (plan.plan_type === 'fixed_cycle_amount' && before.reduce((sum, p) => sum + p.amount, 0n) !== paid)
    throw ValidationError.field('subscription_plan.plan_type', 'NOT_ALLOWED');
  return {
    subscriptionPlan: plan,
    paymentsLeft: left.length,
    cyclesLeft: left.filter((payment) => payment.cycle !== null).length,
    amountLeft: left.reduce((sum, payment) => sum + payment.amount, 0n),
    openPaymentId: open.id,
    openIsLast: left.length === 1,
    openAmount: left[0].amount,
  };
}
