import { Injectable } from '@nestjs/common';
import { isUuid, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store, type TransactionToken } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import type { RowOf } from '../sql/statement';
import {
  CREATE_TRANSACTION_TOKEN,
  FIND_CHARGEABLE_TOKENS,
  RECORD_TOKEN_UPDATED,
} from '../sql/transaction-tokens.sql';

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

/** What a token's event carries beyond the token itself: the request it belongs to. */
export interface TokenEventContext {
  correlationId: string | null;
}

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

type TransactionTokenRow = RowOf<typeof CREATE_TRANSACTION_TOKEN.columns>;

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
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Inserts the token, its vault row (card tokens) and its event, all or nothing: one plain
   * prepared statement (POST /tokens' hot path; Prisma's interactive transaction and query
   * compiler were most of its CPU).
   */
  async create(
    token: NewTransactionToken,
    vault: NewCardVaultEntry | null,
    context: TokenEventContext,
  ): Promise<TransactionToken> {
    const rows = await this.prisma.run(CREATE_TRANSACTION_TOKEN, {
      id: token.id,
      merchantId: token.merchantId,
      storeId: token.storeId,
      mode: token.mode,
      type: token.type,
      paymentType: token.paymentType,
      email: token.email,
      usageLimit: token.usageLimit,
      data: token.data,
      metadata: token.metadata,
      hasVault: vault !== null,
      keyId: vault?.keyId ?? null,
      iv: vault?.iv ?? null,
      ciphertext: vault?.ciphertext ?? null,
      authTag: vault?.authTag ?? null,
      fingerprint: vault?.fingerprint ?? null,
      correlationId: context.correlationId,
    });
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
    // a malformed id would fail the whole query: only UUIDs are asked for (others are not found)
    const rows = await this.prisma.run(FIND_CHARGEABLE_TOKENS, {
      ids: [...new Set(keys.map((key) => key.id).filter(isUuid))],
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

  /**
   * Applies the changes to an active token with its token_updated event (naming `changed`); null
   * when the token is not active (any more).
   */
  update(
    id: string,
    changes: TransactionTokenChanges,
    event: TokenEventContext & { changed: string[] },
  ): Promise<TransactionToken | null> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.transactionToken.updateMany({ where: { id, active: true }, data: changes });
      if (count === 0) return null;
      await this.prisma.run(
        RECORD_TOKEN_UPDATED,
        { id, changed: event.changed, correlationId: event.correlationId },
        { db: tx },
      );
      return tx.transactionToken.findUniqueOrThrow({ where: { id } });
    });
  }

  /** Deactivates an active token with its event; false when it was already inactive (no second event). */
  deactivate(id: string, context: TokenEventContext): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.transactionToken.updateMany({
        where: { id, active: true },
        data: { active: false },
      });
      if (count === 0) return false;
      await this.prisma.run(
        RECORD_TOKEN_UPDATED,
        { id, changed: ['active'], correlationId: context.correlationId },
        { db: tx },
      );
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
