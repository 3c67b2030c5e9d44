import { Injectable } from '@nestjs/common';
import type { LoginSession, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

@Injectable()
export class LoginSessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(session: { userId: string; merchantId: string; expiresOn: Date }): Promise<LoginSession> {
    return this.prisma.loginSession.create({ data: session });
  }

  findById(id: string): Promise<LoginSession | null> {
    return this.prisma.loginSession.findUnique({ where: { id } });
  }

  /** Revokes once; revoking again keeps the first revocation time. */
  async revoke(id: string, at: Date): Promise<void> {
    await this.prisma.loginSession.updateMany({ where: { id, revokedOn: null }, data: { revokedOn: at } });
  }

  async revokeAllOfUser(
    userId: string,
    at: Date,
    db: Prisma.TransactionClient = this.prisma,
  ): Promise<number> {
    const { count } = await db.loginSession.updateMany({
      where: { userId, revokedOn: null },
      data: { revokedOn: at },
    });
    return count;
  }
}
