import { Injectable } from '@nestjs/common';
import { ConflictError } from '@kessai/domain';
import type { Merchant, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

/** How many times a configuration change is retried when another change overtook its read. */
const CONFIGURATION_UPDATE_ATTEMPTS = 5;

@Injectable()
export class MerchantsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findById(id: string): Promise<Merchant | null> {
    return this.prisma.merchant.findUnique({ where: { id } });
  }

  findByEmail(email: string): Promise<Merchant | null> {
    return this.prisma.merchant.findUnique({ where: { email } });
  }

  create(input: { name: string; email: string; verified?: boolean }): Promise<Merchant> {
    return this.prisma.merchant.create({ data: input });
  }

  /**
   * Replaces a merchant's stored configuration with `change(stored)`, never over a change made since
   * it was read (the update is conditional on the configuration read; retried on the fresh row);
   * null for an unknown merchant.
   */
  async updateConfiguration(
    id: string,
    change: (stored: Prisma.JsonValue) => Prisma.InputJsonObject,
  ): Promise<Merchant | null> {
    for (let attempt = 1; ; attempt++) {
      const merchant = await this.findById(id);
      if (!merchant) return null;
      const { count } = await this.prisma.merchant.updateMany({
        where: { id, configuration: { equals: merchant.configuration as Prisma.InputJsonValue } },
        data: { configuration: change(merchant.configuration) },
      });
      if (count === 1) return this.findById(id);
      if (attempt >= CONFIGURATION_UPDATE_ATTEMPTS) throw new ConflictError('CONFLICTED');
    }
  }

  setPciDssCompliant(id: string, compliant: boolean): Promise<Merchant> {
    return this.prisma.merchant.update({ where: { id }, data: { pciDssCompliant: compliant } });
  }

  setVerified(id: string, verified: boolean): Promise<Merchant> {
    return this.prisma.merchant.update({ where: { id }, data: { verified } });
  }
}
