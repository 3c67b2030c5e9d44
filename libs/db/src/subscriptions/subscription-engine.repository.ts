import { Injectable } from '@nestjs/common';
import { LOCK_CARD_LIMITS } from '../charges/charges.sql';
import { PrismaService } from '../prisma.service';
import {
  APPLY_SETTLEMENTS,
  CLAIM_DUE_PAYMENTS,
  FIND_UNSETTLED_CHARGES,
  LOCK_SETTLEMENTS,
  START_PAYMENTS,
  TERMINATE_PAYMENTS,
  type NextPaymentInput,
  type PaymentChargeInput,
  type SettlementEventInput,
  type SettlementInput,
} from './subscription-engine.sql';
import type { RowOf } from '../sql/statement';

export type {
  NextPaymentInput,
  PaymentChargeInput,
  SettlementEventInput,
  SettlementInput,
} from './subscription-engine.sql';

/** A due payment as the scheduler claimed it, with its subscription, token and configurations. */
export type DuePayment = RowOf<(typeof CLAIM_DUE_PAYMENTS)['columns']>;
/** A payment whose try's charge is final, locked with its subscription for settling. */
export type PaymentToSettle = RowOf<(typeof LOCK_SETTLEMENTS)['columns']>;

/** What the scheduler does with the payments it claimed. */
export interface ClaimDecisions {
  /** payments to charge now: one charge each */
  charges: PaymentChargeInput[];
  /** payments not to charge: a termination, or a subscription that ended */
  terminations: string[];
  /** the payment error of a charge over the store's card limit (`card_limit_amount`) */
  cardLimitError: { code: number; message: string; detail: string | null };
}

/** What the engine decided for the payments it settles. */
export interface SettlementDecisions {
  settlements: SettlementInput[];
  next: NextPaymentInput[];
  events: SettlementEventInput[];
}

/**
 * The subscription engine's transactions (docs/subscriptions.md, "The engine"): each reads and
 * locks its rows, lets the caller decide, and applies the decisions before it commits.
 */
@Injectable()
export class SubscriptionEngineRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Claims up to `limit` due payments (and up to `limit` on test clocks), skipping those another
   * transaction holds, and starts or terminates each as `decide` says, in one transaction. The
   * charges held to a card limit are started after the others, once their cards are locked (the
   * lock POST /charges takes: LOCK_CARD_LIMITS), one statement each, so that each one's sum sees
   * the charges inserted before it, this batch's included. Resolves to how many payments it claimed.
   */
  async claimDuePayments(
    limit: number,
    decide: (due: DuePayment[]) => ClaimDecisions,
  ): Promise<{ claimed: number; started: number; terminated: number }> {
    return this.prisma.inTransaction(async (db) => {
      const due = await this.prisma.run(CLAIM_DUE_PAYMENTS, { limit }, { db });
      if (due.length === 0) return { claimed: 0, started: 0, terminated: 0 };
      const decisions = decide(due);
      const error = {
        cardLimitErrorCode: decisions.cardLimitError.code,
        cardLimitErrorMessage: decisions.cardLimitError.message,
        cardLimitErrorDetail: decisions.cardLimitError.detail,
      };
      const limited: PaymentChargeInput[] = [];
      const others: PaymentChargeInput[] = [];
      for (const c of decisions.charges)
        (c.card_limit_amount !== null && !c.refused ? limited : others).push(c);
      let started = 0;
      if (others.length > 0)
        started += (await this.prisma.run(START_PAYMENTS, { input: others, ...error }, { db })).length;
      if (limited.length > 0) {
        await this.prisma.run(
          LOCK_CARD_LIMITS,
          {
            storeIds: limited.map((c) => c.store_id),
            transactionTokenIds: limited.map((c) => c.transaction_token_id),
          },
          { db },
        );
        for (const charge of limited)
          started += (await this.prisma.run(START_PAYMENTS, { input: [charge], ...error }, { db })).length;
      }
      const terminated =
        decisions.terminations.length === 0
          ? []
          : await this.prisma.run(TERMINATE_PAYMENTS, { paymentIds: decisions.terminations }, { db });
      return { claimed: due.length, started, terminated: terminated.length };
    });
  }

  /**
   * Settles the scheduled payments whose current try's charge is among `chargeIds` and final: locks
   * them with their subscriptions, lets `decide` say what follows, applies it, commits. Charges of no
   * scheduled payment, or of a try already settled, are skipped. Resolves to the payments settled.
   */
  async settle(
    chargeIds: readonly string[],
    decide: (payments: PaymentToSettle[]) => SettlementDecisions,
  ): Promise<string[]> {
    if (chargeIds.length === 0) return [];
    return this.prisma.inTransaction(async (db) => {
      const payments = await this.prisma.run(LOCK_SETTLEMENTS, { chargeIds }, { db });
      if (payments.length === 0) return [];
      const decisions = decide(payments);
      if (decisions.settlements.length === 0) return [];
      const settled = await this.prisma.run(APPLY_SETTLEMENTS, decisions, { db });
      return settled.map((row) => row.payment_id);
    });
  }

  /**
   * One sweep window (FIND_UNSETTLED_CHARGES): the charges, final for `staleSeconds`, of the
   * processing payments after `after`, at most `windowSize` payments read; `next` is where the
   * following window starts, or null once the window reached the last processing payment.
   */
  async findUnsettledCharges(
    staleSeconds: number,
    after: SweepCursor,
    windowSize: number,
  ): Promise<{ chargeIds: string[]; next: SweepCursor | null }> {
    const rows = await this.prisma.run(FIND_UNSETTLED_CHARGES, {
      staleSeconds,
      afterUpdatedOn: after.updatedOn,
      afterId: after.id,
      windowSize,
    });
    const last = rows.at(-1);
    return {
      chargeIds: rows.flatMap((row) => (row.charge_id === null ? [] : [row.charge_id])),
      next:
        rows.length < windowSize || last === undefined
          ? null
          : { updatedOn: last.payment_updated_on, id: last.payment_id },
    };
  }
}

/** Where a sweep window starts: after this processing payment (its `updated_on` as Postgres's text). */
export interface SweepCursor {
  readonly updatedOn: string;
  readonly id: string;
}

/** Before every processing payment. */
export const SWEEP_FROM_START: SweepCursor = {
  updatedOn: '-infinity',
  id: '00000000-0000-0000-0000-000000000000',
};
