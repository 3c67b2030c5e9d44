import { Injectable } from '@nestjs/common';
import { isUuid, type PageRequest } from '@kessai/domain';
import { Prisma, type Merchant, type Store, type TransactionToken } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';
import type { RowOf } from '../sql/statement';
import {
  CREATE_TRANSACTION_TOKEN,
  FIND_CHARGEABLE_TOKENS,
  HAS_CUSTOMER_EMAIL,
  RENEW_TRANSACTION_TOKEN,
  RECORD_RECURRING_TOKEN_DELETED,
  RECORD_TOKEN_UPDATED,
} from './transaction-tokens.sql';
import { likeLiteral } from '../like';

export type { TransactionToken };

export type TransactionTokenListItem = TransactionToken & {
  store: Pick<Store, 'name'> & { merchant: Pick<Merchant, 'name'> };
};

/** A token row to insert; the id is chosen by the caller, because the vault binds the ciphertext to it. */
export type NewTransactionToken = Pick<
  TransactionToken,
  'id' | 'merchantId' | 'storeId' | 'mode' | 'type' | 'paymentType' | 'email' | 'usageLimit'
> & {
  data: Prisma.InputJsonObject;
  metadata: Prisma.InputJsonObject;
  /** use_confirmation: the hash of the code the token must be confirmed with */
  confirmationCodeHash?: string | null;
};

/** How a confirmation attempt ended. */
export type TokenConfirmation =
  | { outcome: 'confirmed'; token: TransactionToken }
  | { outcome: 'wrong_code' }
  /** not waiting for a code: confirmed already, never asked for one, inactive, or its code spent */
  | { outcome: 'not_confirmable'; token: TransactionToken };

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
  /** the token's `previous_id`: the successor of a renewed token */
  previousId?: string;
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
    confirmationCodeHash: row.confirmation_code_hash,
    confirmationAttempts: row.confirmation_attempts,
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
  'id' | 'type' | 'paymentType' | 'mode' | 'active' | 'usedCount' | 'usageLimit' | 'confirmed'
> & {
  /** card tokens: the card's brand */
  cardBrand: string | null;
  /** qr_scan tokens: the operator (the token's gateway, else the brand its code was recognised as) */
  qrGateway: string | null;
  /** card tokens created with three_ds: whether it is enabled, and its status (ThreeDsStatus) */
  threeDs: { enabled: boolean; status: string | null } | null;
  /** card tokens: whether CVV authorization is enabled, and its status (CvvAuthorizedStatus) */
  cvvAuthorize: { enabled: boolean; status: string | null } | null;
  /** bank_transfer and konbini tokens: their own deadline rules, overriding the store's */
  expirationPeriod: string | null;
  expirationTimeShift: string | null;
  /** the configuration layers the charge obeys: its store's and its merchant's, as stored */
  storeConfiguration: Prisma.JsonValue;
  merchantConfiguration: Prisma.JsonValue;
  /** konbini tokens: the convenience store */
  konbiniStore: string | null;
  /** online tokens: the brand (OnlineBrand) */
  onlineBrand: string | null;
  /**
   * the token's store's routes of its mode and payment type to active accounts, by currency (a
   * code or `*`), with each account's provider: which processor its charge will go to (decision
   * 0055), and the provider of the route's fallback it may fail over to (null: none; 0056, 0072)
   */
  processorRoutes: readonly { currency: string; provider: string; fallbackProvider: string | null }[];
};

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
   * compiler were most of its CPU). Null when its store is deleted (meanwhile: a DELETE /stores
   * under way is waited for).
   */
  async create(
    token: NewTransactionToken,
    vault: NewCardVaultEntry | null,
    context: TokenEventContext,
  ): Promise<TransactionToken | null> {
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
      confirmationCodeHash: token.confirmationCodeHash ?? null,
      correlationId: context.correlationId,
    });
    return rows[0] ? transactionTokenOf(rows[0]) : null;
  }

  /** The token if it belongs to this merchant and store; null for missing and foreign tokens alike. */
  /** The token in any store of the merchant (a subscription tells a token of another store apart). */
  findInMerchant(merchantId: string, id: string): Promise<TransactionToken | null> {
    return this.prisma.transactionToken.findFirst({ where: { id, merchantId } });
  }

  findInStore(merchantId: string, storeId: string, id: string): Promise<TransactionToken | null> {
    return this.prisma.transactionToken.findFirst({ where: { id, merchantId, storeId } });
  }

  /**
   * Whether the store has a token of `mode` made for `email` (any case): the customer a
   * self-service login code may be sent to (decision 0058).
   */
  async hasCustomerEmail(storeId: string, mode: 'test' | 'live', email: string): Promise<boolean> {
    const [row] = await this.prisma.run(HAS_CUSTOMER_EMAIL, { storeId, mode, email });
    return row?.found === true;
  }

  /** The tokens `ids` that exist, in no particular order; one query (webhook data, in batches). */
  findMany(ids: readonly string[]): Promise<TransactionToken[]> {
    return this.prisma.transactionToken.findMany({ where: { id: { in: [...new Set(ids)] } } });
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
            usageLimit: row.usage_limit,
            confirmed: row.confirmed,
            cardBrand: row.card_brand,
            qrGateway: row.qr_gateway,
            threeDs:
              row.three_ds_enabled === null
                ? null
                : { enabled: row.three_ds_enabled, status: row.three_ds_status },
            cvvAuthorize:
              row.cvv_authorize_enabled === null
                ? null
                : { enabled: row.cvv_authorize_enabled, status: row.cvv_authorize_status },
            expirationPeriod: row.expiration_period,
            expirationTimeShift: row.expiration_time_shift,
            storeConfiguration: row.store_configuration,
            merchantConfiguration: row.merchant_configuration,
            konbiniStore: row.convenience_store,
            onlineBrand: row.online_brand,
            processorRoutes: row.processor_routes,
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

  /**
   * Confirms an active token waiting for its code (use_confirmation) when `codeHash` is its code's
   * hash, with its token_updated event (`confirmed`); a wrong code counts an attempt, and at
   * `maxAttempts` the code is spent. Each is one conditional UPDATE, so parallel attempts cannot
   * exceed the count.
   */
  confirm(
    id: string,
    codeHash: string,
    maxAttempts: number,
    context: TokenEventContext,
  ): Promise<TokenConfirmation> {
    return this.prisma.$transaction(async (tx) => {
      const waiting = { id, active: true, confirmed: false, confirmationAttempts: { lt: maxAttempts } };
      const { count } = await tx.transactionToken.updateMany({
        where: { ...waiting, confirmationCodeHash: codeHash },
        data: { confirmed: true, confirmationCodeHash: null },
      });
      if (count === 1) {
        await this.prisma.run(
          RECORD_TOKEN_UPDATED,
          { id, changed: ['confirmed'], correlationId: context.correlationId },
          { db: tx },
        );
        return {
          outcome: 'confirmed',
          token: await tx.transactionToken.findUniqueOrThrow({ where: { id } }),
        };
      }
      const wrong = await tx.transactionToken.updateMany({
        where: waiting,
        data: { confirmationAttempts: { increment: 1 } },
      });
      if (wrong.count === 1) return { outcome: 'wrong_code' };
      return {
        outcome: 'not_confirmable',
        token: await tx.transactionToken.findUniqueOrThrow({ where: { id } }),
      };
    });
  }

  /** A card token's encrypted number (to renew it with the same card); null when it has none. */
  findVault(tokenId: string) {
    return this.prisma.cardVault.findUnique({ where: { transactionTokenId: tokenId } });
  }

  /**
   * Renews an active card token of the store (RENEW_TRANSACTION_TOKEN, one statement): the new
   * token replaces it, with its vault row, and takes over its subscriptions; null when the old
   * token is not active (any more).
   */
  async renew(
    old: { id: string; merchantId: string; storeId: string },
    renewed: { id: string; email: string | null; data: Prisma.InputJsonObject },
    vault: NewCardVaultEntry,
    context: TokenEventContext,
  ): Promise<TransactionToken | null> {
    const rows = await this.prisma.write('token renewal', RENEW_TRANSACTION_TOKEN, {
      oldId: old.id,
      newId: renewed.id,
      merchantId: old.merchantId,
      storeId: old.storeId,
      email: renewed.email,
      data: renewed.data,
      keyId: vault.keyId,
      iv: vault.iv,
      ciphertext: vault.ciphertext,
      authTag: vault.authTag,
      fingerprint: vault.fingerprint,
      correlationId: context.correlationId,
    });
    return rows[0] ? transactionTokenOf(rows[0]) : null;
  }

  /**
   * Deletes (deactivates) an active token with its token_updated event and, for a recurring token,
   * recurring_token_deleted; false when it was already inactive (no second event).
   */
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
      await this.prisma.run(
        RECORD_RECURRING_TOKEN_DELETED,
        { id, correlationId: context.correlationId },
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
    ...(filters.search
      ? { email: { contains: likeLiteral(filters.search), mode: 'insensitive' as const } }
      : {}),
    ...(filters.customerId
      ? { metadata: { path: ['univapay-customer-id'], equals: filters.customerId } }
      : {}),
    ...(filters.previousId ? { previousId: filters.previousId } : {}),
  };
}
