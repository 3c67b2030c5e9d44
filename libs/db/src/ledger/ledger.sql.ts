import type { LedgerAccountKind, LedgerPostingKind } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg } from '../sql/statement';

/**
 * The ledger's statements (docs/ledger.md). The invariants are the database's own (the migration
 * 20261201194442_ledger): these statements write postings the domain computed, and the entries'
 * trigger checks and settles them at the end of each statement.
 */

/** The events the ledger posts from (the partial index outbox_events_ledger_idx lists the same). */
export const LEDGER_EVENT_TYPES = ['charge_finished', 'refund_finished'] as const;
export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];
const EVENT_TYPES = `('charge_finished', 'refund_finished')`;

/** The poster's cursor, locked for its transaction; no row when another poster holds it. */
export const LOCK_LEDGER_CURSOR = defineStatement({
  name: 'ledger_lock_cursor',
  params: { name: pg.text },
  columns: { txid: pg.text, sequence: pg.int8 },
  text: (p) => `
    SELECT txid, sequence FROM ledger_cursors WHERE name = ${p.name} FOR UPDATE SKIP LOCKED`,
});

export const ADVANCE_LEDGER_CURSOR = defineStatement({
  name: 'ledger_advance_cursor',
  params: { name: pg.text, txid: pg.text, sequence: pg.int8 },
  columns: {},
  text: (p) => `
    UPDATE ledger_cursors SET txid = ${p.txid}, sequence = ${p.sequence}, updated_on = now()
     WHERE name = ${p.name}`,
});

/**
 * The ledger's events after the cursor, in the order of the database transactions that wrote them,
 * of finished transactions only: below the oldest transaction still running when this statement
 * began (pg_snapshot_xmin), every transaction has committed or rolled back, so no event can still
 * appear behind the cursor. A transaction that runs long holds the poster back; it never makes it
 * skip an event (docs/ledger.md, "Posting").
 */
export const READ_LEDGER_EVENTS = defineStatement({
  name: 'ledger_read_events',
  params: { txid: pg.text, sequence: pg.int8, limit: pg.int4 },
  columns: {
    id: pg.text,
    event_type: pg.textOf<LedgerEventType>(),
    aggregate_id: pg.text,
    txid: pg.text,
    sequence: pg.int8,
    created_on: pg.timestamptz,
  },
  text: (p) => `
    SELECT id::text AS id, event_type, aggregate_id::text AS aggregate_id, txid::text AS txid,
           sequence, created_on
      FROM outbox_events
     WHERE event_type IN ${EVENT_TYPES}
       AND (txid, sequence) > (${p.txid}::xid8, ${p.sequence})
       AND txid < pg_snapshot_xmin(pg_current_snapshot())
     ORDER BY txid, sequence
     LIMIT ${p.limit}`,
});

/** Charges that may be sales, with what their posting needs (the configuration for availability). */
export const FIND_SALE_FACTS = defineStatement({
  name: 'ledger_find_sale_facts',
  params: { chargeIds: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    status: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    merchant_id: pg.text,
    store_id: pg.text,
    charged_amount: pg.nullable(pg.int8),
    charged_currency: pg.nullable(pg.bpchar),
    fee_amount: pg.nullable(pg.int8),
    fee_rate_ppm: pg.nullable(pg.int4),
    fee_flat_amount: pg.nullable(pg.int8),
    merchant_configuration: pg.jsonb<unknown>(),
    store_configuration: pg.jsonb<unknown>(),
  },
  text: (p) => `
    SELECT c.id::text AS id, c.status::text AS status, c.mode::text AS mode,
           c.merchant_id::text AS merchant_id, c.store_id::text AS store_id, c.charged_amount,
           c.charged_currency, c.fee_amount, c.fee_rate_ppm, c.fee_flat_amount,
           m.configuration AS merchant_configuration, s.configuration AS store_configuration
      FROM charges c JOIN stores s ON s.id = c.store_id JOIN merchants m ON m.id = c.merchant_id
     WHERE c.id = ANY(${p.chargeIds})`,
});

/** Refunds that may have given money back. */
export const FIND_REFUND_FACTS = defineStatement({
  name: 'ledger_find_refund_facts',
  params: { refundIds: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    status: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    merchant_id: pg.text,
    store_id: pg.text,
    amount: pg.int8,
    currency: pg.bpchar,
  },
  text: (p) => `
    SELECT id::text AS id, status::text AS status, mode::text AS mode, merchant_id::text AS merchant_id,
           store_id::text AS store_id, amount, currency
      FROM refunds WHERE id = ANY(${p.refundIds})`,
});

/** One account as a posting names it: its mode, kind, currency and (a store's) owner. */
export interface LedgerAccountKey {
  mode: ProcessingMode;
  kind: LedgerAccountKind;
  currency: string;
  merchant_id: string | null;
  store_id: string | null;
}

const ACCOUNT_KEYS = (keys: string) => `
  json_to_recordset(${keys}) AS k(mode processing_mode, kind ledger_account_kind, currency char(3),
                                  merchant_id uuid, store_id uuid)`;

/** Creates the accounts that do not exist yet (the partial unique indexes make it idempotent). */
export const ENSURE_LEDGER_ACCOUNTS = defineStatement({
  name: 'ledger_ensure_accounts',
  params: { keys: pg.json<LedgerAccountKey[]>() },
  columns: {},
  text: (p) => `
    INSERT INTO ledger_accounts (mode, kind, currency, merchant_id, store_id)
    SELECT mode, kind, currency, merchant_id, store_id FROM ${ACCOUNT_KEYS(p.keys)}
     ORDER BY mode, kind, currency, store_id
    ON CONFLICT DO NOTHING`,
});

export const FIND_LEDGER_ACCOUNTS = defineStatement({
  name: 'ledger_find_accounts',
  params: { keys: pg.json<LedgerAccountKey[]>() },
  columns: {
    id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    kind: pg.textOf<LedgerAccountKind>(),
    currency: pg.bpchar,
    store_id: pg.nullable(pg.text),
  },
  text: (p) => `
    SELECT a.id::text AS id, a.mode::text AS mode, a.kind::text AS kind, a.currency,
           a.store_id::text AS store_id
      FROM ${ACCOUNT_KEYS(p.keys)}
      JOIN ledger_accounts a ON a.mode = k.mode AND a.kind = k.kind AND a.currency = k.currency
                            AND a.store_id IS NOT DISTINCT FROM k.store_id`,
});

/**
 * The accounts a posting statement will write, locked in id order before it runs. Its entries'
 * foreign keys would otherwise take a KEY SHARE lock on each account as they are inserted, and the
 * entries' trigger then asks FOR UPDATE: two posters holding KEY SHARE on one account would each
 * wait for the other's (a deadlock the property test of the ledger found). Locked first, the second
 * poster waits here, holding nothing.
 */
export const LOCK_LEDGER_ACCOUNTS = defineStatement({
  name: 'ledger_lock_accounts',
  params: { accountIds: pg.array(pg.uuid) },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text AS id FROM ledger_accounts WHERE id = ANY(${p.accountIds}) ORDER BY id FOR UPDATE`,
});

/** A posting as the post statement reads it (amounts as text: JSON has no 64-bit integers). */
export interface PostingRow {
  ref: number;
  kind: LedgerPostingKind;
  source_type: string;
  source_id: string;
  mode: ProcessingMode;
  merchant_id: string;
  store_id: string | null;
  currency: string;
  amount: string;
  fee_amount: string;
  fee_rate_ppm: number | null;
  fee_flat_amount: string | null;
  available_on: string | null;
  note: string | null;
  created_by: string;
  cause_event_id: string | null;
}

export interface PostingLineRow {
  ref: number;
  account_id: string;
  amount: string;
  available_on: string | null;
}

/**
 * Two CTEs of the post statement: the refunds its `written` transactions post get their ledger_id,
 * locked in id order first (as every writer of several refunds locks them). A charge's ledger_id is
 * not written: it is read by the ledger's key (CHARGE_SELECT, decision 0080).
 */
function refundLedgerIds(): string {
  return `refunds_posted AS (
      SELECT r.id, w.id AS ledger_id FROM written w JOIN refunds r ON r.id = w.source_id
       WHERE w.kind = 'refund' AND w.source_type = 'refund'
       ORDER BY r.id FOR UPDATE OF r
    ),
    refunds_ledger_ids AS (
      UPDATE refunds t SET ledger_id = p.ledger_id FROM refunds_posted p WHERE t.id = p.id RETURNING 1
    )`;
}

/**
 * Writes postings with their entries, in one statement: each transaction unless its (kind, source)
 * is posted already (then nothing of it is written), and the entries of those written. A key being
 * written by another transaction is waited for: the one that commits first posts it. The entries'
 * trigger checks them and settles balances and maturities when the statement ends. Answers, per
 * posting, whether it was written; the caller compares the ones that were not with what is stored.
 */
export const POST_LEDGER_TRANSACTIONS = defineStatement({
  name: 'ledger_post',
  params: { postings: pg.json<PostingRow[]>(), lines: pg.json<PostingLineRow[]>() },
  columns: { ref: pg.int4, id: pg.nullable(pg.text) },
  text: (p) => `
    WITH input AS (
      SELECT * FROM json_to_recordset(${p.postings}) AS i(
        ref int, kind ledger_posting_kind, source_type text, source_id uuid, mode processing_mode,
        merchant_id uuid, store_id uuid, currency char(3), amount bigint, fee_amount bigint,
        fee_rate_ppm int, fee_flat_amount bigint, available_on timestamptz, note text,
        created_by text, cause_event_id uuid)
    ),
    written AS (
      INSERT INTO ledger_transactions (kind, source_type, source_id, mode, merchant_id, store_id,
                                       currency, amount, fee_amount, fee_rate_ppm, fee_flat_amount,
                                       available_on, note, created_by, cause_event_id)
      SELECT kind, source_type, source_id, mode, merchant_id, store_id, currency, amount, fee_amount,
             fee_rate_ppm, fee_flat_amount, available_on, note, created_by, cause_event_id
        -- in the keys' order, whatever the caller's: two posters writing some of the same facts
        -- wait on each other's keys in one order, never in a circle
        FROM input ORDER BY kind, source_type, source_id
      ON CONFLICT (kind, source_type, source_id) DO NOTHING
      RETURNING id, kind, source_type, source_id, currency
    ),
    posted AS (
      SELECT i.ref, w.id, w.currency FROM written w
        JOIN input i ON i.kind = w.kind AND i.source_type = w.source_type AND i.source_id = w.source_id
    ),
    entries AS (
      INSERT INTO ledger_entries (transaction_id, account_id, currency, amount, available_on)
      SELECT posted.id, l.account_id, posted.currency, l.amount, l.available_on
        FROM json_to_recordset(${p.lines}) AS l(ref int, account_id uuid, amount bigint, available_on timestamptz)
        JOIN posted ON posted.ref = l.ref
       ORDER BY l.account_id
      RETURNING 1
    ),
    -- ledger_id on a refund (decision 0052), with the posting; a charge's is read by the key (0080)
    ${refundLedgerIds()}
    SELECT i.ref, posted.id::text AS id FROM input i LEFT JOIN posted ON posted.ref = i.ref
     ORDER BY i.ref`,
});

/** What is stored under postings' keys: for the ones the post statement did not write. */
export const FIND_POSTED = defineStatement({
  name: 'ledger_find_posted',
  params: { kinds: pg.array(pg.text), sourceTypes: pg.array(pg.text), sourceIds: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    kind: pg.textOf<LedgerPostingKind>(),
    source_type: pg.text,
    source_id: pg.text,
    currency: pg.bpchar,
    amount: pg.int8,
    fee_amount: pg.int8,
  },
  text: (p) => `
    SELECT t.id::text AS id, t.kind::text AS kind, t.source_type, t.source_id::text AS source_id,
           t.currency, t.amount, t.fee_amount
      FROM unnest(${p.kinds}::ledger_posting_kind[], ${p.sourceTypes}, ${p.sourceIds}) AS k(kind, source_type, source_id)
      JOIN ledger_transactions t
        ON t.kind = k.kind AND t.source_type = k.source_type AND t.source_id = k.source_id`,
});

/**
 * The accounts holding matured pending money (its instant of availability has come), locked in id
 * order: the release then locks the holdings themselves. Accounts before maturities, as the
 * entries' trigger takes them when a sale is posted, so that a release and a sale never wait on each
 * other in a circle.
 */
export const LOCK_ACCOUNTS_WITH_DUE_MATURITIES = defineStatement({
  name: 'ledger_lock_accounts_with_due_maturities',
  params: { limit: pg.int4 },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text AS id FROM ledger_accounts
     WHERE id IN (SELECT account_id FROM ledger_maturities
                   WHERE amount <> 0 AND available_on <= now()
                   ORDER BY available_on LIMIT ${p.limit})
     ORDER BY id
       FOR UPDATE`,
});

/**
 * The matured holdings of locked accounts, as they are now (a sale posted meanwhile added to them),
 * with their account's owner. The release posts each one's amount back out of the pending account,
 * which brings the holding to zero in the same statement (the trigger).
 */
export const FIND_DUE_MATURITIES = defineStatement({
  name: 'ledger_find_due_maturities',
  params: { accountIds: pg.array(pg.uuid) },
  columns: {
    account_id: pg.text,
    available_on: pg.timestamptz,
    amount: pg.int8,
    mode: pg.textOf<ProcessingMode>(),
    currency: pg.bpchar,
    merchant_id: pg.text,
    store_id: pg.text,
  },
  text: (p) => `
    SELECT m.account_id::text AS account_id, m.available_on, m.amount, a.mode::text AS mode,
           a.currency, a.merchant_id::text AS merchant_id, a.store_id::text AS store_id
      FROM ledger_maturities m JOIN ledger_accounts a ON a.id = m.account_id
     WHERE m.account_id = ANY(${p.accountIds}) AND m.amount <> 0 AND m.available_on <= now()
     ORDER BY m.account_id, m.available_on`,
});

/** A store's accounts: one row each, whatever the number of their entries. */
export const FIND_STORE_BALANCES = defineStatement({
  name: 'ledger_find_store_balances',
  params: { storeId: pg.uuid, mode: pg.enum<ProcessingMode>('processing_mode') },
  columns: {
    kind: pg.textOf<LedgerAccountKind>(),
    currency: pg.bpchar,
    balance: pg.int8,
    entry_count: pg.int8,
  },
  text: (p) => `
    SELECT kind::text AS kind, currency, balance, entry_count FROM ledger_accounts
     WHERE store_id = ${p.storeId} AND mode = ${p.mode}
     ORDER BY currency, kind`,
});

/**
 * Every invariant of the books, counted (ledger:verify, and the periodic check's gauge): each must
 * be 0. Reads every entry once.
 */
export const VERIFY_LEDGER = defineStatement({
  name: 'ledger_verify',
  params: {},
  columns: {
    unbalanced_transactions: pg.int8,
    empty_transactions: pg.int8,
    unbalanced_books: pg.int8,
    wrong_balances: pg.int8,
    wrong_maturities: pg.int8,
    entries: pg.int8,
    transactions: pg.int8,
  },
  text: () => `
    WITH per_transaction AS (
      SELECT transaction_id, currency, sum(amount) AS total FROM ledger_entries GROUP BY 1, 2
    ),
    per_account AS (
      SELECT account_id, sum(amount) AS total, count(*) AS n FROM ledger_entries GROUP BY 1
    ),
    per_maturity AS (
      SELECT account_id, available_on, sum(amount) AS total FROM ledger_entries
       WHERE available_on IS NOT NULL GROUP BY 1, 2
    )
    SELECT
      (SELECT count(*) FROM per_transaction WHERE total <> 0) AS unbalanced_transactions,
      (SELECT count(*) FROM ledger_transactions t
        WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id)) AS empty_transactions,
      (SELECT count(*) FROM (SELECT mode, currency FROM ledger_accounts GROUP BY 1, 2
                              HAVING sum(balance) <> 0) b) AS unbalanced_books,
      (SELECT count(*) FROM ledger_accounts a LEFT JOIN per_account e ON e.account_id = a.id
        WHERE a.balance <> coalesce(e.total, 0) OR a.entry_count <> coalesce(e.n, 0)) AS wrong_balances,
      (SELECT count(*) FROM per_maturity e
         FULL JOIN ledger_maturities m ON m.account_id = e.account_id AND m.available_on = e.available_on
        WHERE coalesce(m.amount, 0) <> coalesce(e.total, 0)) AS wrong_maturities,
      (SELECT count(*) FROM ledger_entries) AS entries,
      (SELECT count(*) FROM ledger_transactions) AS transactions`,
});
