import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, requireSecrets, type AppConfig } from '@kessai/config';
import {
  dummyPasswordHash,
  InvalidLoginTokenError,
  signLoginToken,
  verifyLoginToken,
  verifyPassword,
} from '@kessai/auth';
import { LoginSessionsRepository, MerchantUsersRepository, type MerchantUser } from '@kessai/db';
import { AuthenticationError } from '@kessai/domain';
import { normalizeEmail } from './passwords';

/** How long a login token is valid; a new login is needed afterwards. */
export const LOGIN_SESSION_TTL_MS = 60 * 60 * 1000;

export interface LoginResult {
  token: string;
  user: MerchantUser;
  sessionId: string;
  expiresOn: Date;
}

/** The login session behind a verified login token. */
export interface LoginIdentity {
  sessionId: string;
  userId: string;
  merchantId: string;
}

/**
 * Merchant-user sign-in: POST /authenticate issues a login token (a JWT whose jti is a
 * login_sessions row), requests authenticate with it, POST /logout revokes it.
 */
@Injectable()
export class LoginService implements OnModuleInit {
  readonly #signingKey: string;

  constructor(
    private readonly users: MerchantUsersRepository,
    private readonly sessions: LoginSessionsRepository,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.#signingKey = requireSecrets(config, ['JWT_SIGNING_KEY'], 'LoginService').JWT_SIGNING_KEY;
  }

  /** Makes the dummy hash at boot, so that even the first failed login takes the usual time. */
  async onModuleInit() {
    await dummyPasswordHash();
  }

  /**
   * Signs a user in. An unknown email and a wrong password fail alike (401 INVALID_CREDENTIALS) and
   * take as long: without a user the password is checked against a dummy hash.
   */
  async login(email: string, password: string, now = new Date()): Promise<LoginResult> {
    const user = await this.verifyCredentials(email, password);
    const { sessionId, expiresOn } = await this.openSession(user, LOGIN_SESSION_TTL_MS, now);
    const token = signLoginToken(
      { sessionId, merchantId: user.merchantId, userId: user.id, expiresOn },
      this.#signingKey,
      now,
    );
    return { token, user, sessionId, expiresOn };
  }

  /** The session of a login token, or 401 INVALID_LOGIN_TOKEN / EXPIRED_LOGIN_TOKEN. */
  async authenticate(jwt: string, now = new Date()): Promise<LoginIdentity> {
    let claims;
    try {
      claims = verifyLoginToken(jwt, this.#signingKey, now);
    } catch (error) {
      if (error instanceof InvalidLoginTokenError) {
        throw new AuthenticationError(error.expired ? 'EXPIRED_LOGIN_TOKEN' : 'INVALID_LOGIN_TOKEN');
      }
      throw error;
    }
    const session = await this.sessions.findById(claims.jti);
    if (
      !session ||
      session.revokedOn !== null ||
      session.userId !== claims.user_id ||
      session.merchantId !== claims.merchant_id
    ) {
      throw new AuthenticationError('INVALID_LOGIN_TOKEN');
    }
    if (session.expiresOn.getTime() <= now.getTime()) throw new AuthenticationError('EXPIRED_LOGIN_TOKEN');
    return { sessionId: session.id, userId: session.userId, merchantId: session.merchantId };
  }

  async logout(sessionId: string, now = new Date()): Promise<void> {
    await this.sessions.revoke(sessionId, now);
  }

  /**
   * The user whose email and password these are: the one check of every sign-in (POST
   * /authenticate, the console's). An unknown email and a wrong password fail alike, and as slowly.
   */
  async verifyCredentials(email: string, password: string): Promise<MerchantUser> {
    const user = await this.users.findByEmail(normalizeEmail(email));
    const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    if (!user || !matches) throw new AuthenticationError('INVALID_CREDENTIALS');
    return user;
  }

  /**
   * A login session of `user` lasting `ttlMs`: a login token's (LOGIN_SESSION_TTL_MS), or a console
   * session's, which is the same row (so a password reset and sign-out everywhere end both kinds).
   */
  async openSession(user: MerchantUser, ttlMs: number, now = new Date()) {
    const expiresOn = new Date(now.getTime() + ttlMs);
    const session = await this.sessions.create({ userId: user.id, merchantId: user.merchantId, expiresOn });
    return { sessionId: session.id, expiresOn };
  }

  /** The session `sessionId` and its user while it is neither revoked nor expired; null otherwise. */
  async activeSession(sessionId: string, now = new Date()) {
    const session = await this.sessions.findById(sessionId);
    if (!session || session.revokedOn !== null || session.expiresOn.getTime() <= now.getTime()) return null;
    const user = await this.users.findById(session.userId);
    if (!user || user.merchantId !== session.merchantId || user.removedOn !== null) return null;
    return { sessionId: session.id, expiresOn: session.expiresOn, user };
  }

  /** Ends every session of the user (login tokens and console sessions): how many were open. */
  logoutEverywhere(userId: string, now = new Date()): Promise<number> {
    return this.sessions.revokeAllOfUser(userId, now);
  }
}
