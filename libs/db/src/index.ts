export * from './prisma.service';
export * from './keyset';
export * from './db.module';
export * from './standalone-database';
export * from './repositories/scope';
export * from './repositories/merchants.repository';
export * from './repositories/stores.repository';
export * from './repositories/store-logos.repository';
export * from './repositories/app-tokens.repository';
export * from './repositories/merchant-users.repository';
export * from './repositories/login-sessions.repository';
export * from './repositories/password-resets.repository';
export * from './repositories/webhooks.repository';
export * from './repositories/card-vault.repository';
export * from './repositories/outbox.repository';
export * from './outbox/outbox-events';
export {
  outboxInsertFrom,
  eventSql,
  eventSqlPerRow,
  eventSqlWhen,
  correlationOf,
  appendOutboxEvent,
  type OutboxInsertFrom,
  type OutboxEventSql,
  type PayloadSql,
} from './outbox/outbox-writer';
export { registeredStatements, pg, type SqlStatement, type PgType, type RowOf, type ParamsOf } from './sql';
export * from './repositories/transaction-tokens.repository';
export * from './repositories/token-three-ds.repository';
export * from './repositories/idempotency-records.repository';
export * from './limits/limit-scope';
export * from './limits/active-limit';
export * from './limits/daily-quotas';
export type {
  Merchant,
  Store,
  AppToken,
  MerchantUser,
  LoginSession,
  PasswordResetToken,
  Webhook,
  OutboxEvent,
  ChargeExpiry,
  ChargeDeposit,
} from './generated/prisma/client';
export { Prisma } from './generated/prisma/client';
export * from './repositories/charge-outcomes.repository';
export * from './repositories/charges.repository';
export * from './repositories/captures.repository';
export * from './repositories/transaction-history.repository';
export * from './database-health';
export * from './repositories/refunds.repository';
export * from './repositories/cancels.repository';
export * from './repositories/subscription-engine.repository';
export * from './repositories/subscriptions.repository';
export * from './repositories/test-clocks.repository';
export * from './repositories/subscription-batches.repository';
export * from './repositories/deferred-payments.repository';
export * from './repositories/checkout-forms.repository';
export * from './repositories/checkout-products.repository';
export * from './repositories/checkout-links.repository';
export * from './unavailable';
export * from './ledger/ledger.repository';
