import { Injectable } from '@nestjs/common';
import type { AppToken, AppTokenScope, ProcessingMode } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export interface NewAppToken {
  id: string;
  merchantId: string;
  storeId: string | null;
  scope: AppTokenScope;
  mode: ProcessingMode;
  domains: string[];
  secretHash: string;
  version: number;
}

@Injectable()
export class AppTokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  findById(id: string): Promise<AppToken | null> {
    return this.prisma.appToken.findUnique({ where: { id } });
  }

  create(token: NewAppToken): Promise<AppToken> {
    return this.prisma.appToken.create({ data: token });
  }

  listForMerchant(merchantId: string, storeId?: string | null): Promise<AppToken[]> {
    return this.prisma.appToken.findMany({
      where: { merchantId, ...(storeId !== undefined ? { storeId } : {}) },
      orderBy: [{ createdOn: 'desc' }, { id: 'desc' }],
    });
  }

  /** Revokes once; revoking again keeps the first revocation time. */
  async revoke(id: string, at = new Date()): Promise<AppToken | null> {
    await this.prisma.appToken.updateMany({ where: { id, revokedOn: null }, data: { revokedOn: at } });
    return this.findById(id);
  }
}
