import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { generateSecret, hashPassword, hashSecret } from '@kessai/auth';
import { MerchantUsersRepository, PasswordResetsRepository } from '@kessai/db';
import { DAILY_QUOTAS, ValidationError } from '@kessai/domain';
import { PasswordResetDelivery } from './password-reset-delivery';
import { normalizeEmail } from './passwords';

/** How long a reset token can be used. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;

export const PASSWORD_RESET_REQUESTED = 'password_reset_requested';
export const PASSWORD_RESET_COMPLETED = 'password_reset_completed';

/**
 * Password resets. A request makes a single-use token (256 random bits, like an app-token secret,
 * so stored as a SHA-256 hash) that expires after an hour, counted against the merchant's daily
 * quota; the token goes to the user through PasswordResetDelivery. Confirming it sets the password
 * and ends every login session of the user.
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger(PasswordResetService.name);

  constructor(
    private readonly users: MerchantUsersRepository,
    private readonly resets: PasswordResetsRepository,
    private readonly delivery: PasswordResetDelivery,
  ) {}

  /**
   * Requests a reset for an email. An unknown address answers exactly like a known one; only a
   * merchant whose daily quota is used up gets ResourceLimitError.
   */
  async request(email: string, context: { correlationId?: string } = {}, now = new Date()): Promise<void> {
    const user = await this.users.findByEmail(normalizeEmail(email));
    if (!user) return;

    const token = generateSecret();
    const resetId = randomUUID();
    const expiresOn = new Date(now.getTime() + PASSWORD_RESET_TTL_MS);
    // quota, token and event commit together: a refused request leaves nothing, an accepted one all three
    const reset = await this.resets.createWithinQuota(
      { id: resetId, userId: user.id, merchantId: user.merchantId, tokenHash: hashSecret(token), expiresOn },
      {
        resource: 'password_reset',
        scope: { merchantId: user.merchantId, storeId: null },
        max: DAILY_QUOTAS.password_reset,
      },
      {
        merchantId: user.merchantId,
        aggregateType: 'merchant_user',
        aggregateId: user.id,
        eventType: PASSWORD_RESET_REQUESTED,
        payload: { user_id: user.id, reset_id: resetId, expires_on: expiresOn.toISOString() },
        correlationId: context.correlationId ?? null,
      },
      now,
    );

    try {
      await this.delivery.deliver({ resetId: reset.id, to: user.email, name: user.name, token, expiresOn });
    } catch (error) {
      // the answer stays the same (it must not tell whether the account exists); the user can ask again
      this.logger.error(
        `password reset ${reset.id} was not delivered: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Sets a new password with a reset token: once, before it expires. */
  async confirm(token: string, password: string, now = new Date()): Promise<void> {
    const reset = await this.resets.findByTokenHash(hashSecret(token));
    if (!reset) throw ValidationError.field('token', 'NOT_FOUND');
    if (reset.usedOn) throw ValidationError.field('token', 'ALREADY_USED');
    if (reset.expiresOn.getTime() <= now.getTime()) throw ValidationError.field('token', 'EXPIRED');

    const passwordHash = await hashPassword(password);
    // of two parallel confirmations exactly one sets the password; the other finds the token used
    const used = await this.resets.setPasswordWithReset(
      reset,
      passwordHash,
      {
        merchantId: reset.merchantId,
        aggregateType: 'merchant_user',
        aggregateId: reset.userId,
        eventType: PASSWORD_RESET_COMPLETED,
        payload: { user_id: reset.userId, reset_id: reset.id },
      },
      now,
    );
    if (!used) throw ValidationError.field('token', 'ALREADY_USED');
  }
}
