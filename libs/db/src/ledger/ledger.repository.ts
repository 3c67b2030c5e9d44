import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import {
  releaseLines,
  type LedgerAccountKind,
  type LedgerAccountRef,
  type LedgerPosting,
  type LedgerPostingKind,
} from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { PrismaService, type SqlDb } from '../prisma.service';
import {
  ADVANCE_LEDGER_CURSOR,
  ENSURE_LEDGER_ACCOUNTS,
  FIND_LEDGER_ACCOUNTS,
  FIND_POSTED,
  FIND_REFUND_FACTS,
  FIND_SALE_FACTS,
  FIND_STORE_BALANCES,
  FIND_DUE_MATURITIES,
  LOCK_ACCOUNTS_WITH_DUE_MATURITIES,
  LOCK_LEDGER_ACCOUNTS,
  LOCK_LEDGER_CURSOR,
  POST_LEDGER_TRANSACTIONS,
  READ_LEDGER_EVENTS,
  VERIFY_LEDGER,
  type LedgerAccountKey,
  type PostingLineRow,
  type PostingRow,
} from './ledger.sql';

export { LEDGER_EVENT_TYPES, type LedgerEventType } from './ledger.sql';

/** The cursor the poster reads the outbox with. */
export const OUTBOX_CURSOR = 'outbox';

export interface LedgerEvent {
  id: string;
  eventType: 'charge_finished' | 'refund_finished';
  aggregateId: string;
  createdOn: Date;
}

export interface SaleFactRow {
  id: string;
  status: string;
  mode: ProcessingMode;
  merchantId: string;
  storeId: string;
  chargedAmount: bigint | null;
  chargedCurrency: string | null;
  feeAmount: bigint | null;
  feeRatePpm: number | null;
  feeFlatAmount: bigint | null;
  merchantConfiguration: unknown;
  storeConfiguration: unknown;
}

export interface RefundFactRow {
  id: string;
  status: string;
  mode: ProcessingMode;
  merchantId: string;
  storeId: string;
  amount: bigint;
  currency: string;
}

/** A posting and who wrote it (the poster, or the operator's name for an adjustment). */
export interface PostingRequest {
  posting: LedgerPosting;
  createdBy: string;
  causeEventId: string | null;
}

/** A fact posted before with other amounts than now: never silently accepted (logged, alerted). */
export interface PostingConflict {
  kind: string;
  sourceType: string;
  sourceId: string;
  stored: { id: string; amount: bigint; feeAmount: bigint; currency: string };
  wanted: { amount: bigint; feeAmount: bigint; currency: string };
}

export interface PostResult {
  /** the transactions written now */
  written: { id: string; kind: LedgerPostingKind }[];
  /** postings whose key was posted already, with the same amounts: nothing to do */
  repeated: number;
  conflicts: PostingConflict[];
}

/** What the poster does within its cursor's transaction. */
export interface LedgerCursorWork {
  events(limit: number): Promise<LedgerEvent[]>;
  saleFacts(chargeIds: string[]): Promise<SaleFactRow[]>;
  refundFacts(refundIds: string[]): Promise<RefundFactRow[]>;
  post(requests: PostingRequest[]): Promise<PostResult>;
}

export interface LedgerVerification {
  unbalancedTransactions: number;
  emptyTransactions: number;
  unbalancedBooks: number;
  wrongBalances: number;
  wrongMaturities: number;
  entries: number;
  transactions: number;
}

export interface StoreBalance {
  currency: string;
  kind: LedgerAccountKind;
  balance: bigint;
  entryCount: bigint;
}

/**
 * The ledger's journal (docs/ledger.md). Holds no rule: postings come computed from libs/domain,
 * and the database checks every one of them. Account ids are remembered once read (an account is
 * never removed).
 */
@Injectable()
export class LedgerRepository {
  readonly #accounts = new Map<string, string>();

  constructor(private readonly prisma: PrismaService) {}

  /**
   * Runs `work` in one database transaction holding the cursor `name`, and advances the cursor past
   * the last event `work` read when it succeeds (with its postings, atomically). Resolves to null
   * without running `work` when another process holds the cursor.
   */
  async withCursor<T>(name: string, work: (cursor: LedgerCursorWork) => Promise<T>): Promise<T | null> {
    return this.prisma.inTransaction(async (client) => {
      const position = (await this.prisma.run(LOCK_LEDGER_CURSOR, { name }, { db: client }))[0];
      if (!position) return null;
      let last: { txid: string; sequence: bigint } | null = null;
      const result = await work({
        events: async (limit) => {
          const rows = await this.prisma.run(
            READ_LEDGER_EVENTS,
            { txid: last?.txid ?? position.txid, sequence: last?.sequence ?? position.sequence, limit },
            { db: client },
          );
          const end = rows.at(-1);
          if (end) last = { txid: end.txid, sequence: end.sequence };
          return rows.map((row) => ({
            id: row.id,
            eventType: row.event_type,
            aggregateId: row.aggregate_id,
            createdOn: row.created_on,
          }));
        },
        saleFacts: async (chargeIds) =>
          chargeIds.length === 0
            ? []
            : (await this.prisma.run(FIND_SALE_FACTS, { chargeIds }, { db: client })).map((row) => ({
                id: row.id,
                status: row.status,
                mode: row.mode,
                merchantId: row.merchant_id,
                storeId: row.store_id,
                chargedAmount: row.charged_amount,
                chargedCurrency: row.charged_currency,
                feeAmount: row.fee_amount,
                feeRatePpm: row.fee_rate_ppm,
                feeFlatAmount: row.fee_flat_amount,
                merchantConfiguration: row.merchant_configuration,
                storeConfiguration: row.store_configuration,
              })),
        refundFacts: async (refundIds) =>
          refundIds.length === 0
            ? []
            : (await this.prisma.run(FIND_REFUND_FACTS, { refundIds }, { db: client })).map((row) => ({
                id: row.id,
                status: row.status,
                mode: row.mode,
                merchantId: row.merchant_id,
                storeId: row.store_id,
                amount: row.amount,
                currency: row.currency,
              })),
        post: (requests) => this.#post(requests, client),
      });
      const end = last as { txid: string; sequence: bigint } | null;
      if (end) await this.prisma.run(ADVANCE_LEDGER_CURSOR, { name, ...end }, { db: client });
      return result;
    });
  }

  /**
   * Writes postings within the caller's database transaction (a payout with its transfer). The
   * caller locks the accounts they touch first, in id order, as every writer of the ledger does.
   */
  postWithin(client: PoolClient, requests: PostingRequest[]): Promise<PostResult> {
    return this.#post(requests, client);
  }

  /** Writes postings (an adjustment, a test's facts) in a transaction of their own. */
  post(requests: PostingRequest[]): Promise<PostResult> {
    return this.prisma.inTransaction((client) => this.#post(requests, client));
  }

  /**
   * Releases up to `limit` matured holdings of pending accounts (their instant of availability has
   * come): each moved to its store's available account, by one posting of libs/domain's
   * releaseLines. Their accounts are locked first (another release run waits, then finds nothing
   * left). Resolves to how many holdings were released.
   */
  release(limit: number): Promise<number> {
    return this.prisma.inTransaction(async (client) => {
      const locked = await this.prisma.run(LOCK_ACCOUNTS_WITH_DUE_MATURITIES, { limit }, { db: client });
      if (locked.length === 0) return 0;
      const accountIds = locked.map((row) => row.id);
      const due = await this.prisma.run(FIND_DUE_MATURITIES, { accountIds }, { db: client });
      if (due.length === 0) return 0;
      const requests: PostingRequest[] = due.map((holding) => {
        const owner = {
          mode: holding.mode,
          merchantId: holding.merchant_id,
          storeId: holding.store_id,
          currency: holding.currency,
        };
        return {
          posting: {
            kind: 'release',
            sourceType: 'ledger_maturity',
            sourceId: randomUUID(),
            ...owner,
            amount: -holding.amount,
            feeAmount: 0n,
            feeRatePpm: null,
            feeFlatAmount: null,
            availableOn: holding.available_on,
            note: null,
            lines: releaseLines(owner, holding.amount, holding.available_on),
          },
          createdBy: 'ledger-release',
          causeEventId: null,
        };
      });
      await this.#post(requests, client);
      return due.length;
    });
  }

  async storeBalances(storeId: string, mode: ProcessingMode, db?: SqlDb): Promise<StoreBalance[]> {
    return (await this.prisma.run(FIND_STORE_BALANCES, { storeId, mode }, { db })).map((row) => ({
      currency: row.currency,
      kind: row.kind,
      balance: row.balance,
      entryCount: row.entry_count,
    }));
  }

  /** Counts every broken invariant of the books (each must be 0), reading every entry once. */
  async verify(): Promise<LedgerVerification> {
    const row = (await this.prisma.run(VERIFY_LEDGER, {}))[0];
    return {
      unbalancedTransactions: Number(row.unbalanced_transactions),
      emptyTransactions: Number(row.empty_transactions),
      unbalancedBooks: Number(row.unbalanced_books),
      wrongBalances: Number(row.wrong_balances),
      wrongMaturities: Number(row.wrong_maturities),
      entries: Number(row.entries),
      transactions: Number(row.transactions),
    };
  }

  async #post(requests: PostingRequest[], client: PoolClient): Promise<PostResult> {
    // one request per key: the statement would otherwise give both the one transaction's entries
    const unique = [...new Map(requests.map((r) => [postingKey(r.posting), r])).values()];
    if (unique.length === 0) return { written: [], repeated: 0, conflicts: [] };
    const accountIds = await this.#accountIds(unique, client);
    const postings: PostingRow[] = unique.map(({ posting, createdBy, causeEventId }, ref) => ({
      ref,
      kind: posting.kind,
      source_type: posting.sourceType,
      source_id: posting.sourceId,
      mode: posting.mode as ProcessingMode,
      merchant_id: posting.merchantId,
      store_id: posting.storeId,
      currency: posting.currency,
      amount: String(posting.amount),
      fee_amount: String(posting.feeAmount),
      fee_rate_ppm: posting.feeRatePpm,
      fee_flat_amount: posting.feeFlatAmount === null ? null : String(posting.feeFlatAmount),
      available_on: posting.availableOn?.toISOString() ?? null,
      note: posting.note,
      created_by: createdBy,
      cause_event_id: causeEventId,
    }));
    const lines: PostingLineRow[] = unique.flatMap(({ posting }, ref) =>
      posting.lines.map((line) => ({
        ref,
        account_id: accountIds.get(accountKeyOf(posting, line.account))!,
        amount: String(line.amount),
        available_on: line.availableOn?.toISOString() ?? null,
      })),
    );
    const touched = [...new Set(lines.map((line) => line.account_id))].sort();
    await this.prisma.run(LOCK_LEDGER_ACCOUNTS, { accountIds: touched }, { db: client });
    const rows = await this.prisma.run(POST_LEDGER_TRANSACTIONS, { postings, lines }, { db: client });
    const written = rows.flatMap((row) =>
      row.id === null ? [] : [{ id: row.id, kind: unique[row.ref].posting.kind }],
    );
    const skipped = rows.filter((row) => row.id === null).map((row) => unique[row.ref].posting);
    if (skipped.length === 0) return { written, repeated: 0, conflicts: [] };
    // posted before: the same amounts are a repeat (a redelivery, a second replica), others a conflict
    const stored = await this.prisma.run(
      FIND_POSTED,
      {
        kinds: skipped.map((p) => p.kind),
        sourceTypes: skipped.map((p) => p.sourceType),
        sourceIds: skipped.map((p) => p.sourceId),
      },
      { db: client },
    );
    const byKey = new Map(stored.map((row) => [`${row.kind}:${row.source_type}:${row.source_id}`, row]));
    const conflicts: PostingConflict[] = [];
    for (const posting of skipped) {
      const row = byKey.get(postingKey(posting));
      if (!row) continue;
      if (
        row.amount !== posting.amount ||
        row.fee_amount !== posting.feeAmount ||
        row.currency !== posting.currency
      )
        conflicts.push({
          kind: posting.kind,
          sourceType: posting.sourceType,
          sourceId: posting.sourceId,
          stored: { id: row.id, amount: row.amount, feeAmount: row.fee_amount, currency: row.currency },
          wanted: { amount: posting.amount, feeAmount: posting.feeAmount, currency: posting.currency },
        });
    }
    return { written, repeated: skipped.length - conflicts.length, conflicts };
  }

  /** The id of every account the postings name, created when missing. */
  async #accountIds(requests: PostingRequest[], client: PoolClient): Promise<Map<string, string>> {
    const wanted = new Map<string, LedgerAccountKey>();
    for (const { posting } of requests)
      for (const line of posting.lines) {
        const key = accountKeyOf(posting, line.account);
        if (!this.#accounts.has(key)) wanted.set(key, accountRow(posting, line.account));
      }
    if (wanted.size > 0) {
      const keys = [...wanted.values()];
      let found = await this.prisma.run(FIND_LEDGER_ACCOUNTS, { keys }, { db: client });
      if (found.length < keys.length) {
        // a new store or currency: create its accounts (a concurrent creator's row is waited for by
        // the insert, and read by the next statement)
        await this.prisma.run(ENSURE_LEDGER_ACCOUNTS, { keys }, { db: client });
        found = await this.prisma.run(FIND_LEDGER_ACCOUNTS, { keys }, { db: client });
      }
      for (const row of found)
        this.#accounts.set(accountKey(row.mode, row.kind, row.currency, row.store_id), row.id);
    }
    return this.#accounts;
  }
}

function postingKey(posting: Pick<LedgerPosting, 'kind' | 'sourceType' | 'sourceId'>): string {
  return `${posting.kind}:${posting.sourceType}:${posting.sourceId}`;
}

function accountKey(mode: string, kind: string, currency: string, storeId: string | null): string {
  return `${mode}|${kind}|${currency}|${storeId ?? ''}`;
}

function accountKeyOf(posting: LedgerPosting, account: LedgerAccountRef): string {
  return accountKey(
    posting.mode,
    account.kind,
    posting.currency,
    'storeId' in account ? account.storeId : null,
  );
}

function accountRow(posting: LedgerPosting, account: LedgerAccountRef): LedgerAccountKey {
  return {
    mode: posting.mode as ProcessingMode,
    kind: account.kind,
    currency: posting.currency,
    merchant_id: 'merchantId' in account ? account.merchantId : null,
    store_id: 'storeId' in account ? account.storeId : null,
  };
}
