import { Injectable } from '@nestjs/common';
import { hashPassword } from '@kessai/auth';
import { MerchantUsersRepository, type MerchantUser } from '@kessai/db';
import { normalizeEmail } from './passwords';

/** Merchant users: the people who sign in with an email and a password. */
@Injectable()
export class MerchantUsersService {
  constructor(private readonly users: MerchantUsersRepository) {}

  /** Creates a user of an existing merchant; a taken email is a ConflictError (EMAIL_EXISTS). */
  async create(input: {
    merchantId: string;
    email: string;
    name: string;
    password: string;
    /** the user's console role; owner when not given */
    role?: MerchantUser['role'];
  }): Promise<MerchantUser> {
    return this.users.create({
      merchantId: input.merchantId,
      email: normalizeEmail(input.email),
      name: input.name,
      passwordHash: await hashPassword(input.password),
      ...(input.role ? { role: input.role } : {}),
    });
  }

  findByEmail(email: string): Promise<MerchantUser | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  async setPassword(userId: string, password: string): Promise<void> {
    await this.users.setPasswordHash(userId, await hashPassword(password));
  }
}
