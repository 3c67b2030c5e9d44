import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  TransactionTokenAliasesRepository,
  TransactionTokensRepository,
  type TransactionTokenAliasWithToken,
} from '@kessai/db';
import { BusinessRuleError, isUuid, NotFoundError, ValidationError } from '@kessai/domain';
import type { Metadata, StoreActor, StoreScope } from '@kessai/payments';

/** How long an alias is valid when its request names no `valid_until`. */
export const TOKEN_ALIAS_DEFAULT_VALIDITY_MS = 30 * 60 * 1000;
/** The furthest `valid_until` an alias may have: it is temporary (decision 0058). */
export const TOKEN_ALIAS_MAX_VALIDITY_MS = 24 * 60 * 60 * 1000;

/** POST /tokens/alias, parsed (the SDK's TemporaryTokenAliasCreateParams). */
export interface TokenAliasInput {
  transaction_token_id: string;
  metadata?: Metadata;
  amount?: number;
  currency?: string;
  valid_until?: Date;
}

const TOKEN_FIELD = 'transaction_token_id';

/**
 * Temporary aliases of transaction tokens (the SDK's TemporaryTokenAlias, decision 0058): a key that
 * stands for an active token of the caller's store, in the caller's mode, with an optional amount
 * and metadata, valid until a time at most TOKEN_ALIAS_MAX_VALIDITY_MS ahead. Read and deleted by
 * key within its store; once expired or deleted it is found by nothing (404).
 */
@Injectable()
export class TokenAliasesService {
  constructor(
    private readonly aliases: TransactionTokenAliasesRepository,
    private readonly tokens: TransactionTokensRepository,
  ) {}

  async create(
    actor: StoreActor,
    input: TokenAliasInput,
    now = new Date(),
  ): Promise<TransactionTokenAliasWithToken> {
    if ((input.amount === undefined) !== (input.currency === undefined)) {
      throw ValidationError.field(input.amount === undefined ? 'amount' : 'currency', 'REQUIRED_VALUE');
    }
    const validUntil = input.valid_until ?? new Date(now.getTime() + TOKEN_ALIAS_DEFAULT_VALIDITY_MS);
    if (validUntil.getTime() <= now.getTime())
      throw ValidationError.field('valid_until', 'MUST_BE_FUTURE_TIME');
    if (validUntil.getTime() - now.getTime() > TOKEN_ALIAS_MAX_VALIDITY_MS)
      throw ValidationError.field('valid_until', 'EXPIRATION_DATE_OUT_OF_BOUNDS');

    const id = input.transaction_token_id.toLowerCase();
    const token = isUuid(id) ? await this.tokens.findInStore(actor.merchantId, actor.storeId, id) : null;
    if (!token) throw new NotFoundError('transaction_token');
    if (token.mode !== actor.mode) {
      throw new BusinessRuleError('PROCESSING_MODE_MISMATCH', [
        { field: TOKEN_FIELD, reason: 'PROCESSING_MODE_MISMATCH' },
      ]);
    }
    if (!token.active)
      throw new BusinessRuleError('INVALID_TOKEN', [{ field: TOKEN_FIELD, reason: 'NOT_ACTIVE' }]);

    return this.aliases.create({
      id: randomUUID(),
      transactionTokenId: token.id,
      merchantId: token.merchantId,
      storeId: token.storeId,
      amount: input.amount === undefined ? null : BigInt(input.amount),
      currency: input.currency ?? null,
      metadata: input.metadata ?? {},
      validUntil,
      createdOn: now,
    });
  }

  /** The store's alias `id` while valid; 404 when unknown, foreign, expired or deleted. */
  async find(scope: StoreScope, id: string, now = new Date()): Promise<TransactionTokenAliasWithToken> {
    const alias = isUuid(id) ? await this.aliases.findValid(scope, id.toLowerCase(), now) : null;
    if (!alias) throw new NotFoundError('transaction_token_alias');
    return alias;
  }

  /** Ends the store's alias `id` at once; 404 when there is none valid to end. */
  async delete(scope: StoreScope, id: string, now = new Date()): Promise<void> {
    const deleted = isUuid(id) ? await this.aliases.delete(scope, id.toLowerCase(), now) : false;
    if (!deleted) throw new NotFoundError('transaction_token_alias');
  }
}
