/**
 * The home of libs/db's plain SQL: one module per aggregate, each statement with its parameter and
 * column types (statement.ts). Importing this registers them all (the contract test prepares each).
 */
import './app-tokens.sql';
import './captures.sql';
import './card-vault.sql';
import './charge-outcomes.sql';
import './charges.sql';
import './checkout-links.sql';
import './deferred-payments.sql';
import './idempotency-records.sql';
import './limits.sql';
import './outbox.sql';
import './refunds-cancels.sql';
import './stores.sql';
import './subscription-batches.sql';
import './subscription-engine.sql';
import './subscriptions.sql';
import './test-clocks.sql';
import './transaction-history.sql';
import './token-three-ds.sql';
import './transaction-tokens.sql';
import './webhooks.sql';
import '../outbox/outbox-writer';

export {
  registeredStatements,
  pg,
  type SqlStatement,
  type PgType,
  type RowOf,
  type ParamsOf,
} from './statement';
