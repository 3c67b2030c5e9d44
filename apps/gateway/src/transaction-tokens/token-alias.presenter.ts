import type { TransactionTokenAliasWithToken } from '@kessai/db';
import { optionalField } from '@kessai/presenters';

/** POST /tokens/alias's answer (the SDK's TemporaryTokenAliasShortItem): the key and its validity. */
export function presentCreatedTokenAlias(alias: TransactionTokenAliasWithToken) {
  return { key: alias.id, valid_until: alias.validUntil.toISOString() };
}

/**
 * An alias as GET answers it (the SDK's TemporaryTokenAliasItem): the token it stands for (`id`,
 * its store, email, types, mode, last use), the alias's own amount and metadata, when it was made and
 * until when it is valid. Kessai has no platforms: `platform_id` is left out (the SDK types it optional).
 */
export function presentTokenAlias(alias: TransactionTokenAliasWithToken) {
  const token = alias.transactionToken;
  return {
    id: token.id,
    merchant_id: alias.merchantId,
    store_id: alias.storeId,
    ...optionalField('email', token.email),
    payment_type: token.paymentType,
    active: token.active,
    mode: token.mode,
    type: token.type,
    created_on: alias.createdOn.toISOString(),
    last_used_on: (token.lastUsedOn ?? token.createdOn).toISOString(),
    ...optionalField('amount', alias.amount === null ? null : Number(alias.amount)),
    ...optionalField('currency', alias.currency),
    alias_metadata: alias.metadata ?? {},
    valid_until: alias.validUntil.toISOString(),
  };
}
