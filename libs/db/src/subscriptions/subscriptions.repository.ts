import { Injectable } from '@nestjs/common';
import { OPEN_SCHEDULED_PAYMENT_STATUSES, unknownCursor, type PageRequest } from '@kessai/domain';
import type {
  Merchant,
  Prisma,
  ProcessingMode,
  ScheduledPayment,
  Store,
  Subscription,
  SubscriptionPeriod,
  SubscriptionStatus,
  TerminationMode,
} from '../generated/prisma/client';
import { listPage } from '../keyset';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { PrismaService } from '../prisma.service';
import {
  CANCEL_SUBSCRIPTION,
  COUNT_SEARCHED_SUBSCRIPTIONS,
  CREATE_SUBSCRIPTION,
  SEARCH_SUBSCRIPTION_IDS,
  MARK_TERMINATION,
  SUSPEND_SUBSCRIPTION,
  UNSUSPEND_SUBSCRIPTION,
  RETRY_FIRST_PAYMENT,
  UPDATE_SCHEDULED_PAYMENT,
  UPDATE_SUBSCRIPTION,
} from './subscriptions.sql';
import { scopeWhere, type AccessScope } from '../scope';

export type { Subscription, ScheduledPayment, SubscriptionStatus, TerminationMode };

/** A subscription with its open scheduled payment (pending or processing), if any. */
/**
 * A subscription with its open scheduled payment (`nextPayment`: pending, or its charge in flight;
 * null when there is none) and its latest payment of any status (`latestPayment`: the open one
 * while there is one, else the last it had; null only before its first was written).
 */
export type SubscriptionWithNextPayment = Subscription & {
  nextPayment: ScheduledPayment | null;
  latestPayment: ScheduledPayment | null;
};
export type SubscriptionListItem = SubscriptionWithNextPayment & {
  store: Pick<Store, 'name'> & { merchant: Pick<Merchant, 'name'> };
};

/** A subscription to create with its first scheduled payment (computed by libs/schedule). */
export interface NewSubscription {
  id: string;
  merchantId: string;
  storeId: string;
  transactionTokenId: string;
  mode: ProcessingMode;
  /** unverified, or current when the first payment is due later (libs/domain subscriptionEntryStatus) */
  status: 'unverified' | 'current';
  period: SubscriptionPeriod | null;
  cyclicalPeriod: string | null;
  amount: bigint;
  currency: string;
  initialAmount: bigint | null;
  scheduleCreatedAt: Date;
  /** YYYY-MM-DD */
  startOn: string | null;
  zoneId: string;
  preserveEndOfMonth: boolean;
  retryInterval: string | null;
  terminationMode: TerminationMode;
  installmentPlan: Record<string, unknown> | null;
  subscriptionPlan: Record<string, unknown> | null;
  paymentsLeft: number | null;
  cyclesLeft: number | null;
  amountLeft: bigint | null;
  descriptor: string | null;
  onlyDirectCurrency: boolean;
  threeDs: Record<string, unknown> | null;
  /** the first payment's charge only authorized; captured after `firstChargeCaptureAfter` if set */
  firstChargeAuthorizationOnly: boolean;
  /** ISO 8601 duration */
  firstChargeCaptureAfter: string | null;
  metadata: Record<string, unknown>;
  testClockId: string | null;
  firstPayment: {
    id: string;
    cycle: number | null;
    /** YYYY-MM-DD in zoneId */
    dueDate: string;
    dueAt: Date;
    amount: bigint;
    isLastPayment: boolean;
  };
}

export interface SubscriptionFilters {
  statuses?: SubscriptionStatus[];
  mode?: ProcessingMode;
  /** text a metadata value or key contains, case-insensitive */
  search?: string;
}

/** The outcome of a conditional status change: `moved`, or the status that refused it (null: not found). */
export type Transition = { moved: true } | { moved: false; status: SubscriptionStatus | null };

export interface SubscriptionChanges {
  metadata?: Record<string, unknown>;
  descriptor?: string | null;
  amount?: bigint;
  transactionTokenId?: string;
  terminationMode?: TerminationMode;
  onlyDirectCurrency?: boolean;
  /**
   * A new subscription_plan (null: open-ended) and what is left under it, computed from the open
   * payment `openPaymentId` (applied only while it is still pending), whose lastness it sets.
   */
  plan?: {
    subscriptionPlan: Record<string, unknown> | null;
    paymentsLeft: number | null;
    cyclesLeft: number | null;
    amountLeft: bigint | null;
    openPaymentId: string;
    openIsLast: boolean;
    /** the open payment's amount under the new plan (the last of a fixed total may be less) */
    openAmount: bigint;
  };
}

export interface ScheduledPaymentChanges {
  due?: { date: string; at: Date };
  amount?: bigint;
}

const OPEN_STATUSES: readonly string[] = OPEN_SCHEDULED_PAYMENT_STATUSES;
// the latest payment: a subscription's payments are written one after the other, each once the one
// before it settled, so an open payment is always its latest
const withNextPayment = {
  scheduledPayments: { orderBy: { sequence: 'desc' }, take: 1 },
} satisfies Prisma.SubscriptionInclude;

type WithPayments<T> = T & { scheduledPayments: ScheduledPayment[] };

function withNext<T extends Subscription>(
  row: WithPayments<T>,
): T & { nextPayment: ScheduledPayment | null; latestPayment: ScheduledPayment | null } {
  const { scheduledPayments, ...subscription } = row;
  const latest = scheduledPayments[0] ?? null;
  const open = latest !== null && OPEN_STATUSES.includes(latest.status) ? latest : null;
  return { ...(subscription as unknown as T), nextPayment: open, latestPayment: latest };
}

/**
 * Subscriptions and their scheduled payments (one aggregate; docs/subscriptions.md "The API"). Every
 * write is one statement of sql/subscriptions.sql.ts with its outbox event; reads are Prisma's.
 */
@Injectable()
export class SubscriptionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /**
   * Inserts the subscription, its first scheduled payment and subscription_created in one
   * statement; null when its test clock was deleted meanwhile (nothing written).
   */
  async create(
    input: NewSubscription,
    correlationId: string | null,
  ): Promise<SubscriptionWithNextPayment | null> {
    const rows = await this.prisma.write(
      'subscription create',
      CREATE_SUBSCRIPTION,
      createSubscriptionParams(input, correlationId),
    );
    if (rows.length === 0) return null;
    return this.findInScope({ merchantId: input.merchantId, storeId: input.storeId }, input.id);
  }

  async findInScope(scope: AccessScope, id: string): Promise<SubscriptionWithNextPayment | null> {
    const row = await this.prisma.subscription.findFirst({
      where: { id, ...scopeWhere(scope) },
      include: withNextPayment,
    });
    return row && withNext(row);
  }

  async findStatus(id: string): Promise<SubscriptionStatus | null> {
    const row = await this.prisma.subscription.findUnique({ where: { id }, select: { status: true } });
    return row?.status ?? null;
  }

  async list(
    scope: AccessScope,
    filters: SubscriptionFilters,
    page: PageRequest,
  ): Promise<SubscriptionListItem[]> {
    const include = {
      ...withNextPayment,
      store: { select: { name: true, merchant: { select: { name: true } } } },
    };
    if (filters.search) {
      // a metadata search is plain SQL (Prisma cannot filter on a jsonb's values): the page's ids,
      // then their rows, in the page's order
      const ids = await this.searchIds(scope, filters, page);
      const found = await this.prisma.subscription.findMany({ where: { id: { in: ids } }, include });
      const byId = new Map(found.map((row) => [row.id, row]));
      return ids.flatMap((id) => byId.get(id) ?? []).map(withNext);
    }
    const rows = await listPage(page, whereOf(scope, filters), {
      findCursor: (where) =>
        this.prisma.subscription.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.subscription.findMany({ ...args, include }),
    });
    return rows.map(withNext);
  }

  async count(scope: AccessScope, filters: SubscriptionFilters): Promise<number> {
    if (!filters.search) return this.prisma.subscription.count({ where: whereOf(scope, filters) });
    const rows = await this.prisma.run(COUNT_SEARCHED_SUBSCRIPTIONS, searchParams(scope, filters));
    return rows[0]?.n ?? 0;
  }

  /** One page of a searched list: its ids after the cursor row (listPage found it in scope). */
  private async searchIds(
    scope: AccessScope,
    filters: SubscriptionFilters,
    page: PageRequest,
  ): Promise<string[]> {
    // the cursor is a row of the scope, as listPage requires it
    let cursor: { id: string; createdOn: Date } | null = null;
    if (page.cursor) {
      cursor = await this.prisma.subscription.findFirst({
        where: { ...scopeWhere(scope), id: page.cursor },
        select: { id: true, createdOn: true },
      });
      if (!cursor) throw unknownCursor();
    }
    const rows = await this.prisma.run(SEARCH_SUBSCRIPTION_IDS, {
      ...searchParams(scope, filters),
      afterCreatedOn: cursor?.createdOn ?? null,
      afterId: cursor?.id ?? null,
      ascending: page.direction === 'asc',
      limit: page.limit + 1,
    });
    return rows.map((row) => row.id);
  }

  /** DELETE, termination_mode immediate (CANCEL_SUBSCRIPTION). */
  cancel(
    scope: AccessScope,
    id: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<Transition> {
    return this.transition(CANCEL_SUBSCRIPTION, scope, id, correlationId, audit);
  }

  /** PATCH …/suspend, termination_mode immediate (SUSPEND_SUBSCRIPTION). */
  suspend(
    scope: AccessScope,
    id: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<Transition> {
    return this.transition(SUSPEND_SUBSCRIPTION, scope, id, correlationId, audit);
  }

  /** PATCH …/unsuspend (UNSUSPEND_SUBSCRIPTION). */
  unsuspend(
    scope: AccessScope,
    id: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<Transition> {
    return this.transition(UNSUSPEND_SUBSCRIPTION, scope, id, correlationId, audit);
  }

  /**
   * A new token for a subscription whose first payment failed: back to unverified, the first payment
   * tried again now (RETRY_FIRST_PAYMENT).
   */
  async retryFirstPayment(
    scope: AccessScope,
    id: string,
    transactionTokenId: string,
    correlationId: string | null,
  ): Promise<Transition> {
    const row = (
      await this.prisma.run(RETRY_FIRST_PAYMENT, {
        ...scopeParams(scope, id),
        transactionTokenId,
        correlationId,
      })
    )[0];
    if (!row) return { moved: false, status: null };
    return row.moved ? { moved: true } : { moved: false, status: row.status };
  }

  /**
   * termination_mode on_next_payment: marks the pending payment with `terminateWith` while the
   * subscription is in one of `from` (MARK_TERMINATION).
   */
  async markTermination(
    scope: AccessScope,
    id: string,
    from: readonly SubscriptionStatus[],
    terminateWith: SubscriptionStatus,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<{ marked: boolean; status: SubscriptionStatus | null; hasPending: boolean }> {
    const params = { ...scopeParams(scope, id), from, terminateWith, correlationId };
    const row = (
      audit
        ? await this.prisma.inTransaction(async (client) => {
            const rows = await this.prisma.run(MARK_TERMINATION, params, { db: client });
            if (rows[0]?.marked) await this.audit.record(audit, client);
            return rows;
          })
        : await this.prisma.run(MARK_TERMINATION, params)
    )[0];
    return row
      ? { marked: row.marked, status: row.status, hasPending: row.has_pending }
      : { marked: false, status: null, hasPending: false };
  }

  /** PATCH of a subscription that is not final (UPDATE_SUBSCRIPTION); `changed` names the fields. */
  async update(
    scope: AccessScope,
    id: string,
    changes: SubscriptionChanges,
    changed: string[],
    correlationId: string | null,
  ): Promise<Transition> {
    const row = (
      await this.prisma.run(UPDATE_SUBSCRIPTION, {
        ...scopeParams(scope, id),
        setMetadata: changes.metadata !== undefined,
        metadata: changes.metadata ?? null,
        setDescriptor: changes.descriptor !== undefined,
        descriptor: changes.descriptor ?? null,
        setAmount: changes.amount !== undefined,
        amount: changes.amount ?? null,
        setToken: changes.transactionTokenId !== undefined,
        transactionTokenId: changes.transactionTokenId ?? null,
        setTerminationMode: changes.terminationMode !== undefined,
        terminationMode: changes.terminationMode ?? null,
        setOnlyDirectCurrency: changes.onlyDirectCurrency !== undefined,
        onlyDirectCurrency: changes.onlyDirectCurrency ?? null,
        setPlan: changes.plan !== undefined,
        subscriptionPlan: changes.plan?.subscriptionPlan ?? null,
        paymentsLeft: changes.plan?.paymentsLeft ?? null,
        cyclesLeft: changes.plan?.cyclesLeft ?? null,
        planAmountLeft: changes.plan?.amountLeft ?? null,
        openPaymentId: changes.plan?.openPaymentId ?? null,
        openIsLast: changes.plan?.openIsLast ?? null,
        openAmount: changes.plan?.openAmount ?? null,
        changed,
        correlationId,
      })
    )[0];
    if (!row) return { moved: false, status: null };
    return row.moved ? { moved: true } : { moved: false, status: row.status };
  }

  /** What the subscription's paid payments took, in all (minor units). */
  async paidAmount(subscriptionId: string): Promise<bigint> {
    const sum = await this.prisma.scheduledPayment.aggregate({
      where: { subscriptionId, status: 'paid' },
      _sum: { amount: true },
    });
    return sum._sum.amount ?? 0n;
  }

  findPayment(scope: AccessScope, subscriptionId: string, id: string): Promise<ScheduledPayment | null> {
    return this.prisma.scheduledPayment.findFirst({
      where: { id, subscriptionId, subscription: scopeWhere(scope) },
    });
  }

  listPayments(subscriptionId: string, page: PageRequest): Promise<ScheduledPayment[]> {
    return listPage(page, { subscriptionId } satisfies Prisma.ScheduledPaymentWhereInput, {
      findCursor: (where) =>
        this.prisma.scheduledPayment.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.scheduledPayment.findMany(args),
    });
  }

  countPayments(subscriptionId: string): Promise<number> {
    return this.prisma.scheduledPayment.count({ where: { subscriptionId } });
  }

  /**
   * PATCH of a pending scheduled payment (UPDATE_SCHEDULED_PAYMENT): `moved`, or the payment's
   * status that refused it (null: no such payment).
   */
  async updatePayment(
    scope: AccessScope,
    subscriptionId: string,
    id: string,
    changes: ScheduledPaymentChanges,
    changed: string[],
    correlationId: string | null,
  ): Promise<{ moved: boolean; paymentStatus: string | null }> {
    const row = (
      await this.prisma.run(UPDATE_SCHEDULED_PAYMENT, {
        ...scopeParams(scope, subscriptionId),
        paymentId: id,
        setDueDate: changes.due !== undefined,
        dueDate: changes.due?.date ?? null,
        dueAt: changes.due?.at ?? null,
        setAmount: changes.amount !== undefined,
        amount: changes.amount ?? null,
        changed,
        correlationId,
      })
    )[0];
    return row
      ? { moved: row.moved, paymentStatus: row.payment_status }
      : { moved: false, paymentStatus: null };
  }

  private async transition(
    statement: typeof CANCEL_SUBSCRIPTION,
    scope: AccessScope,
    id: string,
    correlationId: string | null,
    audit?: AuditEntry,
  ): Promise<Transition> {
    const params = { ...scopeParams(scope, id), correlationId };
    // a console write: the move and its audit row in one transaction (a row only when it moved)
    const row = (
      audit
        ? await this.prisma.inTransaction(async (client) => {
            const rows = await this.prisma.run(statement, params, { db: client });
            if (rows[0]?.moved) await this.audit.record(audit, client);
            return rows;
          })
        : await this.prisma.run(statement, params)
    )[0];
    if (!row) return { moved: false, status: null };
    return row.moved ? { moved: true } : { moved: false, status: row.status };
  }
}

function scopeParams(scope: AccessScope, id: string) {
  return { id, merchantId: scope.merchantId, storeId: scope.storeId };
}

function whereOf(scope: AccessScope, filters: SubscriptionFilters): Prisma.SubscriptionWhereInput {
  return {
    ...scopeWhere(scope),
    ...(filters.statuses && filters.statuses.length > 0 ? { status: { in: filters.statuses } } : {}),
    ...(filters.mode ? { mode: filters.mode } : {}),
  };
}

/** CREATE_SUBSCRIPTION's parameters (`create`, and a batch's subscriptions). */
export function createSubscriptionParams(input: NewSubscription, correlationId: string | null) {
  const payment = input.firstPayment;
  return {
    id: input.id,
    merchantId: input.merchantId,
    storeId: input.storeId,
    transactionTokenId: input.transactionTokenId,
    mode: input.mode,
    status: input.status,
    period: input.period,
    cyclicalPeriod: input.cyclicalPeriod,
    amount: input.amount,
    currency: input.currency,
    initialAmount: input.initialAmount,
    scheduleCreatedAt: input.scheduleCreatedAt,
    startOn: input.startOn,
    zoneId: input.zoneId,
    preserveEndOfMonth: input.preserveEndOfMonth,
    retryInterval: input.retryInterval,
    terminationMode: input.terminationMode,
    installmentPlan: input.installmentPlan,
    subscriptionPlan: input.subscriptionPlan,
    paymentsLeft: input.paymentsLeft,
    cyclesLeft: input.cyclesLeft,
    amountLeft: input.amountLeft,
    descriptor: input.descriptor,
    onlyDirectCurrency: input.onlyDirectCurrency,
    threeDs: input.threeDs,
    firstChargeAuthorizationOnly: input.firstChargeAuthorizationOnly,
    firstChargeCaptureAfter: input.firstChargeCaptureAfter,
    metadata: input.metadata,
    testClockId: input.testClockId,
    paymentId: payment.id,
    paymentCycle: payment.cycle,
    paymentDueDate: payment.dueDate,
    paymentDueAt: payment.dueAt,
    paymentAmount: payment.amount,
    paymentIsLast: payment.isLastPayment,
    correlationId,
  };
}

function searchParams(scope: AccessScope, filters: SubscriptionFilters) {
  return {
    merchantId: scope.merchantId,
    storeId: scope.storeId,
    statuses: filters.statuses ?? [],
    mode: filters.mode ?? null,
    search: filters.search ?? '',
  };
}
