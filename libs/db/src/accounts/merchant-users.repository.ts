import { Injectable } from '@nestjs/common';
import { ConflictError } from '@kessai/domain';
import { Prisma, type MerchantUser } from '../generated/prisma/client';
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
  constructor(private readonly prisma: PrismaService) {}

  async create(user: NewMerchantUser): Promise<MerchantUser> {
    try {
      return await this.prisma.merchantUser.create({ data: user });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw new ConflictError('EMAIL_EXISTS');
      }
      throw error;
    }
  }

  findById(id: string): Promise<MerchantUser | null> {
    return this.prisma.merchantUser.findUnique({ where: { id } });
  }

  /** The merchant's users (id, email, role only), by email. */
  listOfMerchant(merchantId: string): Promise<Pick<MerchantUser, 'id' | 'email' | 'role'>[]> {
    return this.prisma.merchantUser.findMany({
      where: { merchantId },
      select: { id: true, email: true, role: true },
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
