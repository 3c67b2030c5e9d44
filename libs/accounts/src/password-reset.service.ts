import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { generateSecret, hashPassword, hashSecret } from '@kessai/auth';
import { MerchantUsersRepository, PasswordResetsRepository } from '@kessai/db';
import { DAILY_QUOTAS, ResourceLimitError, ValidationError } from '@kessai/domain';
import { PasswordResetDelivery } from './password-reset-delivery';
import { normalizeEmail } from './passwords';
import { LOGGER, type Logger } from '@kessai/observability';

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
export class PasswordResetService implements OnModuleDestroy {
  /** requests accepted and still being carried out (`accept`) */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly users: MerchantUsersRepository,
    private readonly resets: PasswordResetsRepository,
    private readonly delivery: PasswordResetDelivery,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * POST /password_resets: starts `request` and returns at once, so that the answer is the same, in
   * the same time, whether the address has an account, the merchant's quota is used up, or neither
   * (issue 27: a known address over its quota answered 400, an unknown one 202, and the timings
   * differed). What happened is logged, never answered. A request lost with its process is one the
   * user makes again; shutdown waits for those under way (onModuleDestroy).
   */
  accept(email: string, context: { correlationId?: string } = {}): void {
    const work = this.request(email, context).catch((error: unknown) => {
      if (error instanceof ResourceLimitError) {
        this.logger.warn("password reset refused: the merchant's daily quota is used up");
      } else {
        this.logger.error({ err: error }, 'password reset request failed');
      }
    });
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Resolves once every accepted request has been carried out (or failed). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  async onModuleDestroy(): Promise<void> {
    await this.settled();
  }

  /**
   * Requests a reset for an email. An unknown address does nothing; a merchant whose daily quota is
   * used up gets ResourceLimitError (`accept` answers both alike).
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
      this.logger.error({ resetId: reset.id, err: error }, 'password reset was not delivered');
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
