/**
 * Every module of libs/db that defines plain SQL statements (each beside its repository, one per
 * aggregate; the idiom is sql/statement.ts). Importing this registers them all, so that the contract
 * test (test/sql-statements.e2e-spec.ts) prepares each.
 */
import './accounts/app-tokens.sql';
import './audit/console-audit.sql';
import './charges/capture-outcomes.sql';
import './charges/captures.sql';
import './charges/charge-outcomes.sql';
import './charges/charge-sweeps.sql';
import './charges/charges.sql';
import './charges/deferred-payments.sql';
import './charges/processor-failover.sql';
import './checkout/checkout-links.sql';
import './checkout/payment-mails.sql';
import './idempotency/idempotency-records.sql';
import './ledger/ledger.sql';
import './limits/limits.sql';
import './outbox/outbox-writer';
import './outbox/outbox.sql';
import './overview/payment-overview.sql';
import './payouts/payouts.sql';
import './refunds-cancels/refunds-cancels.sql';
import './stores/stores.sql';
import './subscriptions/subscription-batches.sql';
import './subscriptions/subscription-engine.sql';
import './subscriptions/subscriptions.sql';
import './subscriptions/test-clocks.sql';
import './tokens/card-vault.sql';
import './tokens/token-cvv-authorize.sql';
import './tokens/token-three-ds.sql';
import './tokens/transaction-tokens.sql';
import './transaction-history/transaction-history.sql';
import './webhooks/webhooks.sql';
