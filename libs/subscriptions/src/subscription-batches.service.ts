import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import {
  BatchClockGoneError,
  ChargeRefusedError,
  SubscriptionBatchesRepository,
  type NewSubscription,
  type SubscriptionBatchRow,
} from '@kessai/db';
import { DomainError, isUuid, NotFoundError } from '@kessai/domain';
import type { Correlation } from '@kessai/observability';
import { ChargesService } from '@kessai/payments';
import { SubscriptionsService } from '@kessai/subscriptions';
import { tokenStoreOf } from '../auth/path-scope';
import type { Principal } from '../auth/principal';
import { createChargeSchema } from '../charges/charge.schemas';
import { metadataSchema, pollingQuerySchema } from '../http/request.schemas';
import { readPolling } from '../http/polling';
import { parseInput } from '../http/validation';
import { createSubscriptionSchema } from './subscription.schemas';

/** The most subscriptions one batch creates. */
export const MAX_BATCH_SUBSCRIPTIONS = 10;

export const createBatchSchema = z
  .object({
    subscriptions: z.array(z.unknown()).min(1).max(MAX_BATCH_SUBSCRIPTIONS),
    charges: z.array(z.unknown()).max(1).optional(),
    initial_charge_metadata: metadataSchema.optional(),
  })
  .strict();

type BatchStatus = 'awaiting' | 'successful' | 'failed';

/**
 * POST /subscriptions/batches and GET /subscriptions/batches/{id} (docs/subscriptions.md,
 * "Batches"): up to ten subscriptions and at most one charge, checked one by one as POST
 * /subscriptions and POST /charges check them, then created in one transaction, all or nothing.
 */
@Injectable()
export class SubscriptionBatchesService {
  constructor(
    private readonly batches: SubscriptionBatchesRepository,
    private readonly subscriptions: SubscriptionsService,
    private readonly charges: ChargesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(principal: Principal, body: unknown, context: Correlation) {
    const actor = tokenStoreOf(principal);
    const request = parseInput(createBatchSchema, body);
    const subscriptions: NewSubscription[] = [];
    for (const [index, item] of request.subscriptions.entries())
      subscriptions.push(
        await naming(`subscriptions[${index}]`, () =>
          this.subscriptions.prepare(actor, parseInput(createSubscriptionSchema, item)),
        ),
      );
    const charge = request.charges?.[0];
    const prepared =
      charge === undefined
        ? null
        : await naming('charges[0]', () =>
            this.charges.prepareCreation(
              actor,
              parseInput(createChargeSchema, charge),
              context,
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
        correlationId: context.correlationId,
      });
      // a charge refused by the duplicate rule is created failed: the batch is then failed too
      if (prepared && result) await this.charges.answerCreation(actor, actor.storeId, prepared.token, result);
    } catch (error) {
      if (error instanceof BatchClockGoneError) throw new NotFoundError(error.gone);
      if (error instanceof ChargeRefusedError && prepared) {
        // nothing was written; say why as POST /charges would
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
    return presentBatch(batch);
  }

  /** With `polling=true` an awaiting batch is re-read until its status changes (bounded like charges). */
  async get(principal: Principal, id: string, query: Record<string, unknown>, signal?: AbortSignal) {
    const { polling } = parseInput(pollingQuerySchema, query);
    if (!isUuid(id)) throw new NotFoundError('subscription_batch');
    const scope = { merchantId: principal.merchantId, storeId: principal.storeId };
    const read = async () => {
      const batch = await this.batches.find(scope, id);
      if (!batch) throw new NotFoundError('subscription_batch');
      return { batch, status: statusOf(batch) };
    };
    const { batch } = await readPolling(read, async () => statusOf((await read()).batch), {
      polling,
      maxWaitMs: this.config.CHARGE_POLLING_MAX_WAIT_MS,
      signal,
      waitingStatus: 'awaiting',
    });
    return presentBatch(batch);
  }
}

/**
 * A batch's status from its parts: `failed` once a subscription's first payment failed
 * (`unconfirmed`) or its charge ended failed, error or canceled; `awaiting` while a subscription is
 * `unverified` or the charge is pending or awaiting; `successful` otherwise.
 */
function statusOf(batch: SubscriptionBatchRow): BatchStatus {
  const charge = batch.charge_status;
  if (batch.unconfirmed > 0 || charge === 'failed' || charge === 'error' || charge === 'canceled')
    return 'failed';
  if (batch.unverified > 0 || charge === 'pending' || charge === 'awaiting') return 'awaiting';
  return 'successful';
}

function presentBatch(batch: SubscriptionBatchRow) {
  return {
    batch_id: batch.id,
    status: statusOf(batch),
    subscription_ids: batch.subscription_ids,
    ...(batch.charge_id === null ? {} : { charge_id: batch.charge_id }),
  };
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
