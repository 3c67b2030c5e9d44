import { Injectable } from '@nestjs/common';
import { generateSecret, hashPassword } from '@kessai/auth';
import { MerchantUsersRepository, type AuditedWrite, type MerchantUser } from '@kessai/db';
import { isUuid, NotFoundError, ValidationError } from '@kessai/domain';
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

  /**
   * A new user of the merchant whose password nobody knows (a random secret's hash): the person
   * sets one through a password reset, which the caller requests next. A taken email is EMAIL_EXISTS.
   */
  async invite(
    input: { merchantId: string; email: string; name: string; role: MerchantUser['role'] },
    options: AuditedWrite = {},
  ): Promise<MerchantUser> {
    const user = {
      merchantId: input.merchantId,
      email: normalizeEmail(input.email),
      name: input.name,
      passwordHash: await hashPassword(generateSecret()),
      role: input.role,
    };
    return this.users.create(user, options.audit);
  }

  /**
   * Another user's role, by a user of the same merchant (`actor`): never one's own (a user cannot
   * lock itself out or raise itself), and the merchant always keeps an owner (LAST_OWNER). Another
   * merchant's user, or a malformed id, is not found.
   */
  async changeRole(
    actor: { merchantId: string; userId: string },
    userId: string,
    role: MerchantUser['role'],
    options: AuditedWrite = {},
  ): Promise<MerchantUser> {
    if (!isUuid(userId)) throw new NotFoundError('merchant_user');
    const id = userId.toLowerCase();
    if (id === actor.userId) throw ValidationError.field('role', 'OWN_ROLE');
    const changed = await this.users.changeRole(actor.merchantId, id, role, options.audit);
    if (changed === null) throw new NotFoundError('merchant_user');
    if (changed === 'last_owner') throw ValidationError.field('role', 'LAST_OWNER');
    return changed;
  }

  /**
   * Removes another user of the actor's merchant (decision 0057): never oneself (OWN_USER), never the
   * merchant's last owner (LAST_OWNER, under the lock of role changes); its sessions end at once, on
   * every console replica and for its API login tokens, and it can no longer sign in or reset its
   * password. Another merchant's user, a removed one or a malformed id is not found.
   */
  async remove(
    actor: { merchantId: string; userId: string },
    userId: string,
    options: AuditedWrite = {},
  ): Promise<MerchantUser> {
    if (!isUuid(userId)) throw new NotFoundError('merchant_user');
    const id = userId.toLowerCase();
    if (id === actor.userId) throw ValidationError.field('user', 'OWN_USER');
    const removed = await this.users.remove(actor.merchantId, id, options.audit);
    if (removed === null) throw new NotFoundError('merchant_user');
    if (removed === 'last_owner') throw ValidationError.field('user', 'LAST_OWNER');
    return removed;
  }

  findByEmail(email: string): Promise<MerchantUser | null> {
    return this.users.findByEmail(normalizeEmail(email));
  }

  /** The user of that email, removed or not (its `removedOn` says which). */
  findByEmailRemovedOrNot(email: string): Promise<MerchantUser | null> {
    return this.users.findByEmailRemovedOrNot(normalizeEmail(email));
  }

  async setPassword(userId: string, password: string): Promise<void> {
    await this.users.setPasswordHash(userId, await hashPassword(password));
  }
}
