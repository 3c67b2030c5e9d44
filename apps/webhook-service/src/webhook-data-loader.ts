import { Injectable } from '@nestjs/common';
import type { WebhookEventType } from '@kessai/contracts';
import {
  CancelsRepository,
  ChargesRepository,
  DeferredPaymentsRepository,
  RefundsRepository,
  SubscriptionsRepository,
  TransactionTokensRepository,
  TransfersRepository,
  type WebhookEvent,
} from '@kessai/db';
import {
  presentBankTransferStatus,
  presentCancel,
  presentCharge,
  presentRefund,
  presentSubscription,
  presentToken,
  presentTransfer,
} from '@kessai/presenters';
import { Coalescer } from '@kessai/runtime';

type Loader = (event: WebhookEvent) => Promise<object | null>;

/**
 * A webhook's `data` (api-reference §6): the event's resource exactly as the API returns it, from
 * the gateway's own presenters (libs/presenters), read when the event is dispatched. One loader per
 * webhook event: a new webhook event does not compile until it has one.
 */
@Injectable()
export class WebhookDataLoader {
  readonly #loaders: Record<WebhookEventType, Loader>;

  constructor(
    charges: ChargesRepository,
    refunds: RefundsRepository,
    cancels: CancelsRepository,
    tokens: TransactionTokensRepository,
    subscriptions: SubscriptionsRepository,
    deferredPayments: DeferredPaymentsRepository,
    transfers: TransfersRepository,
  ) {
    // the events of a dispatched batch are loaded side by side: their charges (and tokens) are read
    // together, one query for all
    const chargeReads = byIds((ids) => charges.findMany(ids));
    const tokenReads = byIds((ids) => tokens.findMany(ids));
    const charge: Loader = async (event) => {
      const row = await chargeReads.submit(event.aggregateId);
      return row && inScope(row, event) ? presentCharge(row) : null;
    };
    const token: Loader = async (event) => {
      if (event.storeId === null) return null;
      const row = await tokenReads.submit(event.aggregateId);
      return row && row.merchantId === event.merchantId && row.storeId === event.storeId
        ? presentToken(row)
        : null;
    };
    // the subscription as GET …/subscriptions/{id} answers it when the event is dispatched
    const subscription: Loader = async (event) => {
      const row = await subscriptions.findInScope(scopeOf(event), event.aggregateId);
      return row && presentSubscription(row);
    };
    // the transfer as GET /transfers/{id} answers it when the event is dispatched (a merchant's event)
    const transfer: Loader = async (event) => {
      const row = await transfers.findOfMerchant(event.merchantId, event.aggregateId);
      return row && presentTransfer(row);
    };
    this.#loaders = {
      charge_updated: charge,
      charge_finished: charge,
      token_created: token,
      token_updated: token,
      // the new token (aggregate of token_replaced) and the token authenticated
      token_replaced: token,
      // the deleted (inactive) recurring token
      recurring_token_deleted: token,
      token_three_ds_updated: token,
      token_cvv_auth_updated: token,
      refund_finished: async (event) => {
        const chargeId = chargeIdOf(event);
        const row =
          chargeId === null ? null : await refunds.findInScope(scopeOf(event), chargeId, event.aggregateId);
        return row && presentRefund(row);
      },
      // the deposit (bank_transfer_status_updated names it in its payload) with its charge's status
      bank_transfer_status_updated: async (event) => {
        const depositId = event.payload.deposit_id;
        if (typeof depositId !== 'string') return null;
        const found = await deferredPayments.findDeposit(scopeOf(event), event.aggregateId, depositId);
        return found && presentBankTransferStatus(found.deposit, found.charge);
      },
      cancel_finished: async (event) => {
        const chargeId = chargeIdOf(event);
        const row =
          chargeId === null ? null : await cancels.findInScope(scopeOf(event), chargeId, event.aggregateId);
        return row && presentCancel(row);
      },
      subscription_created: subscription,
      subscription_payment: subscription,
      subscription_failure: subscription,
      subscription_suspended: subscription,
      subscription_canceled: subscription,
      subscription_completed: subscription,
      transfer_created: transfer,
      transfer_updated: transfer,
      transfer_finalized: transfer,
    };
  }

  /** The resource of the event, presented; null when it no longer exists. */
  of(type: WebhookEventType, event: WebhookEvent): Promise<object | null> {
    return this.#loaders[type](event);
  }
}

/** Reads by id through one query per batch of concurrent reads; null for an id not found. */
function byIds<T extends { id: string }>(read: (ids: string[]) => Promise<T[]>): Coalescer<string, T | null> {
  return new Coalescer(
    async (ids) => {
      const rows = new Map((await read(ids)).map((row) => [row.id, row]));
      return ids.map((id) => rows.get(id) ?? null);
    },
    { maxItems: 500, maxInFlight: 2 },
  );
}

/** A row the event's scope may see: the merchant's, and the store's when the event names one. */
function inScope(row: { merchantId: string; storeId: string }, event: WebhookEvent): boolean {
  return row.merchantId === event.merchantId && (event.storeId === null || row.storeId === event.storeId);
}

function scopeOf(event: WebhookEvent) {
  return { merchantId: event.merchantId, storeId: event.storeId };
}

/** refund_finished and cancel_finished name their charge in the payload (libs/db outbox-events.ts). */
function chargeIdOf(event: WebhookEvent): string | null {
  const chargeId = event.payload.charge_id;
  return typeof chargeId === 'string' ? chargeId : null;
}
