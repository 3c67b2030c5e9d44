import type { PaymentType, ProcessingMode, TokenType, UsageLimit } from '../generated/prisma/enums';
import type { Prisma } from '../generated/prisma/client';
import { tokenCreatedSql, tokenUpdatedSql } from '../outbox/event-sql';
import { outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from './statement';

/**
 * Inserts the token, its vault row (card tokens: `hasVault`) and its token_created event, all or
 * nothing (POST /tokens' hot path). Returns the token row.
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
    previous_id: pg.nullable(pg.text),
    data: pg.jsonb<Prisma.JsonValue>(),
    metadata: pg.jsonb<Prisma.JsonValue>(),
    used_count: pg.int4,
    last_used_on: pg.nullable(pg.timestamptz),
    created_on: pg.timestamptz,
    updated_on: pg.timestamptz,
  },
  text: (p) => `
    WITH token AS (
      INSERT INTO transaction_tokens
             (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata)
      VALUES (${p.id}, ${p.merchantId}, ${p.storeId}, ${p.mode}, ${p.type}, ${p.paymentType}, ${p.email},
              ${p.usageLimit}, ${p.data}, ${p.metadata})
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
    )
    SELECT id::text, merchant_id::text, store_id::text, mode::text, type::text, payment_type::text, email,
           active, usage_limit::text, confirmed, previous_id::text, data, metadata, used_count,
           last_used_on, created_on, updated_on
      FROM token`,
});

/** What POST /charges needs of its tokens (ids as an array: reached by primary key). */
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
  },
  text: (p) => `
    SELECT id, merchant_id, store_id, type, payment_type, mode, active, used_count
      FROM transaction_tokens WHERE id = ANY(${p.ids})`,
});

/**
 * The token_updated event of a token as it is now (run in the transaction that changed it), naming
 * the fields that changed; no row when the token does not exist.
 */
export const RECORD_TOKEN_UPDATED = defineStatement({
  name: 'transaction_tokens_record_updated',
  params: { id: pg.uuid, changed: pg.jsonb<readonly string[]>(), correlationId: pg.nullable(pg.text) },
  columns: { id: pg.text },
  text: (p) => `
    ${outboxInsertFrom('transaction_tokens', {
      aggregateType: 'transaction_token',
      aggregateId: 'id',
      merchantId: 'merchant_id',
      storeId: 'store_id',
      event: tokenUpdatedSql(p.changed),
      correlationId: p.correlationId,
      where: `id = ${p.id}`,
    })}
    RETURNING id::text AS id`,
});
