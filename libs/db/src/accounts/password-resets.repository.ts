import { Injectable } from '@nestjs/common';
import type { PasswordResetToken } from '../generated/prisma/client';
import { DailyQuotas, type DailyQuota } from '../limits/daily-quotas';
import { PrismaService } from '../prisma.service';
import { LoginSessionsRepository } from './login-sessions.repository';
import { MerchantUsersRepository } from './merchant-users.repository';
import { OutboxRepository, type NewOutboxEvent } from '../outbox/outbox.repository';

export interface NewPasswordReset {
  id: string;
  userId: string;
  merchantId: string;
  tokenHash: string;
  expiresOn: Date;
}

/** Password-reset tokens. Each write that announces itself appends its event in the same transaction. */
@Injectable()
export class PasswordResetsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly quotas: DailyQuotas,
    private readonly users: MerchantUsersRepository,
    private readonly sessions: LoginSessionsRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  /**
   * Takes one unit of `quota`, stores the reset and appends its event, in one transaction: a request
   * the quota refuses (ResourceLimitError) leaves nothing, an accepted one all three.
   */
  createWithinQuota(
    reset: NewPasswordReset,
    quota: DailyQuota,
    event: NewOutboxEvent,
    now: Date,
  ): Promise<PasswordResetToken> {
    return this.prisma.$transaction(async (tx) => {
      await this.quotas.consume(quota, now, tx);
      const created = await tx.passwordResetToken.create({ data: reset });
      await this.outbox.append(event, tx);
      return created;
    });
  }

  findByTokenHash(tokenHash: string): Promise<PasswordResetToken | null> {
    return this.prisma.passwordResetToken.findUnique({ where: { tokenHash } });
  }

  /**
   * Uses the reset once: marks it used, gives its user `passwordHash`, revokes every login session
   * of the user and appends the event, in one transaction. The claim is one conditional UPDATE
   * (unused and unexpired at `now`), so of two parallel uses exactly one wins (true); the other, and
   * any late use, gets false and writes nothing.
   */
  setPasswordWithReset(
    reset: Pick<PasswordResetToken, 'id' | 'userId'>,
    passwordHash: string,
    event: NewOutboxEvent,
    now: Date,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.passwordResetToken.updateMany({
        where: { id: reset.id, usedOn: null, expiresOn: { gt: now } },
        data: { usedOn: now },
      });
      if (count !== 1) return false;
      await this.users.setPasswordHash(reset.userId, passwordHash, tx);
      await this.sessions.revokeAllOfUser(reset.userId, now, tx);
      await this.outbox.append(event, tx);
      return true;
    });
  }
}
