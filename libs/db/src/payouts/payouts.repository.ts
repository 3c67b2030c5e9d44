import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import {
  approvedAtCreation,
  canChangeTransfer,
  payoutPaidPosting,
  payoutPosting,
  payoutReturnedPosting,
  TRANSFER_STATUSES,
  type TransferStatus,
  type PayoutDecision,
  type PayoutInput,
  type UncoveredLedger,
} from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { LedgerRepository } from '../ledger/ledger.repository';
import { ENSURE_LEDGER_ACCOUNTS } from '../ledger/ledger.sql';
import { ADVISORY_XACT_LOCK } from '../limits/limits.sql';
import { PrismaService } from '../prisma.service';
import {
  CHANGE_TRANSFER_STATUS,
  FIND_PAYOUT_BANK_ACCOUNT,
  FIND_PAYOUT_STORES,
  FIND_TRANSFER_FOR_BANK,
  LOCK_APPROVED_TRANSFERS,
  FIND_PAYOUT_BOOKS,
  FIND_PAYOUT_RUN,
  FIND_UNCOVERED_LEDGERS,
  INSERT_PAYOUT_RUN,
  INSERT_TRANSFER,
  LOCK_PAYOUT_ACCOUNTS,
} from './payouts.sql';

/** One merchant's book of a mode and currency. */
export interface PayoutBook {
  merchantId: string;
  mode: ProcessingMode;
  currency: string;
}

export interface PayoutBookRow extends PayoutBook {
  configuration: unknown;
  /** YYYY-MM-DD: the latest payout day a run was made for */
  lastPayoutDay: string | null;
}

/** A payout day of a book, and the period it pays. */
export interface PayoutRunRequest extends PayoutBook {
  /** YYYY-MM-DD in the merchant's time zone */
  payoutDay: string;
  /** the day's start: what became available by it is paid */
  cutoff: Date;
  /** the previous payout day's start (the transfer's `from`) */
  periodFrom: Date;
  minimum: PayoutInput['minimum'];
  startedBy: string;
}

/** A status change asked of a transfer, and why. */
export interface TransferChange {
  to: TransferStatus;
  reason: string | null;
  errorCode?: string | null;
  errorText?: string | null;
  by: string;
}

/** What a change did: made (from the status it was in), already so (a repeat), or refused. */
export type TransferChangeResult =
  | { outcome: 'changed'; from: TransferStatus }
  | { outcome: 'already'; status: TransferStatus }
  | { outcome: 'refused'; status: TransferStatus }
  | { outcome: 'not_found' };

/** A transfer as the bank is asked to pay it. */
export interface TransferForBank {
  id: string;
  merchantId: string;
  mode: ProcessingMode;
  currency: string;
  amount: bigint;
  status: TransferStatus;
  holderName: string;
  bankName: string;
  lastFour: string;
}

export type PayoutRunResult =
  { repeat: true } | { repeat: false; decision: PayoutDecision; transferId: string | null };

/**
 * Payouts (docs/ledger.md, "Payouts"; decision 0038). A run of one book's payout day is one
 * database transaction: under the book's advisory lock, it reads whether the day was run, locks
 * the merchant's available accounts and the payouts in transit, reads what is owed and not covered,
 * lets the caller's rule decide, and writes the run, the transfer with what it covers and its
 * payout posting together. A second replica waits for the lock and finds the day run; a process
 * killed before the commit leaves nothing, and the next run makes the day's payout. The primary key
 * of payout_runs and the unique key of transfers refuse a second one whatever writes.
 */
@Injectable()
export class PayoutsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly ledger: LedgerRepository,
  ) {}

  /** Up to `limit` books after `after` (keyset, in merchant, mode and currency order). */
  async books(after: PayoutBook | null, limit: number): Promise<PayoutBookRow[]> {
    const rows = await this.prisma.run(FIND_PAYOUT_BOOKS, {
      merchantId: after?.merchantId ?? '00000000-0000-0000-0000-000000000000',
      mode: after?.mode ?? '',
      currency: after?.currency ?? '',
      limit,
    });
    return rows.map((row) => ({
      merchantId: row.merchant_id,
      mode: row.mode,
      currency: row.currency,
      configuration: row.configuration,
      lastPayoutDay: row.last_payout_day,
    }));
  }

  /** Runs one book's payout day once (a repeat when it was run already). */
  run(request: PayoutRunRequest, decide: (input: PayoutInput) => PayoutDecision): Promise<PayoutRunResult> {
    const book = { merchantId: request.merchantId, mode: request.mode, currency: request.currency };
    return this.prisma.inTransaction(async (client) => {
      const db = { db: client };
      await this.prisma.run(
        ADVISORY_XACT_LOCK,
        { key: `payout:${book.merchantId}:${book.mode}:${book.currency}` },
        db,
      );
      const run = await this.prisma.run(FIND_PAYOUT_RUN, { ...book, payoutDay: request.payoutDay }, db);
      if (run.length > 0) return { repeat: true };
      await this.prisma.run(
        ENSURE_LEDGER_ACCOUNTS,
        {
          keys: [
            {
              mode: book.mode,
              kind: 'payouts_in_transit',
              currency: book.currency,
              merchant_id: null,
              store_id: null,
            },
          ],
        },
        db,
      );
      await this.prisma.run(LOCK_PAYOUT_ACCOUNTS, book, db);
      const uncovered: UncoveredLedger[] = (
        await this.prisma.run(FIND_UNCOVERED_LEDGERS, { ...book, cutoff: request.cutoff }, db)
      ).map((row) => ({ id: row.id, storeId: row.store_id, net: row.net }));
      const bank = await this.prisma.run(FIND_PAYOUT_BANK_ACCOUNT, book, db);
      const decision = decide({
        currency: book.currency,
        uncovered,
        minimum: request.minimum,
        bankAccountId: bank[0]?.id ?? null,
      });
      let transferId: string | null = null;
      if (decision.outcome === 'transfer') {
        transferId = randomUUID();
        await this.prisma.run(
          INSERT_TRANSFER,
          {
            id: transferId,
            ...book,
            amount: decision.amount,
            bankAccountId: decision.bankAccountId,
            status: 'created',
            payoutDay: request.payoutDay,
            periodFrom: request.periodFrom,
            periodTo: request.cutoff,
            startedBy: request.startedBy,
            ledgerIds: decision.ledgerIds,
          },
          db,
        );
        if (approvedAtCreation(book.mode))
          await this.prisma.run(
            CHANGE_TRANSFER_STATUS,
            {
              id: transferId,
              from: ['created'],
              to: 'approved',
              reason: 'test mode: approved at creation',
              errorCode: null,
              errorText: null,
              createdBy: request.startedBy,
            },
            db,
          );
        const posted = await this.ledger.postWithin(client, [
          {
            posting: payoutPosting({ transferId, ...book, stores: decision.stores }),
            createdBy: request.startedBy,
            causeEventId: null,
          },
        ]);
        if (posted.written.length !== 1) throw new Error(`transfer ${transferId}: its payout was not posted`);
      }
      await this.prisma.run(
        INSERT_PAYOUT_RUN,
        {
          ...book,
          payoutDay: request.payoutDay,
          outcome: decision.outcome,
          amount: decision.amount,
          transferId,
        },
        db,
      );
      return { repeat: false, decision, transferId };
    });
  }

  /**
   * Moves a transfer to `change.to` when its status allows it (libs/domain canChangeTransfer), with
   * the status change appended and, in the same transaction, the money's posting: paid moves it
   * out of transit (payout_paid), failed and canceled back to the stores' available balances
   * (payout_returned, the exact reverse of the payout). The same change again is a repeat.
   */
  changeStatus(transferId: string, change: TransferChange): Promise<TransferChangeResult> {
    return this.prisma.inTransaction((client) => this.changeStatusWithin(client, transferId, change));
  }

  /** changeStatus within the caller's transaction (the sender's, holding the transfer's lock). */
  async changeStatusWithin(
    client: PoolClient,
    transferId: string,
    change: TransferChange,
  ): Promise<TransferChangeResult> {
    const db = { db: client };
    const current = (await this.prisma.run(FIND_TRANSFER_FOR_BANK, { id: transferId }, db))[0];
    if (!current) return { outcome: 'not_found' };
    if (current.status === change.to) return { outcome: 'already', status: current.status };
    const from = TRANSFER_STATUSES.filter((status) => canChangeTransfer(status, change.to));
    const changed = await this.prisma.run(
      CHANGE_TRANSFER_STATUS,
      {
        id: transferId,
        from,
        to: change.to,
        reason: change.reason,
        errorCode: change.errorCode ?? null,
        errorText: change.errorText ?? null,
        createdBy: change.by,
      },
      db,
    );
    if (changed.length === 0) {
      const now = (await this.prisma.run(FIND_TRANSFER_FOR_BANK, { id: transferId }, db))[0];
      return now.status === change.to
        ? { outcome: 'already', status: now.status }
        : { outcome: 'refused', status: now.status };
    }
    const posting =
      change.to === 'paid'
        ? payoutPaidPosting
        : change.to === 'failed' || change.to === 'canceled'
          ? payoutReturnedPosting
          : null;
    if (posting) {
      const stores = (await this.prisma.run(FIND_PAYOUT_STORES, { transferId }, db)).map((row) => ({
        storeId: row.store_id,
        amount: row.amount,
      }));
      const fact = {
        transferId,
        mode: current.mode,
        merchantId: current.merchant_id,
        currency: current.currency,
        stores,
      };
      await this.ledger.postWithin(client, [
        { posting: posting(fact), createdBy: change.by, causeEventId: null },
      ]);
    }
    return { outcome: 'changed', from: changed[0].old_status };
  }

  /**
   * Hands approved transfers to the bank: each locked (another sender skips it), `send` called (the
   * bank keys the payout by the transfer's id: a transfer sent again after a crash is the same
   * payout), then marked processing, in one transaction per transfer. Resolves to how many were sent.
   */
  async sendApproved(
    modes: readonly ProcessingMode[],
    limit: number,
    send: (transfer: TransferForBank) => Promise<void>,
    by: string,
  ): Promise<number> {
    let sent = 0;
    for (;;) {
      const done = await this.prisma.inTransaction(async (client) => {
        const [locked] = await this.prisma.run(LOCK_APPROVED_TRANSFERS, { limit: 1, modes }, { db: client });
        if (!locked) return false;
        const row = (await this.prisma.run(FIND_TRANSFER_FOR_BANK, { id: locked.id }, { db: client }))[0];
        await send({
          id: row.id,
          merchantId: row.merchant_id,
          mode: row.mode,
          currency: row.currency,
          amount: row.amount,
          status: row.status,
          holderName: row.holder_name,
          bankName: row.bank_name,
          lastFour: row.last_four,
        });
        await this.changeStatusWithin(client, row.id, { to: 'processing', reason: 'sent to the bank', by });
        return true;
      });
      if (!done) return sent;
      sent += 1;
      if (sent >= limit) return sent;
    }
  }
}
