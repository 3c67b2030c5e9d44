// Every plain statement registered, whichever repositories a process uses (the contract test prepares
// them all through registeredStatements)
import './all-statements';

// The connection, its health and failures, and the plumbing every aggregate shares
export * from './prisma.service';
export * from './database-health';
export * from './unavailable';
export * from './db.module';
export * from './standalone-database';
export * from './scope';
export * from './keyset';
export * from './limits/limit-scope';
export * from './limits/active-limit';
export * from './limits/daily-quotas';
export {
  registeredStatements,
  pg,
  type SqlStatement,
  type PgType,
  type RowOf,
  type ParamsOf,
} from './sql/statement';
export * from './outbox/outbox.repository';
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

// The repositories, by aggregate
export * from './accounts/merchants.repository';
export * from './accounts/merchant-users.repository';
export * from './accounts/login-sessions.repository';
export * from './accounts/password-resets.repository';
export * from './accounts/customer-login-codes.repository';
export * from './accounts/app-tokens.repository';
export * from './accounts/merchant-verifications.repository';
export * from './exchange-rates/exchange-rates.repository';
export * from './audit/console-audit.repository';
export * from './stores/stores.repository';
export * from './stores/store-logos.repository';
export * from './tokens/transaction-tokens.repository';
export * from './tokens/token-check';
export * from './tokens/token-three-ds.repository';
export * from './tokens/token-cvv-authorize.repository';
export * from './tokens/transaction-token-aliases.repository';
export * from './tokens/card-vault.repository';
export * from './charges/charges.repository';
export * from './charges/charge-outcomes.repository';
export * from './charges/capture-outcomes.repository';
export * from './charges/charge-sweeps.repository';
export * from './charges/captures.repository';
export * from './charges/deferred-payments.repository';
export * from './refunds-cancels/refunds.repository';
export * from './refunds-cancels/cancels.repository';
export * from './transaction-history/transaction-history.repository';
export * from './subscriptions/subscriptions.repository';
export * from './subscriptions/subscription-engine.repository';
export * from './subscriptions/subscription-batches.repository';
export * from './subscriptions/test-clocks.repository';
export * from './webhooks/webhooks.repository';
export * from './checkout/checkout-forms.repository';
export * from './checkout/checkout-products.repository';
export * from './checkout/checkout-links.repository';
export * from './checkout/payment-mails.repository';
export * from './idempotency/idempotency-records.repository';
export * from './ledger/ledger.repository';
export * from './overview/payment-overview.repository';
export * from './payouts/bank-accounts.repository';
export * from './payouts/payouts.repository';
export * from './payouts/transfers.repository';
export * from './processors/processor-accounts.repository';
