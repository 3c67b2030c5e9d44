import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  BatchClockGoneError,
  ChargeRefusedError,
  SubscriptionBatchesRepository,
  type AccessScope,
  type NewSubscription,
  type SubscriptionBatchRow,
} from '@kessai/db';
import { DomainError, isUuid, NotFoundError } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { accepted, ChargesService, type StoreActor } from '@kessai/payments';
import type { SubscriptionBatchInput } from './subscription-inputs';
import { SubscriptionsService } from './subscriptions.service';

/** The most subscriptions one batch creates. */
export const MAX_BATCH_SUBSCRIPTIONS = 10;

export type SubscriptionBatchStatus = 'awaiting' | 'successful' | 'failed';

/**
 * A batch's status from its parts: `failed` once a subscription's first payment failed
 * (`unconfirmed`) or its charge ended failed, error or canceled; `awaiting` while a subscription is
 * `unverified` or the charge is pending or awaiting; `successful` otherwise.
 */
export function subscriptionBatchStatus(batch: SubscriptionBatchRow): SubscriptionBatchStatus {
  const charge = batch.charge_status;
  if (batch.unconfirmed > 0 || charge === 'failed' || charge === 'error' || charge === 'canceled')
    return 'failed';
  if (batch.unverified > 0 || charge === 'pending' || charge === 'awaiting') return 'awaiting';
  return 'successful';
}

/**
 * Subscription batches (docs/subscriptions.md, "Batches"), for the gateway and any other front end:
 * up to ten subscriptions and at most one charge, checked one by one as SubscriptionsService and
 * ChargesService check a single one (a refusal names its item: `subscriptions[1].amount`), then
 * created in one transaction, all or nothing.
 */
@Injectable()
export class SubscriptionBatchesService {
  constructor(
    private readonly batches: SubscriptionBatchesRepository,
    private readonly subscriptions: SubscriptionsService,
    private readonly charges: ChargesService,
  ) {}

  /** Creates the batch in the actor's store; answers it as read back. */
  async create(
    actor: StoreActor,
    request: SubscriptionBatchInput,
    correlation: Correlation,
  ): Promise<SubscriptionBatchRow> {
    const subscriptions: NewSubscription[] = [];
    for (const [index, item] of request.subscriptions.entries())
      subscriptions.push(
        await naming(`subscriptions[${index}]`, () => this.subscriptions.prepare(actor, accepted(item))),
      );
    const charge = request.charge;
    const prepared =
      charge === null
        ? null
        : await naming('charges[0]', () =>
            this.charges.prepareCreation(
              actor,
              accepted(charge),
              correlation,
              request.initial_charge_metadata ?? null,
            ),
          );
    const id = randomUUID();
    try {
      const result = await this.batches.create({
        id,
        merchantId: actor.merchantId,
        storeId: actor.storeId,
        subscriptions,
        charge: prepared?.creation ?? null,
        correlationId: correlation.correlationId,
      });
      // a charge refused by the duplicate rule is created failed: the batch is then failed too
      if (prepared && result) await this.charges.answerCreation(actor, actor.storeId, prepared.token, result);
    } catch (error) {
      if (error instanceof BatchClockGoneError) throw new NotFoundError(error.gone);
      if (error instanceof ChargeRefusedError && prepared) {
        // nothing was written; say why as a single charge's creation would
        await naming('charges[0]', () =>
          this.charges.answerCreation(actor, actor.storeId, prepared.token, {
            outcome: error.outcome,
          }),
        );
      }
      throw error;
    }
    const batch = await this.batches.find({ merchantId: actor.merchantId, storeId: actor.storeId }, id);
    if (!batch) throw new Error(`batch ${id} not found after its creation`);
    return batch;
  }

  /** A batch the scope may see; a malformed id is the same 404 as an unknown one. */
  async find(scope: AccessScope, id: string): Promise<SubscriptionBatchRow> {
    const batch = isUuid(id) ? await this.batches.find(scope, id) : null;
    if (!batch) throw new NotFoundError('subscription_batch');
    return batch;
  }
}

/** Runs `work`; a domain error it throws names its fields under `prefix` (subscriptions[1].amount). */
async function naming<T>(prefix: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError)
      for (const entry of error.errors) entry.field = entry.field ? `${prefix}.${entry.field}` : prefix;
    throw error;
  }
}
