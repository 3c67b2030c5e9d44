import { Injectable } from '@nestjs/common';
import type { ProcessorAccount, ProcessorAccountStatus } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { ProcessorAccount, ProcessorAccountStatus, ProcessorProvider } from '../generated/prisma/client';

/** A new row: every column but the status and the timestamps; `id` chosen by the caller (the cipher binds it). */
export type NewProcessorAccount = Omit<ProcessorAccount, 'status' | 'createdOn' | 'updatedOn'>;

/** The encrypted columns of an account's credentials. */
export type ProcessorAccountEncryption = Pick<ProcessorAccount, 'keyId' | 'iv' | 'ciphertext' | 'authTag'>;

/**
 * Processor accounts (docs/processors.md, "Processor accounts"; decision 0055): a merchant's
 * accounts at payment processors, their credentials encrypted (libs/vault
 * ProcessorCredentialsCipher). The operator's CLI writes them; the services calling processors
 * read the account a charge was routed to.
 */
@Injectable()
export class ProcessorAccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(account: NewProcessorAccount): Promise<ProcessorAccount> {
    return this.prisma.processorAccount.create({ data: account });
  }

  find(id: string): Promise<ProcessorAccount | null> {
    return this.prisma.processorAccount.findUnique({ where: { id } });
  }

  /** A merchant's accounts, newest first. */
  listForMerchant(merchantId: string): Promise<ProcessorAccount[]> {
    return this.prisma.processorAccount.findMany({
      where: { merchantId },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /** New credentials for an account (null: no such account). */
  async replaceCredentials(id: string, next: ProcessorAccountEncryption): Promise<ProcessorAccount | null> {
    const { count } = await this.prisma.processorAccount.updateMany({
      where: { id },
      data: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, authTag: next.authTag },
    });
    return count > 0 ? this.find(id) : null;
  }

  /** null: no such account. */
  async setStatus(id: string, status: ProcessorAccountStatus): Promise<ProcessorAccount | null> {
    const { count } = await this.prisma.processorAccount.updateMany({ where: { id }, data: { status } });
    return count > 0 ? this.find(id) : null;
  }

  /** Up to `limit` accounts whose credentials another key than `activeKeyId` encrypted (vault:rotate). */
  findToRotate(activeKeyId: string, limit: number): Promise<ProcessorAccount[]> {
    return this.prisma.processorAccount.findMany({
      where: { keyId: { not: activeKeyId } },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /**
   * The same credentials under another key (vault:rotate); false when they changed since `old` was
   * read (a rotation of the account's credentials meanwhile), which leaves them as they are.
   */
  async replaceEncryption(
    old: Pick<ProcessorAccount, 'id' | 'keyId' | 'iv'>,
    next: ProcessorAccountEncryption,
  ): Promise<boolean> {
    const { count } = await this.prisma.processorAccount.updateMany({
      where: { id: old.id, keyId: old.keyId, iv: { equals: old.iv } },
      data: { keyId: next.keyId, iv: next.iv, ciphertext: next.ciphertext, authTag: next.authTag },
    });
    return count > 0;
  }

  /** How many accounts' credentials each key encrypted. */
  async countByKey(): Promise<Record<string, number>> {
    const rows = await this.prisma.processorAccount.groupBy({ by: ['keyId'], _count: { _all: true } });
    return Object.fromEntries(rows.map((row) => [row.keyId, row._count._all]));
  }
}
