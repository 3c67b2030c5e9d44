import { Injectable } from '@nestjs/common';
import type { PageRequest, PrimaryPlan } from '@kessai/domain';
import type { BankAccount, BankAccountStatus, Prisma } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { ADVISORY_XACT_LOCK } from '../limits/limits.sql';
import { PrismaService } from '../prisma.service';

export type { BankAccount } from '../generated/prisma/client';

/** Whose accounts: a merchant's, in one mode (test accounts take test payouts, live ones live). */
export interface BankAccountOwner {
  merchantId: string;
  mode: 'test' | 'live';
}

/** A new row: every column but the timestamps; `id` chosen by the caller (the cipher binds it). */
export type NewBankAccount = Omit<BankAccount, 'createdOn' | 'updatedOn' | 'deletedOn' | 'primary'>;

/** The columns a change may write (the encrypted number and its fingerprint together). */
export type BankAccountChanges = Partial<
  Omit<BankAccount, 'id' | 'merchantId' | 'mode' | 'createdOn' | 'updatedOn' | 'deletedOn' | 'primary'>
>;

/** Waiting for the owner's lock is part of the transaction: a burst of writes queues behind it. */
const LOCKED_TRANSACTION = { maxWait: 10_000, timeout: 15_000 } as const;

const held = (owner: BankAccountOwner) => ({
  merchantId: owner.merchantId,
  mode: owner.mode,
  deletedOn: null,
});

/**
 * Bank accounts (docs/ledger.md, "Bank accounts"). Every write of one owner's accounts runs in one
 * transaction under that owner's advisory lock, reading the accounts held and letting the caller's
 * rule (libs/domain bank-accounts.ts) decide from them: the rules see the accounts as no other
 * writer is changing them. The partial unique indexes of the migration refuse a second primary of
 * a currency or a second account of a number whatever writes, lock or not.
 */
@Injectable()
export class BankAccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Inserts `account` as `decide` says from the accounts held (primary, and which primary it demotes). */
  create(
    owner: BankAccountOwner,
    account: NewBankAccount,
    decide: (held: BankAccount[]) => PrimaryPlan,
  ): Promise<BankAccount> {
    return this.#underLock(owner, async (tx, accounts) => {
      const plan = decide(accounts);
      await demote(tx, plan);
      return tx.bankAccount.create({ data: { ...account, primary: plan.primary } });
    });
  }

  /** Changes one held account as `decide` says (null: no such account held). */
  update(
    owner: BankAccountOwner,
    id: string,
    changes: BankAccountChanges,
    decide: (held: BankAccount[], account: BankAccount) => PrimaryPlan,
  ): Promise<BankAccount | null> {
    return this.#underLock(owner, async (tx, accounts) => {
      const account = accounts.find((candidate) => candidate.id === id);
      if (!account) return null;
      const plan = decide(accounts, account);
      await demote(tx, plan);
      return tx.bankAccount.update({ where: { id }, data: { ...changes, primary: plan.primary } });
    });
  }

  /** Marks one held account deleted once `check` allows it (false: no such account held). */
  delete(
    owner: BankAccountOwner,
    id: string,
    check: (held: BankAccount[], account: BankAccount) => void,
  ): Promise<boolean> {
    return this.#underLock(owner, async (tx, accounts) => {
      const account = accounts.find((candidate) => candidate.id === id);
      if (!account) return false;
      check(accounts, account);
      await tx.bankAccount.update({ where: { id }, data: { primary: false, deletedOn: new Date() } });
      return true;
    });
  }

  find(owner: BankAccountOwner, id: string): Promise<BankAccount | null> {
    return this.prisma.bankAccount.findFirst({ where: { ...held(owner), id } });
  }

  /** The primary of `currency`, or of any currency when null (the oldest first). */
  findPrimaries(owner: BankAccountOwner, currency: string | null): Promise<BankAccount[]> {
    return this.prisma.bankAccount.findMany({
      where: { ...held(owner), primary: true, ...(currency !== null ? { currency } : {}) },
      orderBy: [{ createdOn: 'asc' }, { id: 'asc' }],
      take: 2,
    });
  }

  /** One page of the held accounts, newest first by default; `primary` filters when set. */
  list(owner: BankAccountOwner, page: PageRequest, primary?: boolean): Promise<BankAccount[]> {
    const scope = { ...held(owner), ...(primary !== undefined ? { primary } : {}) };
    return listPage(page, scope, {
      findCursor: (where) =>
        this.prisma.bankAccount.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.bankAccount.findMany(args),
    });
  }

  /**
   * The operator's verification outcome for a live account not deleted (null: none such). A test
   * account is verified at creation and is not the operator's to judge.
   */
  setStatus(id: string, status: BankAccountStatus): Promise<BankAccount | null> {
    return this.prisma.$transaction(async (tx) => {
      const account = await tx.bankAccount.findFirst({ where: { id, mode: 'live', deletedOn: null } });
      if (!account) return null;
      return tx.bankAccount.update({ where: { id }, data: { status } });
    });
  }

  /** The merchant's accounts of every mode, deleted ones too, for the operator (newest first). */
  listForOperator(merchantId: string): Promise<BankAccount[]> {
    return this.prisma.bankAccount.findMany({
      where: { merchantId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /** Up to `limit` accounts (deleted ones too) whose number another key than `activeKeyId` encrypted. */
  findToRotate(activeKeyId: string, limit: number): Promise<BankAccount[]> {
    return this.prisma.bankAccount.findMany({
      where: { keyId: { not: activeKeyId } },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /** Replaces the number's encryption of `old`; false when it changed since it was read. */
  async replaceEncryption(
    old: Pick<BankAccount, 'id' | 'keyId' | 'iv'>,
    next: Pick<BankAccount, 'keyId' | 'iv' | 'ciphertext' | 'authTag'>,
  ): Promise<boolean> {
    const { count } = await this.prisma.bankAccount.updateMany({
      where: { id: old.id, keyId: old.keyId, iv: { equals: old.iv } },
      data: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, authTag: next.authTag },
    });
    return count > 0;
  }

  /** How many account numbers (deleted accounts' too) each key encrypted. */
  async countByKey(): Promise<Record<string, number>> {
    const rows = await this.prisma.bankAccount.groupBy({ by: ['keyId'], _count: { _all: true } });
    return Object.fromEntries(rows.map((row) => [row.keyId, row._count._all]));
  }

  #underLock<T>(
    owner: BankAccountOwner,
    work: (tx: Prisma.TransactionClient, held: BankAccount[]) => Promise<T>,
  ): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await this.prisma.run(
        ADVISORY_XACT_LOCK,
        { key: `bank_accounts:${owner.merchantId}:${owner.mode}` },
        { db: tx },
      );
      const accounts = await tx.bankAccount.findMany({ where: held(owner) });
      return work(tx, accounts);
    }, LOCKED_TRANSACTION);
  }
}

/** The previous primary stops being one first: the unique index holds at every statement. */
async function demote(tx: Prisma.TransactionClient, plan: PrimaryPlan): Promise<void> {
  if (plan.demote !== null)
    await tx.bankAccount.update({ where: { id: plan.demote }, data: { primary: false } });
}
