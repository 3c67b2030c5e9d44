import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma.service';
import { CREATE_SUBSCRIPTION } from './subscriptions.sql';
import {
  FIND_SUBSCRIPTION_BATCH,
  INSERT_SUBSCRIPTION_BATCH,
  LOCK_BATCH_OWNERS,
} from './subscription-batches.sql';
import type { RowOf } from '../sql/statement';
import {
  ChargesRepository,
  type ChargeCreation,
  type CreateChargeResult,
} from '../charges/charges.repository';
import type { AccessScope } from '../scope';
import { createSubscriptionParams, type NewSubscription } from './subscriptions.repository';

export interface NewSubscriptionBatch {
  id: string;
  merchantId: string;
  storeId: string;
  subscriptions: NewSubscription[];
  /** the batch's one charge, if it has one */
  charge: ChargeCreation | null;
  correlationId: string | null;
}

export type SubscriptionBatchRow = RowOf<(typeof FIND_SUBSCRIPTION_BATCH)['columns']>;

/**
 * A batch whose store, or a subscription's test clock, was deleted while it was being created:
 * nothing written. `gone` says which.
 */
export class BatchClockGoneError extends Error {
  constructor(readonly gone: 'store' | 'test_clock') {
    super(`the batch's ${gone} was deleted`);
  }
}

/** POST /subscriptions/batches (docs/subscriptions.md, "Batches"). */
@Injectable()
export class SubscriptionBatchesRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly charges: ChargesRepository,
  ) {}

  /**
   * The charge (first: its token's claim and quota may refuse it), every subscription with its first
   * payment and subscription_created, and the batch row, in one transaction: all or nothing. A
   * refused charge is thrown as ChargeRefusedError and a deleted clock or store as BatchClockGoneError, both
   * after the rollback. Resolves to the charge's result, if there is a charge.
   */
  async create(batch: NewSubscriptionBatch): Promise<CreateChargeResult | null> {
    return this.prisma.inTransaction(async (db) => {
      const clockIds = [
        ...new Set(batch.subscriptions.flatMap((subscription) => subscription.testClockId ?? [])),
      ];
      const [owners] = await this.prisma.run(
        LOCK_BATCH_OWNERS,
        { storeId: batch.storeId, merchantId: batch.merchantId, clockIds },
        { db },
      );
      if (!owners?.store_alive) throw new BatchClockGoneError('store');
      if (!owners.clocks_alive) throw new BatchClockGoneError('test_clock');
      const charge = batch.charge
        ? await this.charges.createInTransaction(db, batch.charge.charge, batch.charge.options)
        : null;
      for (const subscription of batch.subscriptions) {
        const rows = await this.prisma.run(
          CREATE_SUBSCRIPTION,
          createSubscriptionParams(subscription, batch.correlationId),
          { db },
        );
        // not reached while the owners are locked above; kept as the insert's own guard
        if (rows.length === 0) throw new BatchClockGoneError('store');
      }
      await this.prisma.run(
        INSERT_SUBSCRIPTION_BATCH,
        {
          id: batch.id,
          merchantId: batch.merchantId,
          storeId: batch.storeId,
          subscriptionIds: batch.subscriptions.map((subscription) => subscription.id),
          chargeId: batch.charge?.charge.id ?? null,
        },
        { db },
      );
      return charge;
    });
  }

  /** The batch if the scope may see it, with what its status is read from. */
  async find(scope: AccessScope, id: string): Promise<SubscriptionBatchRow | null> {
    const rows = await this.prisma.run(FIND_SUBSCRIPTION_BATCH, {
      id,
      merchantId: scope.merchantId,
      storeId: scope.storeId,
    });
    return rows[0] ?? null;
  }
}
