import { Injectable } from '@nestjs/common';
import type { Prisma, TransactionToken, TransactionTokenAlias } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { TransactionTokenAlias } from '../generated/prisma/client';

/** An alias with the transaction token it stands for. */
export type TransactionTokenAliasWithToken = TransactionTokenAlias & { transactionToken: TransactionToken };

export interface NewTransactionTokenAlias {
  id: string;
  transactionTokenId: string;
  merchantId: string;
  storeId: string;
  amount: bigint | null;
  currency: string | null;
  metadata: Prisma.InputJsonObject;
  validUntil: Date;
  createdOn: Date;
}

/**
 * Temporary aliases of transaction tokens (the SDK's TemporaryTokenAlias): one row per key. A key
 * names its alias in its store only; a deleted or expired alias is found by no read.
 */
@Injectable()
export class TransactionTokenAliasesRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(alias: NewTransactionTokenAlias): Promise<TransactionTokenAliasWithToken> {
    return this.prisma.transactionTokenAlias.create({ data: alias, include: { transactionToken: true } });
  }

  /** The store's alias `id` while it is valid at `now` and not deleted, with its token; else null. */
  findValid(
    scope: { merchantId: string; storeId: string },
    id: string,
    now: Date,
  ): Promise<TransactionTokenAliasWithToken | null> {
    return this.prisma.transactionTokenAlias.findFirst({
      where: { id, ...scope, deletedOn: null, validUntil: { gt: now } },
      include: { transactionToken: true },
    });
  }

  /** Deletes the store's alias `id` if it is still valid at `now`; false when there was none to delete. */
  async delete(scope: { merchantId: string; storeId: string }, id: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.transactionTokenAlias.updateMany({
      where: { id, ...scope, deletedOn: null, validUntil: { gt: now } },
      data: { deletedOn: now },
    });
    return count === 1;
  }
}
