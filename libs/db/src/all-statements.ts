/**
 * The home of libs/db's plain SQL: one module per aggregate, each statement with its parameter and
 * column types (statement.ts). Importing this registers them all (the contract test prepares each).
 */
import '../accounts/app-tokens.sql';
import '../charges/captures.sql';
import '../tokens/card-vault.sql';
import '../charges/charge-outcomes.sql';
import '../charges/charges.sql';
import '../checkout/checkout-links.sql';
import '../charges/deferred-payments.sql';
import '../idempotency/idempotency-records.sql';
import '../limits/limits.sql';
import '../outbox/outbox.sql';
import '../refunds-cancels/refunds-cancels.sql';
import '../stores/stores.sql';
import '../subscriptions/subscription-batches.sql';
import '../subscriptions/subscription-engine.sql';
import '../subscriptions/subscriptions.sql';
import '../subscriptions/test-clocks.sql';
import '../transaction-history/transaction-history.sql';
import '../tokens/token-three-ds.sql';
import '../tokens/transaction-tokens.sql';
import '../webhooks/webhooks.sql';
import '../outbox/outbox-writer';

export {
  registeredStatements,
  pg,
  type SqlStatement,
  type PgType,
  type RowOf,
  type ParamsOf,
} from './statement';
