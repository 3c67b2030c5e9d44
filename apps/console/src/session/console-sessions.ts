import { Inject, Injectable } from '@nestjs/common';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { LoginService } from '@kessai/accounts';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import type { MerchantUser } from '@kessai/db';
import { planFor, RateLimiter, type BucketCheck } from '@kessai/rate-limits';

/** A signed-in console user's session: a login_sessions row and its user. */
export interface ConsoleSession {
  sessionId: string;
  expiresOn: Date;
  user: MerchantUser;
}

/**
 * The console's sign-in and sessions (docs/console.md). A session is a login_sessions row, the
 * table POST /authenticate's tokens use: checked against Postgres on every request, so sign-out,
 * sign-out everywhere and a password reset end it at once on every console replica. Sign-in is the
 * API's own check (LoginService.verifyCredentials) and takes from the very buckets POST
 * /authenticate takes from (the client IP's), so both front ends together give a guesser one budget.
 */
@Injectable()
export class ConsoleSessions {
  readonly #secret: string;
  readonly #throttle: BucketCheck[];

  constructor(
    private readonly logins: LoginService,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.#secret = requireSecrets(
      config,
      ['CONSOLE_SESSION_SECRET'],
      'ConsoleSessions',
    ).CONSOLE_SESSION_SECRET;
    this.#throttle = planFor(limiter.settings, {
      method: 'POST',
      url: '/authenticate',
      routePattern: '/authenticate',
    }).buckets;
  }

  /** Signs a user in from `ip`: 429 past the sign-in throttle, 401 INVALID_CREDENTIALS on a mismatch. */
  async signIn(email: string, password: string, ip: string, now = new Date()): Promise<ConsoleSession> {
    await this.throttle(ip);
    const user = await this.logins.verifyCredentials(email, password);
    const { sessionId, expiresOn } = await this.logins.openSession(
      user,
      this.config.CONSOLE_SESSION_TTL_MS,
      now,
    );
    return { sessionId, expiresOn, user };
  }

  /** The session of a cookie's (verified) session id while it lasts; null otherwise. */
  async find(sessionId: string, now = new Date()): Promise<ConsoleSession | null> {
    if (!/^[0-9a-f-]{36}$/.test(sessionId)) return null;
    return this.logins.activeSession(sessionId, now);
  }

  signOut(session: ConsoleSession): Promise<void> {
    return this.logins.logout(session.sessionId);
  }

  /** Ends every session of the user: this one, the console's elsewhere, and its API login tokens. */
  async signOutEverywhere(session: ConsoleSession): Promise<void> {
    await this.logins.logoutEverywhere(session.user.id);
  }

  /** The CSRF token of a session's forms: derived from its id, so nothing more is stored. */
  csrfToken(sessionId: string): string {
    return this.mac(`csrf:${sessionId}`);
  }

  /** A fresh nonce for the sign-in form (kept in a cookie of its own) and its form token. */
  signInNonce(): string {
    return randomBytes(16).toString('base64url');
  }

  signInToken(nonce: string): string {
    return this.mac(`sign-in:${nonce}`);
  }

  /** Whether `given` is `expected` (constant time). */
  static tokensMatch(given: unknown, expected: string): boolean {
    if (typeof given !== 'string') return false;
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private mac(value: string): string {
    return createHmac('sha256', this.#secret).update(value).digest('base64url');
  }

  /** The sign-in throttle: the limits of POST /authenticate, on RATE_LIMIT_REDIS_FAILURE's terms. */
  private throttle(ip: string): Promise<void> {
    return this.limiter.enforce(`ip_${ip}`, this.#throttle);
  }
}
