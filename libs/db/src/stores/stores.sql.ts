import type { Prisma } from '../generated/prisma/client';
import { defineStatement, pg } from '../sql/statement';
import { cancelSubscriptionsCtes, lockCancelableSubscriptionsSql } from '../subscriptions/subscriptions.sql';
import { tokenDeactivatedEvents } from '../tokens/transaction-tokens.sql';

/**
 * What creating a transaction token needs of its store and merchant; no row when the store is not the
 * merchant's or is deleted.
 */
export const FIND_STORE_TOKEN_SETTINGS = defineStatement({
  name: 'stores_find_token_settings',
  params: { storeId: pg.uuid, merchantId: pg.uuid },
  columns: {
    pci_dss_compliant: pg.bool,
    store_configuration: pg.jsonb<Prisma.JsonValue>(),
    merchant_configuration: pg.jsonb<Prisma.JsonValue>(),
  },
  text: (p) => `
    SELECT m.pci_dss_compliant, s.configuration AS store_configuration,
           m.configuration AS merchant_configuration
      FROM stores s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.id = ${p.storeId} AND m.id = ${p.merchantId} AND s.deleted_on IS NULL`,
});

const storeSubscriptions = (p: { storeId: string; merchantId: string }) => ({
  where: `s.store_id = ${p.storeId} AND s.merchant_id = ${p.merchantId}`,
});

/**
 * The deleted store's subscriptions that are not final, locked in id order, in a statement of its
 * own before CLOSE_STORE_SUBSCRIPTIONS_AND_TOKENS (lockCancelableSubscriptionsSql); how many.
 */
export const LOCK_STORE_SUBSCRIPTIONS = defineStatement({
  name: 'stores_lock_subscriptions',
  params: { storeId: pg.uuid, merchantId: pg.uuid },
  columns: { locked: pg.int4 },
  text: (p) => `
    WITH locked AS MATERIALIZED (${lockCancelableSubscriptionsSql(storeSubscriptions(p))}
    )
    SELECT count(*)::int4 AS locked FROM locked`,
});

/**
 * What a deleted store leaves running, closed in the transaction that deletes it (docs/stores.md):
 * its subscriptions that are not final canceled as DELETE of each would (cancelSubscriptionsCtes:
 * pending payments canceled, subscription_canceled), its active transaction tokens deactivated with
 * a token_updated event each (`changed: ["active"]`), so that the merchant's own webhooks hear of
 * both (the store's webhooks are turned off with it).
 */
export const CLOSE_STORE_SUBSCRIPTIONS_AND_TOKENS = defineStatement({
  name: 'stores_close_subscriptions_and_tokens',
  params: { storeId: pg.uuid, merchantId: pg.uuid, correlationId: pg.nullable(pg.text) },
  columns: { subscriptions_canceled: pg.int4, tokens_deactivated: pg.int4 },
  text: (p) => `
    WITH${cancelSubscriptionsCtes(p, storeSubscriptions(p))},
    tokens AS (
      UPDATE transaction_tokens SET active = false, updated_on = now()
       WHERE store_id = ${p.storeId} AND merchant_id = ${p.merchantId} AND active
      RETURNING id, merchant_id, store_id, active
    ),
    token_events AS (
      ${tokenDeactivatedEvents('tokens', p.correlationId)}
    )
    SELECT (SELECT count(*) FROM moved)::int4 AS subscriptions_canceled,
           (SELECT count(*) FROM tokens)::int4 AS tokens_deactivated`,
});
