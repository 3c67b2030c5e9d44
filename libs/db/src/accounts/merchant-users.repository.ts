import { Injectable } from '@nestjs/common';
import { ConflictError } from '@kessai/domain';
import { Prisma, type MerchantUser } from '../generated/prisma/client';
import { ConsoleAuditRepository, type AuditEntry } from '../audit/console-audit.repository';
import { ADVISORY_XACT_LOCK } from '../limits/limits.sql';
import { PrismaService } from '../prisma.service';

export interface NewMerchantUser {
  merchantId: string;
  /** already normalised (lower case) */
  email: string;
  name: string;
  passwordHash: string;
  /** the console role (docs/console.md); the column's default, owner, when not given */
  role?: MerchantUser['role'];
}

@Injectable()
export class MerchantUsersRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly audit: ConsoleAuditRepository,
  ) {}

  /** Inserts the user; `audit` (a console write): its row in the same transaction, naming the user. */
  async create(user: NewMerchantUser, audit?: AuditEntry): Promise<MerchantUser> {
    try {
      if (!audit) return await this.prisma.merchantUser.create({ data: user });
      return await this.prisma.$transaction(async (tx) => {
        const created = await tx.merchantUser.create({ data: user });
        await this.audit.record({ ...audit, targetId: created.id }, tx);
        return created;
      });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError('EMAIL_EXISTS');
      }
      throw error;
    }
  }

  /**
   * Sets the role of the merchant's user `id`, with `audit`'s row in the same transaction, unless
   * that leaves the merchant without an owner ('last_owner'). The merchant's role changes take one
   * lock in turn, so two owners demoting each other at once cannot both pass. Null: the merchant
   * has no such user.
   */
  changeRole(
    merchantId: string,
    id: string,
    role: MerchantUser['role'],
    audit?: AuditEntry,
  ): Promise<MerchantUser | null | 'last_owner'> {
    return this.prisma.$transaction(async (tx) => {
      await this.prisma.run(ADVISORY_XACT_LOCK, { key: `merchant-roles:${merchantId}` }, { db: tx });
      const user = await tx.merchantUser.findFirst({ where: { id, merchantId, removedOn: null } });
      if (!user) return null;
      if (user.role === 'owner' && role !== 'owner' && (await this.owners(tx, merchantId)) <= 1)
        return 'last_owner';
      const changed = await tx.merchantUser.update({ where: { id }, data: { role } });
      if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
      return changed;
    });
  }

  /**
   * Removes the merchant's user `id` (decision 0057), unless it is the merchant's last owner
   * ('last_owner'; under the lock of role changes, so two owners removing each other at once leave
   * one): marks it removed, ends every session of it (console sessions and API login tokens) and
   * drops its unused password resets, with `audit`'s row, in one transaction. Null: the merchant has
   * no such user (or it was removed already).
   */
  remove(
    merchantId: string,
    id: string,
    audit?: AuditEntry,
    now = new Date(),
  ): Promise<MerchantUser | null | 'last_owner'> {
    return this.prisma.$transaction(async (tx) => {
      await this.prisma.run(ADVISORY_XACT_LOCK, { key: `merchant-roles:${merchantId}` }, { db: tx });
      const user = await tx.merchantUser.findFirst({ where: { id, merchantId, removedOn: null } });
      if (!user) return null;
      if (user.role === 'owner' && (await this.owners(tx, merchantId)) <= 1) return 'last_owner';
      const removed = await tx.merchantUser.update({ where: { id }, data: { removedOn: now } });
      await tx.loginSession.updateMany({ where: { userId: id, revokedOn: null }, data: { revokedOn: now } });
      await tx.passwordResetToken.deleteMany({ where: { userId: id, usedOn: null } });
      if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
      return removed;
    });
  }

  /** The merchant's owners that were not removed. */
  private owners(tx: Prisma.TransactionClient, merchantId: string): Promise<number> {
    return tx.merchantUser.count({ where: { merchantId, role: 'owner', removedOn: null } });
  }

  /** The user `id`, removed or not (a session's check reads `removedOn`). */
  findById(id: string): Promise<MerchantUser | null> {
    return this.prisma.merchantUser.findUnique({ where: { id } });
  }

  /**
   * The merchant's users (never their password hash), by email: those not removed, or with
   * `includeRemoved` every one (the audit log names the removed ones too).
   */
  listOfMerchant(
    merchantId: string,
    { includeRemoved = false }: { includeRemoved?: boolean } = {},
  ): Promise<Pick<MerchantUser, 'id' | 'email' | 'name' | 'role' | 'createdOn'>[]> {
    return this.prisma.merchantUser.findMany({
      where: { merchantId, ...(includeRemoved ? {} : { removedOn: null }) },
      select: { id: true, email: true, name: true, role: true, createdOn: true },
      orderBy: { email: 'asc' },
    });
  }

  /** The user of that email who was not removed (a removed user signs in and resets no more). */
  findByEmail(email: string): Promise<MerchantUser | null> {
    return this.prisma.merchantUser.findFirst({ where: { email, removedOn: null } });
  }

  /** The user of that email, removed or not (an email stays taken by a removed user). */
  findByEmailRemovedOrNot(email: string): Promise<MerchantUser | null> {
    return this.prisma.merchantUser.findUnique({ where: { email } });
  }

  async setPasswordHash(
    id: string,
    passwordHash: string,
    db: Prisma.TransactionClient = this.prisma,
  ): Promise<void> {
    await db.merchantUser.update({ where: { id }, data: { passwordHash } });
  }
}
