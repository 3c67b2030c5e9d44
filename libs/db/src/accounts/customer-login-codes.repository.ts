import { Injectable } from '@nestjs/common';
import type { CustomerLoginCode } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { CustomerLoginCode } from '../generated/prisma/client';

/** Whose codes: a customer (a normalized email) of one store, in one mode. */
export interface CustomerLoginKey {
  merchantId: string;
  storeId: string;
  mode: 'test' | 'live';
  email: string;
}

export interface NewCustomerLoginCode extends CustomerLoginKey {
  id: string;
  codeHash: string;
  expiresOn: Date;
}

/** How a try of a code ended. */
export type CustomerCodeTry = 'accepted' | 'wrong' | 'spent';

/**
 * Customers' one-time login codes (decision 0058): one live code per customer of a store and mode
 * (a new one replaces the last), each try counted before it is compared, so that no number of
 * requests side by side tries a code more than its bound.
 */
@Injectable()
export class CustomerLoginCodesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Writes a new code and ends the customer's earlier unused ones, together. */
  async replace(code: NewCustomerLoginCode, now: Date): Promise<void> {
    const { id, codeHash, expiresOn, ...key } = code;
    await this.prisma.$transaction([
      this.prisma.customerLoginCode.updateMany({ where: { ...key, usedOn: null }, data: { usedOn: now } }),
      this.prisma.customerLoginCode.create({ data: { ...key, id, codeHash, expiresOn, createdOn: now } }),
    ]);
  }

  /** The customer's latest unused code, whether or not it is still valid; null without one. */
  findLatestUnused(key: CustomerLoginKey): Promise<CustomerLoginCode | null> {
    return this.prisma.customerLoginCode.findFirst({
      where: { ...key, usedOn: null },
      orderBy: { createdOn: 'desc' },
    });
  }

  /**
   * One try of code `id` with `codeHash`: counted first (only while the code is unused, unexpired
   * and under `maxAttempts` tries: else 'spent'), then the code redeemed if the hash is its own.
   */
  async tryCode(id: string, codeHash: string, maxAttempts: number, now: Date): Promise<CustomerCodeTry> {
    const counted = await this.prisma.customerLoginCode.updateMany({
      where: { id, usedOn: null, expiresOn: { gt: now }, attempts: { lt: maxAttempts } },
      data: { attempts: { increment: 1 } },
    });
    if (counted.count === 0) return 'spent';
    const redeemed = await this.prisma.customerLoginCode.updateMany({
      where: { id, usedOn: null, codeHash },
      data: { usedOn: now },
    });
    return redeemed.count === 1 ? 'accepted' : 'wrong';
  }
}
