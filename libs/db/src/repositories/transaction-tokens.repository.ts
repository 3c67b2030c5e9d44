import { Injectable } from '@nestjs/common';
import { isUuid, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store, type TransactionToken } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import { OutboxRepository, type NewOutboxEvent } from './outbox.repository';

export type { TransactionToken };

export type TransactionTokenListItem = TransactionToken & {
  store: Pick<Store, 'name'> & { merchant: Pick<Merchant, 'name'> };
};

/** A token row to insert; the id is chosen by the caller, because the vault binds the ciphertext to it. */
export type NewTransactionToken = Pick<
  TransactionToken,
  'id' | 'merchantId' | 'storeId' | 'mode' | 'type' | 'paymentType' | 'email' | 'usageLimit'
> & { data: Prisma.InputJsonObject; metadata: Prisma.InputJsonObject };

/** The encrypted columns of a card_vault row (what CardVault.encrypt returns). */
export interface NewCardVaultEntry {
  keyId: string;
  iv: Uint8Array<ArrayBuffer>;
  ciphertext: Uint8Array<ArrayBuffer>;
  authTag: Uint8Array<ArrayBuffer>;
  fingerprint: string;
}

export type TokenEvent = Omit<NewOutboxEvent, 'aggregateType' | 'aggregateId'>;

export interface TransactionTokenFilters {
  /** the store whose tokens are listed; null lists every store of the merchant */
  storeId: string | null;
  type?: TransactionToken['type'];
  mode?: TransactionToken['mode'];
  paymentType?: TransactionToken['paymentType'];
  /** case-insensitive part of the email */
  search?: string;
  /** metadata "univapay-customer-id" (POST /stores/{id}/create_customer_id) */
  customerId?: string;
}

export type TransactionTokenChanges = Partial<
  Pick<TransactionToken, 'email'> & { data: Prisma.InputJsonObject; metadata: Prisma.InputJsonObject }
>;

const AGGREGATE = 'transaction_token';

/** A transaction_tokens row as plain pg reads it (enums cast to text, uuids to text). */
interface TransactionTokenRow {
  id: string;
  merchant_id: string;
  store_id: string;
  mode: TransactionToken['mode'];
  type: TransactionToken['type'];
  payment_type: TransactionToken['paymentType'];
  email: string | null;
  active: boolean;
  usage_limit: TransactionToken['usageLimit'];
  confirmed: boolean | null;
  previous_id: string | null;
  data: Prisma.JsonValue;
  metadata: Prisma.JsonValue;
  used_count: number;
  last_used_on: Date | null;
  created_on: Date;
  updated_on: Date;
}

function transactionTokenOf(row: TransactionTokenRow): TransactionToken {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    storeId: row.store_id,
    mode: row.mode,
    type: row.type,
    paymentType: row.payment_type,
    email: row.email,
    active: row.active,
    usageLimit: row.usage_limit,
    confirmed: row.confirmed,
    previousId: row.previous_id,
    data: row.data,
    metadata: row.metadata,
    usedCount: row.used_count,
    lastUsedOn: row.last_used_on,
    createdOn: row.created_on,
    updatedOn: row.updated_on,
  };
}

export type ChargeableToken = Pick<
  TransactionToken,
  'id' | 'type' | 'paymentType' | 'mode' | 'active' | 'usedCount'
>;

/** Which token, seen by which merchant's store. */
export interface ChargeableTokenKey {
  merchantId: string;
  storeId: string;
  id: string;
}

/**
 * Transaction tokens and their card_vault rows (one aggregate). Every write that announces itself
 * appends its outbox event in the same transaction.
 */
@Injectable()
export class TransactionTokensRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxRepository,
  ) {}

  /**
   * Inserts the token, its vault row (card tokens) and its event, all or nothing: one plain
   * prepared statement (POST /tokens' hot path; Prisma's interactive transaction and query
   * compiler were most of its CPU).
   */
  async create(
    token: NewTransactionToken,
    vault: NewCardVaultEntry | null,
    event: TokenEvent,
  ): Promise<TransactionToken> {
    const bytes = (value: Uint8Array | undefined) => (value ? Buffer.from(value) : null);
    const rows = await this.prisma.sql<TransactionTokenRow>(
      Prisma.sql`
      WITH token AS (
        INSERT INTO transaction_tokens
               (id, merchant_id, store_id, mode, type, payment_type, email, usage_limit, data, metadata)
        VALUES (${token.id}::uuid, ${token.merchantId}::uuid, ${token.storeId}::uuid,
                ${token.mode}::processing_mode, ${token.type}::token_type, ${token.paymentType}::payment_type,
                ${token.email}::text, ${token.usageLimit}::usage_limit, ${JSON.stringify(token.data)}::jsonb,
                ${JSON.stringify(token.metadata)}::jsonb)
        RETURNING *
      ), vault AS (
        INSERT INTO card_vault (transaction_token_id, key_id, iv, ciphertext, auth_tag, fingerprint)
        SELECT id, ${vault?.keyId ?? null}::text, ${bytes(vault?.iv)}::bytea, ${bytes(vault?.ciphertext)}::bytea,
               ${bytes(vault?.authTag)}::bytea, ${vault?.fingerprint ?? null}::text
          FROM token
         WHERE ${vault !== null}::boolean
      ), event AS (
        INSERT INTO outbox_events
               (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
        SELECT ${event.merchantId}::uuid, ${event.storeId ?? null}::uuid, ${AGGREGATE}, id, ${event.eventType},
               ${JSON.stringify(event.payload)}::jsonb, ${event.correlationId ?? null}::text
          FROM token
      )
      SELECT id::text, merchant_id::text, store_id::text, mode::text, type::text, payment_type::text, email,
             active, usage_limit::text, confirmed, previous_id::text, data, metadata, used_count,
             last_used_on, created_on, updated_on
        FROM token`,
      { prepareAs: 'transaction_tokens_create' },
    );
    return transactionTokenOf(rows[0]);
  }

  /** The token if it belongs to this merchant and store; null for missing and foreign tokens alike. */
  findInStore(merchantId: string, storeId: string, id: string): Promise<TransactionToken | null> {
    return this.prisma.transactionToken.findFirst({ where: { id, merchantId, storeId } });
  }

  /**
   * What POST /charges needs of its tokens, in one plain query (its hot path avoids Prisma's
   * per-query cost): one answer per key, in order; null for a token not in that merchant's store.
   */
  async findChargeableMany(keys: readonly ChargeableTokenKey[]): Promise<(ChargeableToken | null)[]> {
    const { rows } = await this.prisma.pool.query<{
      id: string;
      merchant_id: string;
      store_id: string;
      type: ChargeableToken['type'];
      payment_type: ChargeableToken['paymentType'];
      mode: ChargeableToken['mode'];
      active: boolean;
      used_count: number;
    }>({
      name: 'transaction_tokens_find_chargeable',
      text: `SELECT id, merchant_id, store_id, type, payment_type, mode, active, used_count
               FROM transaction_tokens WHERE id = ANY($1::uuid[])`,
      // a malformed id would fail the whole query: only UUIDs are asked for (others are not found)
      values: [[...new Set(keys.map((key) => key.id).filter(isUuid))]],
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return keys.map((key) => {
      const row = byId.get(key.id.toLowerCase());
      return row && row.merchant_id === key.merchantId && row.store_id === key.storeId
        ? {
            id: row.id,
            type: row.type,
            paymentType: row.payment_type,
            mode: row.mode,
            active: row.active,
            usedCount: row.used_count,
          }
        : null;
    });
  }

  list(merchantId: string, filters: TransactionTokenFilters, page: PageRequest) {
    return listPage(page, whereOf(merchantId, filters), {
      findCursor: (where) =>
        this.prisma.transactionToken.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.transactionToken.findMany({
          ...args,
          include: { store: { select: { name: true, merchant: { select: { name: true } } } } },
        }) as Promise<TransactionTokenListItem[]>,
    });
  }

  count(merchantId: string, filters: TransactionTokenFilters): Promise<number> {
    return this.prisma.transactionToken.count({ where: whereOf(merchantId, filters) });
  }

  /** Applies the changes to an active token with its event; null when the token is not active (any more). */
  update(id: string, changes: TransactionTokenChanges, event: TokenEvent): Promise<TransactionToken | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.transactionToken.updateMany({ where: { id, active: true }, data: changes });
      if (count === 0) return null;
      await this.outbox.append({ ...event, aggregateType: AGGREGATE, aggregateId: id }, tx);
      return tx.transactionToken.findUniqueOrThrow({ where: { id } });
    });
  }

  /** Deactivates an active token with its event; false when it was already inactive (no second event). */
  deactivate(id: string, event: TokenEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.transactionToken.updateMany({
        where: { id, active: true },
        data: { active: false },
      });
      if (count === 0) return false;
      await this.outbox.append({ ...event, aggregateType: AGGREGATE, aggregateId: id }, tx);
      return true;
    });
  }
}

function whereOf(merchantId: string, filters: TransactionTokenFilters): Prisma.TransactionTokenWhereInput {
  return {
    merchantId,
    ...(filters.storeId ? { storeId: filters.storeId } : {}),
    ...(filters.type ? { type: filters.type } : {}),
    ...(filters.mode ? { mode: filters.mode } : {}),
    ...(filters.paymentType ? { paymentType: filters.paymentType } : {}),
    ...(filters.search ? { email: { contains: filters.search, mode: 'insensitive' as const } } : {}),
    ...(filters.customerId
      ? { metadata: { path: ['univapay-customer-id'], equals: filters.customerId } }
      : {}),
  };
}
