import { Injectable } from '@nestjs/common';
import type { PasswordResetToken, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export interface NewPasswordReset {
  userId: string;
  merchantId: string;
  tokenHash: string;
  expiresOn: Date;
}

@Injectable()
export class PasswordResetsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(reset: NewPasswordReset, db: Prisma.TransactionClient = this.prisma): Promise<PasswordResetToken> {
    return db.passwordResetToken.create({ data: reset });
  }

  findByTokenHash(tokenHash: string): Promise<PasswordResetToken | null> {
    return this.prisma.passwordResetToken.findUnique({ where: { tokenHash } });
  }

  /**
   * Marks the token used if it still is unused and unexpired at `now`. One conditional UPDATE, so of
   * two parallel uses exactly one wins (true); the other, and any late use, gets false.
   */
  async claim(id: string, now: Date, db: Prisma.TransactionClient = this.prisma): Promise<boolean> {
    const { count } = await db.passwordResetToken.updateMany({
      where: { id, usedOn: null, expiresOn: { gt: now } },
      data: { usedOn: now },
    });
    return count === 1;
  }
}
