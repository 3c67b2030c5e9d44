import { defineStatement, pg } from './statement';

/** Inserts a batch: its subscriptions' ids and its charge (run in the transaction creating them). */
export const INSERT_SUBSCRIPTION_BATCH = defineStatement({
  name: 'subscription_batches_insert',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    subscriptionIds: pg.array(pg.uuid),
    chargeId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.uuid },
  text: (p) => `
    INSERT INTO subscription_batches (id, merchant_id, store_id, subscription_ids, charge_id)
    VALUES (${p.id}, ${p.merchantId}, ${p.storeId}, ${p.subscriptionIds}, ${p.chargeId})
    RETURNING id`,
});

/**
 * A batch of the scope (a store token: its store's only), with what its status is read from: how
 * many of its subscriptions are still unverified or failed their first payment, and its charge's
 * status.
 */
export const FIND_SUBSCRIPTION_BATCH = defineStatement({
  name: 'subscription_batches_find',
  params: { id: pg.uuid, merchantId: pg.uuid, storeId: pg.nullable(pg.uuid) },
  columns: {
    id: pg.uuid,
    subscription_ids: pg.array(pg.uuid),
    charge_id: pg.nullable(pg.uuid),
    unverified: pg.int4,
    unconfirmed: pg.int4,
    charge_status: pg.nullable(pg.text),
  },
  text: (p) => `
    SELECT b.id, b.subscription_ids, b.charge_id,
           (SELECT count(*)::int FROM subscriptions s
             WHERE s.id = ANY(b.subscription_ids) AND s.status = 'unverified') AS unverified,
           (SELECT count(*)::int FROM subscriptions s
             WHERE s.id = ANY(b.subscription_ids) AND s.status = 'unconfirmed') AS unconfirmed,
           (SELECT c.status::text FROM charges c WHERE c.id = b.charge_id) AS charge_status
      FROM subscription_batches b
     WHERE b.id = ${p.id} AND b.merchant_id = ${p.merchantId}
       AND (${p.storeId}::uuid IS NULL OR b.store_id = ${p.storeId})`,
});
