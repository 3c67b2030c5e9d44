import type { SubscriptionBatchRow } from '@kessai/db';
import { subscriptionBatchStatus } from '@kessai/subscriptions';

/** A subscription batch (docs/subscriptions.md, "Batches"): its status from its parts, its ids. */
export function presentBatch(batch: SubscriptionBatchRow) {
  return {
    batch_id: batch.id,
    status: subscriptionBatchStatus(batch),
    subscription_ids: batch.subscription_ids,
    ...(batch.charge_id === null ? {} : { charge_id: batch.charge_id }),
  };
}
