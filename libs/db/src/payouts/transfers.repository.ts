import { Injectable } from '@nestjs/common';
import type { PageRequest } from '@kessai/domain';
import type { LedgerTransaction, Prisma, Transfer, TransferStatusChange } from '../generated/prisma/client';
import { listPage } from '../keyset';
import { PrismaService } from '../prisma.service';

export type { Transfer, TransferStatusChange } from '../generated/prisma/client';

/** Whose transfers: a merchant's, in one mode. */
export interface TransferOwner {
  merchantId: string;
  mode: 'test' | 'live';
}

export interface TransferFilters {
  currency?: string;
  status?: Transfer['status'];
  startedBy?: string;
}

export interface LedgerFilters {
  currency?: string;
  from?: Date;
  to?: Date;
  min?: bigint;
  max?: bigint;
}

export type TransferWithMerchant = Transfer & { merchant: { name: string } };

/** A ledger row as the merchant reads it, with the transfer that pays it (if one does). */
export type LedgerRow = LedgerTransaction & { transferId: string | null };

/** The kinds the merchant reads as its ledgers (the SDK's origins charge, refund, manual). */
const LEDGER_KINDS = ['sale', 'refund', 'adjustment'] as const;

/**
 * Transfers and the ledgers they pay, as the merchant reads them (the SDK's transfers.* and
 * ledgers.*): its own, in its credential's mode. The writes are PayoutsRepository's.
 */
@Injectable()
export class TransfersRepository {
  constructor(private readonly prisma: PrismaService) {}

  async list(
    owner: TransferOwner,
    page: PageRequest,
    filters: TransferFilters,
  ): Promise<{ rows: TransferWithMerchant[]; totalHits: number | null }> {
    const scope: Prisma.TransferWhereInput = {
      merchantId: owner.merchantId,
      mode: owner.mode,
      ...(filters.currency ? { currency: filters.currency } : {}),
      ...(filters.status ? { status: filters.status } : {}),
      ...(filters.startedBy ? { startedBy: filters.startedBy } : {}),
    };
    const rows = await listPage(page, scope, {
      findCursor: (where) => this.prisma.transfer.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) =>
        this.prisma.transfer.findMany({ ...args, include: { merchant: { select: { name: true } } } }),
    });
    const totalHits = page.cursor ? null : await this.prisma.transfer.count({ where: scope });
    return { rows, totalHits };
  }

  find(owner: TransferOwner, id: string): Promise<Transfer | null> {
    return this.prisma.transfer.findFirst({ where: { id, merchantId: owner.merchantId, mode: owner.mode } });
  }

  /** A transfer of the merchant's, whatever its mode (a webhook's data: the event names no mode). */
  findOfMerchant(merchantId: string, id: string): Promise<Transfer | null> {
    return this.prisma.transfer.findFirst({ where: { id, merchantId } });
  }

  statusChanges(transferId: string, page: PageRequest): Promise<TransferStatusChange[]> {
    return listPage(
      page,
      { transferId },
      {
        findCursor: (where) =>
          this.prisma.transferStatusChange.findFirst({ where, select: { id: true, createdOn: true } }),
        findMany: (args) => this.prisma.transferStatusChange.findMany(args),
      },
    );
  }

  async ledgersOf(
    owner: TransferOwner,
    transferId: string,
    page: PageRequest,
    filters: LedgerFilters,
  ): Promise<LedgerRow[]> {
    const scope: Prisma.LedgerTransactionWhereInput = {
      merchantId: owner.merchantId,
      mode: owner.mode,
      kind: { in: [...LEDGER_KINDS] },
      transfers: { some: { transferId } },
      ...(filters.currency ? { currency: filters.currency } : {}),
      ...(filters.from || filters.to
        ? {
            createdOn: {
              ...(filters.from ? { gte: filters.from } : {}),
              ...(filters.to ? { lt: filters.to } : {}),
            },
          }
        : {}),
      ...(filters.min !== undefined || filters.max !== undefined
        ? {
            amount: {
              ...(filters.min !== undefined ? { gte: filters.min } : {}),
              ...(filters.max !== undefined ? { lte: filters.max } : {}),
            },
          }
        : {}),
    };
    const rows = await listPage(page, scope, {
      findCursor: (where) =>
        this.prisma.ledgerTransaction.findFirst({ where, select: { id: true, createdOn: true } }),
      findMany: (args) => this.prisma.ledgerTransaction.findMany(args),
    });
    return rows.map((row) => ({ ...row, transferId }));
  }

  async findLedger(owner: TransferOwner, id: string): Promise<LedgerRow | null> {
    const row = await this.prisma.ledgerTransaction.findFirst({
      where: { id, merchantId: owner.merchantId, mode: owner.mode, kind: { in: [...LEDGER_KINDS] } },
      include: {
        transfers: {
          where: { transfer: { status: { notIn: ['failed', 'canceled'] } } },
          select: { transferId: true },
        },
      },
    });
    if (!row) return null;
    const { transfers, ...ledger } = row;
    return { ...ledger, transferId: transfers[0]?.transferId ?? null };
  }

  /** Transfers for the operator, newest first: every merchant's, or one's, of any mode. */
  listForOperator(filters: {
    merchantId?: string;
    mode?: Transfer['mode'];
    status?: Transfer['status'];
    limit: number;
  }): Promise<(Transfer & { bankAccount: { status: string; deletedOn: Date | null; lastFour: string } })[]> {
    return this.prisma.transfer.findMany({
      where: {
        ...(filters.merchantId ? { merchantId: filters.merchantId } : {}),
        ...(filters.mode ? { mode: filters.mode } : {}),
        ...(filters.status ? { status: filters.status } : {}),
      },
      include: { bankAccount: { select: { status: true, deletedOn: true, lastFour: true } } },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
      take: filters.limit,
    });
  }

  /** One transfer with its bank account's standing, for the operator's approval. */
  findForOperator(id: string) {
    return this.prisma.transfer.findUnique({
      where: { id },
      include: { bankAccount: { select: { status: true, deletedOn: true, lastFour: true } } },
    });
  }
}
