import { Injectable } from '@nestjs/common';
import type { Merchant } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

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

  setPciDssCompliant(id: string, compliant: boolean): Promise<Merchant> {
    return this.prisma.merchant.update({ where: { id }, data: { pciDssCompliant: compliant } });
  }
}
