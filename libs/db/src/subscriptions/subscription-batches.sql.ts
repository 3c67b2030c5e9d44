import { defineStatement, pg } from '../sql/statement';

/**
 * The first statement of a batch's transaction: its store and its subscriptions' test clocks, read
 * FOR SHARE while none is deleted (clocks in id order), before the charge claims its token — the
 * order DELETE /stores takes them in (the store row, then its tokens), so that the two wait for each
 * other instead of deadlocking. `store_alive` / `clocks_alive` false: the store / one of the clocks is
 * deleted (nothing is to be written).
 */
export const LOCK_BATCH_OWNERS = defineStatement({
  name: 'subscription_batches_lock_owners',
  params: { storeId: pg.uuid, merchantId: pg.uuid, clockIds: pg.array(pg.uuid) },
  columns: { store_alive: pg.bool, clocks_alive: pg.bool },
  text: (p) => `
    WITH store AS (
      SELECT id FROM stores
       WHERE id = ${p.storeId} AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
         FOR SHARE
    ), clocks AS (
      SELECT id FROM test_clocks
       WHERE id = ANY(${p.clockIds}) AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
       ORDER BY id
         FOR SHARE
    )
    SELECT EXISTS (SELECT 1 FROM store) AS store_alive,
           (SELECT count(*) FROM clocks) = cardinality(${p.clockIds}) AS clocks_alive`,
});

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
