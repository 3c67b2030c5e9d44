import type { PayoutDecision, TransferStatus } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { transferChangedSql, transferCreatedSql } from '../outbox/event-sql';
import { outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';

/**
 * The payout engine's statements (docs/ledger.md, "Payouts"; decision 0038). The keys that make a
 * payout happen once are the database's (migration 20261202100000_payouts): one payout run and one
 * transfer per merchant, mode, currency and payout day.
 */

type PayoutOutcome = PayoutDecision['outcome'];

/**
 * The books a payout may be owed from: each merchant's modes and currencies that have a store's
 * available account (test and live; live_test books are never paid out), with the merchant's
 * configuration and the latest payout day run, after a keyset position.
 */
export const FIND_PAYOUT_BOOKS = defineStatement({
  name: 'payouts_find_books',
  params: { merchantId: pg.uuid, mode: pg.text, currency: pg.text, limit: pg.int4 },
  columns: {
    merchant_id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    currency: pg.bpchar,
    configuration: pg.jsonb<unknown>(),
    last_payout_day: pg.nullable(pg.text),
  },
  text: (p) => `
    SELECT b.merchant_id::text AS merchant_id, b.mode::text AS mode, b.currency, m.configuration,
           (SELECT max(r.payout_day)::text FROM payout_runs r
             WHERE r.merchant_id = b.merchant_id AND r.mode = b.mode AND r.currency = b.currency)
             AS last_payout_day
      FROM (SELECT DISTINCT merchant_id, mode, currency FROM ledger_accounts
             WHERE kind = 'store_available' AND mode IN ('test', 'live')
               AND (merchant_id, mode::text, currency) > (${p.merchantId}, ${p.mode}, ${p.currency})) b
      JOIN merchants m ON m.id = b.merchant_id
     ORDER BY b.merchant_id, b.mode::text, b.currency
     LIMIT ${p.limit}`,
});

/** The run of a payout day, if one was made. */
export const FIND_PAYOUT_RUN = defineStatement({
  name: 'payouts_find_run',
  params: {
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    currency: pg.bpchar,
    payoutDay: pg.date,
  },
  columns: { outcome: pg.textOf<PayoutOutcome>(), transfer_id: pg.nullable(pg.text) },
  text: (p) => `
    SELECT outcome::text AS outcome, transfer_id::text AS transfer_id FROM payout_runs
     WHERE merchant_id = ${p.merchantId} AND mode = ${p.mode} AND currency = ${p.currency}
       AND payout_day = ${p.payoutDay}`,
});

/**
 * A merchant's available accounts of a book and the platform's payouts in transit, locked in id
 * order (decision 0023's rule; the posters lock the same way): no posting moves their money while
 * the run reads what it covers.
 */
export const LOCK_PAYOUT_ACCOUNTS = defineStatement({
  name: 'payouts_lock_accounts',
  params: { merchantId: pg.uuid, mode: pg.enum<ProcessingMode>('processing_mode'), currency: pg.bpchar },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text AS id FROM ledger_accounts
     WHERE mode = ${p.mode} AND currency = ${p.currency}
       AND ((kind = 'store_available' AND merchant_id = ${p.merchantId})
            OR (kind = 'payouts_in_transit' AND store_id IS NULL))
     ORDER BY id
       FOR UPDATE`,
});

/**
 * What a payout day owes a merchant in a book: the ledger transactions not covered by a transfer
 * that is still paying them (failed and canceled ones gave their money back), sales that became
 * available by the day's start, refunds and adjustments posted before it. Each with what it owes
 * its store (a sale's gross less its fee). The kinds are compared as text, so that the posting
 * key's index (kind first) cannot serve them: on statistics taken while the books were small, the
 * planner ANDed the merchant's index with every sale of every merchant in that index, once per run
 * (26 ms a run at 270,000 sales; bench:ledger's payout run).
 */
export const FIND_UNCOVERED_LEDGERS = defineStatement({
  name: 'payouts_find_uncovered_ledgers',
  params: {
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    currency: pg.bpchar,
    cutoff: pg.timestamptz,
  },
  columns: { id: pg.text, store_id: pg.text, net: pg.int8 },
  text: (p) => `
    SELECT t.id::text AS id, t.store_id::text AS store_id, t.amount - t.fee_amount AS net
      FROM ledger_transactions t
     WHERE t.merchant_id = ${p.merchantId} AND t.mode = ${p.mode} AND t.currency = ${p.currency}
       AND t.kind::text IN ('sale', 'refund', 'adjustment')
       AND CASE WHEN t.kind = 'sale' THEN t.available_on <= ${p.cutoff} ELSE t.created_on < ${p.cutoff} END
       AND NOT EXISTS (SELECT 1 FROM transfer_ledgers tl JOIN transfers tr ON tr.id = tl.transfer_id
                        WHERE tl.ledger_transaction_id = t.id AND tr.status NOT IN ('failed', 'canceled'))
     ORDER BY t.id`,
});

/** Where a currency's payouts go: its primary account, once verified. */
export const FIND_PAYOUT_BANK_ACCOUNT = defineStatement({
  name: 'payouts_find_bank_account',
  params: { merchantId: pg.uuid, mode: pg.enum<ProcessingMode>('processing_mode'), currency: pg.bpchar },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text AS id FROM bank_accounts
     WHERE merchant_id = ${p.merchantId} AND mode = ${p.mode} AND currency = ${p.currency}
       AND "primary" AND deleted_on IS NULL AND status = 'verified'`,
});

/** The run's claim of its payout day, with what it decided (the primary key refuses a second). */
export const INSERT_PAYOUT_RUN = defineStatement({
  name: 'payouts_insert_run',
  params: {
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    currency: pg.bpchar,
    payoutDay: pg.date,
    outcome: pg.enum<PayoutOutcome>('payout_run_outcome'),
    amount: pg.int8,
    transferId: pg.nullable(pg.uuid),
  },
  columns: {},
  text: (p) => `
    INSERT INTO payout_runs (merchant_id, mode, currency, payout_day, outcome, amount, transfer_id)
    VALUES (${p.merchantId}, ${p.mode}, ${p.currency}, ${p.payoutDay}, ${p.outcome}, ${p.amount}, ${p.transferId})`,
});

/** A transfer with what it covers and its transfer_created event, in one statement. */
export const INSERT_TRANSFER = defineStatement({
  name: 'payouts_insert_transfer',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    currency: pg.bpchar,
    amount: pg.int8,
    bankAccountId: pg.uuid,
    status: pg.enum<TransferStatus>('transfer_status'),
    payoutDay: pg.date,
    periodFrom: pg.timestamptz,
    periodTo: pg.timestamptz,
    startedBy: pg.text,
    ledgerIds: pg.array(pg.uuid),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH transfer AS (
      INSERT INTO transfers (id, merchant_id, mode, currency, amount, bank_account_id, status, payout_day,
                             period_from, period_to, started_by)
      VALUES (${p.id}, ${p.merchantId}, ${p.mode}, ${p.currency}, ${p.amount}, ${p.bankAccountId}, ${p.status},
              ${p.payoutDay}, ${p.periodFrom}, ${p.periodTo}, ${p.startedBy})
      RETURNING id, merchant_id, status
    ),
    covered AS (
      INSERT INTO transfer_ledgers (transfer_id, ledger_transaction_id)
      SELECT transfer.id, l.id FROM transfer, unnest(${p.ledgerIds}) AS l(id) ORDER BY l.id
      RETURNING 1
    ),
    announced AS (
      ${outboxInsertFrom('transfer', {
        aggregateType: 'transfer',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'NULL::uuid',
        event: transferCreatedSql(),
        correlationId: 'NULL::text',
      })}
      RETURNING 1
    )
    SELECT id::text AS id FROM transfer`,
});

/**
 * A transfer's status change, appended with its reason and announced (transfer_updated, or
 * transfer_finalized for a status that ends it) in the same statement, when the transfer is in one
 * of the statuses it may change from (no row: it is not, the change is refused).
 */
export const CHANGE_TRANSFER_STATUS = defineStatement({
  name: 'payouts_change_transfer_status',
  params: {
    id: pg.uuid,
    from: pg.array(pg.text),
    to: pg.enum<TransferStatus>('transfer_status'),
    reason: pg.nullable(pg.text),
    errorCode: pg.nullable(pg.text),
    errorText: pg.nullable(pg.text),
    createdBy: pg.text,
  },
  columns: { old_status: pg.textOf<TransferStatus>() },
  text: (p) => `
    WITH old AS (
      SELECT id, merchant_id, status FROM transfers
       WHERE id = ${p.id} AND status::text = ANY(${p.from}) FOR UPDATE
    ),
    changed AS (
      UPDATE transfers t SET status = ${p.to}, updated_on = now(),
             error_code = coalesce(${p.errorCode}, t.error_code), error_text = coalesce(${p.errorText}, t.error_text)
        FROM old WHERE t.id = old.id
      RETURNING t.id
    ),
    appended AS (
      INSERT INTO transfer_status_changes (transfer_id, merchant_id, old_status, new_status, reason, created_by)
      SELECT old.id, old.merchant_id, old.status, ${p.to}, ${p.reason}, ${p.createdBy} FROM old
      RETURNING 1
    ),
    announced AS (
      ${outboxInsertFrom('old', {
        aggregateType: 'transfer',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'NULL::uuid',
        event: transferChangedSql(p.to),
        correlationId: 'NULL::text',
      })}
      RETURNING 1
    )
    SELECT status::text AS old_status FROM old`,
});

/** What a transfer's payout took from each store (its posting's store lines). */
export const FIND_PAYOUT_STORES = defineStatement({
  name: 'payouts_find_payout_stores',
  params: { transferId: pg.uuid },
  columns: { store_id: pg.text, amount: pg.int8 },
  text: (p) => `
    SELECT a.store_id::text AS store_id, e.amount
      FROM ledger_transactions t
      JOIN ledger_entries e ON e.transaction_id = t.id
      JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'store_available'
     WHERE t.kind = 'payout' AND t.source_type = 'transfer' AND t.source_id = ${p.transferId}
     ORDER BY a.store_id`,
});

/** A transfer as the bank sender and the settlement read it. */
export const FIND_TRANSFER_FOR_BANK = defineStatement({
  name: 'payouts_find_transfer_for_bank',
  params: { id: pg.uuid },
  columns: {
    id: pg.text,
    merchant_id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    currency: pg.bpchar,
    amount: pg.int8,
    status: pg.textOf<TransferStatus>(),
    bank_account_id: pg.text,
    holder_name: pg.text,
    bank_name: pg.text,
    last_four: pg.text,
  },
  text: (p) => `
    SELECT t.id::text AS id, t.merchant_id::text AS merchant_id, t.mode::text AS mode, t.currency, t.amount,
           t.status::text AS status, t.bank_account_id::text AS bank_account_id, b.holder_name, b.bank_name,
           b.last_four
      FROM transfers t JOIN bank_accounts b ON b.id = t.bank_account_id
     WHERE t.id = ${p.id}`,
});

/**
 * Approved transfers to send to the bank, locked (another sender skips them): the sender holds the
 * lock while it hands each one to the bank, then marks it processing in the same transaction.
 */
export const LOCK_APPROVED_TRANSFERS = defineStatement({
  name: 'payouts_lock_approved_transfers',
  params: { limit: pg.int4, modes: pg.array(pg.text) },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text AS id FROM transfers WHERE status = 'approved' AND mode::text = ANY(${p.modes})
     ORDER BY created_on, id LIMIT ${p.limit}
       FOR UPDATE SKIP LOCKED`,
});
