import type { PaymentType, ProcessingMode, TokenType, UsageLimit } from '../generated/prisma/enums';
import type { Prisma } from '../generated/prisma/client';
import {
  recurringTokenDeletedSql,
  tokenCreatedSql,
  tokenCvvAuthRequestedSql,
  tokenReplacedSql,
  tokenThreeDsRequestedSql,
  tokenUpdatedSql,
} from '../outbox/event-sql';
import type { OutboxEventType } from '../outbox/outbox-events';
import { outboxInsertFrom, type OutboxEventSql } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';

/** A token row as CREATE_TRANSACTION_TOKEN's columns declare it (a statement's RETURNING or SELECT). */
const TOKEN_ROW = `id::text, merchant_id::text, store_id::text, mode::text, type::text, payment_type::text,
           email, active, usage_limit::text, confirmed, confirmation_code_hash, confirmation_attempts,
           previous_id::text, data, metadata, used_count, last_used_on, created_on, updated_on`;

/**
 * The scope's store, read FOR SHARE while it is not deleted: a token written under it waits for a
 * DELETE /stores under way (whose first statement updates the store's row) and then sees the store
 * deleted (nothing written), so that no token is left active after the deletion deactivated the
 * store's tokens; and it is taken before any token row, so that the two are ordered by the store's
 * row and never deadlock (decision 0023). A PATCH of the store under way is waited for too (its
 * transaction only).
 */
const liveStoreFor = (p: { storeId: string; merchantId: string }) => `
    live_store AS (
      SELECT id FROM stores
       WHERE id = ${p.storeId} AND merchant_id = ${p.merchantId} AND deleted_on IS NULL
         FOR SHARE
    )`;

/**
 * Inserts the token, its vault row (card tokens: `hasVault`) and its token_created event (and
 * token_three_ds_requested for a card token whose 3-D Secure is to be authenticated, and
 * token_cvv_auth_requested for one whose CVV is to be authorized), all or
 * nothing (POST /tokens' hot path), while its store is not deleted (liveStoreFor). Returns the token
 * row; none when the store is deleted.
 */
export const CREATE_TRANSACTION_TOKEN = defineStatement({
  name: 'transaction_tokens_create',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    type: pg.enum<TokenType>('token_type'),
    paymentType: pg.enum<PaymentType>('payment_type'),
    email: pg.nullable(pg.text),
    usageLimit: pg.nullable(pg.enum<UsageLimit>('usage_limit')),
    data: pg.jsonb<unknown>(),
    metadata: pg.jsonb<unknown>(),
    hasVault: pg.bool,
    keyId: pg.nullable(pg.text),
    iv: pg.nullable(pg.bytea),
    ciphertext: pg.nullable(pg.bytea),
    authTag: pg.nullable(pg.bytea),
    fingerprint: pg.nullable(pg.text),
    /** use_confirmation: the token starts unconfirmed, with this hash of its code */
    confirmationCodeHash: pg.nullable(pg.text),
    correlationId: pg.nullable(pg.text),
  },
  columns: {
    id: pg.text,
    merchant_id: pg.text,
    store_id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    type: pg.textOf<TokenType>(),
    payment_type: pg.textOf<PaymentType>(),
    email: pg.nullable(pg.text),
    active: pg.bool,
    usage_limit: pg.nullable(pg.textOf<UsageLimit>()),
    confirmed: pg.nullable(pg.bool),
    confirmation_code_hash: pg.nullable(pg.text),
    confirmation_attempts: pg.int4,
    previous_id: pg.nullable(pg.text),
    data: pg.jsonb<Prisma.JsonValue>(),
    metadata: pg.jsonb<Prisma.JsonValue>(),
    used_count: pg.int4,
    last_used_on: pg.nullable(pg.timestamptz),
    created_on: pg.timestamptz,
    updated_on: pg.timestamptz,
  },
  text: (p) => `
    WITH${liveStoreFor(p)},
    token AS (
      INSERT INTO transaction_tokens
             (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata,
              confirmed, confirmation_code_hash)
      SELECT ${p.id}, ${p.merchantId}, ${p.storeId}, ${p.mode}, ${p.type}, ${p.paymentType}, ${p.email},
             ${p.usageLimit}, ${p.data}, ${p.metadata},
             CASE WHEN ${p.confirmationCodeHash} IS NOT NULL THEN false END, ${p.confirmationCodeHash}
        FROM live_store
      RETURNING *
    ), vault AS (
      INSERT INTO card_vault (transaction_token_id, key_id, iv, ciphertext, auth_tag, fingerprint)
      SELECT id, ${p.keyId}, ${p.iv}, ${p.ciphertext}, ${p.authTag}, ${p.fingerprint}
        FROM token
       WHERE ${p.hasVault}
    ), event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenCreatedSql(),
        correlationId: p.correlationId,
      })}
    ), three_ds_event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenThreeDsRequestedSql(),
        correlationId: p.correlationId,
        // a card token created with three_ds (mode other than skip): charge-service authenticates it
        where: `data->'three_ds'->>'status' = 'pending' AND (data->'three_ds'->>'enabled')::boolean`,
      })}
    ), cvv_authorize_event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenCvvAuthRequestedSql(),
        correlationId: p.correlationId,
        // a card token created with cvv_authorize enabled: charge-service authorizes its CVV
        where: `data->'cvv_authorize'->>'status' = 'pending' AND (data->'cvv_authorize'->>'enabled')::boolean`,
      })}
    )
    SELECT ${TOKEN_ROW} FROM token`,
});

/**
 * What POST /charges needs of its tokens (ids as an array: reached by primary key), with the
 * configuration layers of their store and merchant, which the charge must obey.
 */
export const FIND_CHARGEABLE_TOKENS = defineStatement({
  name: 'transaction_tokens_find_chargeable',
  params: { ids: pg.array(pg.uuid) },
  columns: {
    id: pg.uuid,
    merchant_id: pg.uuid,
    store_id: pg.uuid,
    type: pg.enum<TokenType>('token_type'),
    payment_type: pg.enum<PaymentType>('payment_type'),
    mode: pg.enum<ProcessingMode>('processing_mode'),
    active: pg.bool,
    used_count: pg.int4,
    usage_limit: pg.nullable(pg.enum<UsageLimit>('usage_limit')),
    /** false while a use_confirmation token waits for its code */
    confirmed: pg.nullable(pg.bool),
    /** card tokens: the card's brand */
    card_brand: pg.nullable(pg.text),
    /** qr_scan tokens: the operator (the token's gateway, else the brand its code was recognised as) */
    qr_gateway: pg.nullable(pg.text),
    /** card tokens with three_ds: whether it is enabled, and its status */
    three_ds_enabled: pg.nullable(pg.bool),
    three_ds_status: pg.nullable(pg.text),
    /** card tokens: whether CVV authorization is enabled, and its status */
    cvv_authorize_enabled: pg.nullable(pg.bool),
    cvv_authorize_status: pg.nullable(pg.text),
    /** bank_transfer and konbini tokens: their own deadline rules (api-reference §5.1) */
    expiration_period: pg.nullable(pg.text),
    expiration_time_shift: pg.nullable(pg.text),
    store_configuration: pg.jsonb<Prisma.JsonValue>(),
    merchant_configuration: pg.jsonb<Prisma.JsonValue>(),
    /** konbini tokens: the convenience store */
    convenience_store: pg.nullable(pg.text),
    /** online tokens: the brand (OnlineBrand), which a hosted processor may not take */
    online_brand: pg.nullable(pg.text),
    /**
     * the routes of the token's store, mode and payment type to an active account of that mode,
     * with the account's provider (decision 0055) and its fallback's, as the trigger will record it
     * (an active account of the mode other than the account; decisions 0056, 0072): what the
     * charges_processor_route trigger will choose from, by the charge's currency
     */
    processor_routes: pg.jsonb<{ currency: string; provider: string; fallbackProvider: string | null }[]>(),
  },
  text: (p) => `
    SELECT t.id, t.merchant_id, t.store_id, t.type, t.payment_type, t.mode, t.active, t.used_count,
           t.usage_limit, t.confirmed, t.data->'card'->>'brand' AS card_brand,
           CASE WHEN t.payment_type = 'qr_scan'
                THEN COALESCE(t.data->>'gateway', t.data->>'brand') END AS qr_gateway,
           (t.data->'three_ds'->>'enabled')::boolean AS three_ds_enabled,
           t.data->'three_ds'->>'status' AS three_ds_status,
           (t.data->'cvv_authorize'->>'enabled')::boolean AS cvv_authorize_enabled,
           t.data->'cvv_authorize'->>'status' AS cvv_authorize_status,
           t.data->>'expiration_period' AS expiration_period,
           t.data->>'expiration_time_shift' AS expiration_time_shift,
           s.configuration AS store_configuration, m.configuration AS merchant_configuration,
           t.data->>'convenience_store' AS convenience_store,
           CASE WHEN t.payment_type = 'online' THEN t.data->>'brand' END AS online_brand,
           (SELECT COALESCE(jsonb_agg(jsonb_build_object('currency', r.currency, 'provider', a.provider,
                                                         'fallbackProvider', f.provider)),
                            '[]'::jsonb)
              FROM processor_routes r
              JOIN processor_accounts a
                ON a.id = r.processor_account_id AND a.status = 'active' AND a.mode = t.mode
              LEFT JOIN processor_accounts f
                ON f.id = r.fallback_processor_account_id AND f.id <> a.id
               AND f.status = 'active' AND f.mode = t.mode
             WHERE r.store_id = t.store_id AND r.mode = t.mode
               AND r.payment_type::text = (CASE t.payment_type::text
                     WHEN 'qr_scan' THEN 'online' WHEN 'qr_merchant' THEN 'online'
                     ELSE t.payment_type::text END)) AS processor_routes
      FROM transaction_tokens t
      JOIN stores s ON s.id = t.store_id
      JOIN merchants m ON m.id = s.merchant_id
     WHERE t.id = ANY(${p.ids})`,
});

/**
 * Whether the store has a token of `mode` made for `email`, compared case-blind as a whole address
 * (never a pattern: `_` and `%` are characters of an address, not wildcards), through
 * transaction_tokens_store_email_idx: the customer a self-service login code may be sent to
 * (decision 0058), in one index probe whatever the number of the store's tokens.
 */
export const HAS_CUSTOMER_EMAIL = defineStatement({
  name: 'transaction_tokens_has_customer_email',
  params: { storeId: pg.uuid, mode: pg.text, email: pg.text },
  columns: { found: pg.bool },
  text: (p) => `
    SELECT EXISTS (
      SELECT 1 FROM transaction_tokens
       WHERE store_id = ${p.storeId} AND lower(email) = lower(${p.email}) AND mode::text = ${p.mode}
    ) AS found`,
});

/**
 * The event `event` (a payload expression of event-sql.ts) of each transaction_tokens row of
 * `source` (the table, or a CTE of its rows with id, merchant_id, store_id) that `where` keeps.
 */
function tokenEventsFrom<E extends OutboxEventType>(
  source: string,
  event: OutboxEventSql<E>,
  correlationId: string,
  where?: string,
): string {
  return outboxInsertFrom(source, {
    aggregateType: 'transaction_token',
    aggregateId: 'id',
    merchantId: 'merchant_id',
    storeId: 'store_id',
    event,
    correlationId,
    ...(where ? { where } : {}),
  });
}

/**
 * One token_updated event (`changed: ["active"]`) per row of `source` (transaction_tokens rows, or
 * a CTE of them with id, merchant_id, store_id, active): tokens just deactivated.
 */
export function tokenDeactivatedEvents(source: string, correlationId: string): string {
  return tokenEventsFrom(source, tokenUpdatedSql(`'["active"]'::jsonb`), correlationId);
}

/**
 * The token_updated event of a token as it is now (run in the transaction that changed it), naming
 * the fields that changed; no row when the token does not exist.
 */
export const RECORD_TOKEN_UPDATED = defineStatement({
  name: 'transaction_tokens_record_updated',
  params: { id: pg.uuid, changed: pg.jsonb<readonly string[]>(), correlationId: pg.nullable(pg.text) },
  columns: { id: pg.text },
  text: (p) => `
    ${tokenEventsFrom('transaction_tokens', tokenUpdatedSql(p.changed), p.correlationId, `id = ${p.id}`)}
    RETURNING id::text AS id`,
});

/**
 * The recurring_token_deleted event of a token just deleted (run in the transaction that
 * deactivated it); no row when the token is not recurring.
 */
export const RECORD_RECURRING_TOKEN_DELETED = defineStatement({
  name: 'transaction_tokens_record_recurring_deleted',
  params: { id: pg.uuid, correlationId: pg.nullable(pg.text) },
  columns: { id: pg.text },
  text: (p) => `
    ${tokenEventsFrom(
      'transaction_tokens',
      recurringTokenDeletedSql(),
      p.correlationId,
      `id = ${p.id} AND type = 'recurring'`,
    )}
    RETURNING id::text AS id`,
});

/**
 * Renews an active card token of the scope's store, in one statement: the old token is deactivated
 * (token_updated, `active`), the new one inserted with previous_id = the old one, its vault row,
 * the subscriptions that used the old token moved to it, and token_replaced written. No row when
 * the old token is not active (any more) or not the store's, or the store is deleted: the store is
 * read FOR SHARE first (liveStoreFor), so a renewal and a DELETE /stores are ordered by the store's
 * row (whichever has it first, the other waits) instead of deadlocking over the token and its
 * subscriptions, which they lock in opposite orders.
 */
export const RENEW_TRANSACTION_TOKEN = defineStatement({
  name: 'transaction_tokens_renew',
  params: {
    oldId: pg.uuid,
    newId: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    email: pg.nullable(pg.text),
    data: pg.jsonb<unknown>(),
    keyId: pg.text,
    iv: pg.bytea,
    ciphertext: pg.bytea,
    authTag: pg.bytea,
    fingerprint: pg.text,
    correlationId: pg.nullable(pg.text),
  },
  columns: CREATE_TRANSACTION_TOKEN.columns,
  text: (p) => `
    WITH${liveStoreFor(p)},
    old AS (
      UPDATE transaction_tokens SET active = false, updated_on = now()
       WHERE id = ${p.oldId} AND merchant_id = ${p.merchantId} AND store_id = ${p.storeId}
         AND active AND payment_type = 'card' AND EXISTS (SELECT 1 FROM live_store)
      RETURNING id, merchant_id, store_id, mode, type, payment_type, usage_limit, metadata, active
    ), token AS (
      INSERT INTO transaction_tokens
             (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata,
              previous_id)
      SELECT ${p.newId}, merchant_id, store_id, mode, type, payment_type, ${p.email}, usage_limit,
             ${p.data}, metadata, id
        FROM old
      RETURNING *
    ), vault AS (
      INSERT INTO card_vault (transaction_token_id, key_id, iv, ciphertext, auth_tag, fingerprint)
      SELECT id, ${p.keyId}, ${p.iv}, ${p.ciphertext}, ${p.authTag}, ${p.fingerprint} FROM token
    ), users AS MATERIALIZED (
      -- its subscriptions in id order, as the engine's settlements lock theirs (decision 0023)
      SELECT s.id FROM subscriptions s, token
       WHERE s.transaction_token_id = token.previous_id
       ORDER BY s.id
         FOR NO KEY UPDATE OF s
    ), moved AS (
      UPDATE subscriptions SET transaction_token_id = token.id, updated_on = now()
        FROM token, users
       WHERE subscriptions.id = users.id AND subscriptions.transaction_token_id = token.previous_id
      RETURNING subscriptions.id
    ), old_event AS (
      ${tokenDeactivatedEvents('old', p.correlationId)}
    ), replaced_event AS (
      ${outboxInsertFrom('token', {
        aggregateType: 'transaction_token',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: tokenReplacedSql(),
        correlationId: p.correlationId,
      })}
    )
    SELECT ${TOKEN_ROW} FROM token`,
});
