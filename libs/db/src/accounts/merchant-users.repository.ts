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
      const user = await tx.merchantUser.findFirst({ where: { id, merchantId } });
      if (!user) return null;
      if (user.role === 'owner' && role !== 'owner') {
        const owners = await tx.merchantUser.count({ where: { merchantId, role: 'owner' } });
        if (owners <= 1) return 'last_owner';
      }
      const changed = await tx.merchantUser.update({ where: { id }, data: { role } });
      if (audit) await this.audit.record({ ...audit, targetId: id }, tx);
      return changed;
    });
  }

  findById(id: string): Promise<MerchantUser | null> {
    return this.prisma.merchantUser.findUnique({ where: { id } });
  }

  /** The merchant's users (never their password hash), by email. */
  listOfMerchant(
    merchantId: string,
  ): Promise<Pick<MerchantUser, 'id' | 'email' | 'name' | 'role' | 'createdOn'>[]> {
    return this.prisma.merchantUser.findMany({
      where: { merchantId },
      select: { id: true, email: true, name: true, role: true, createdOn: true },
      orderBy: { email: 'asc' },
    });
  }

  findByEmail(email: string): Promise<MerchantUser | null> {
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
