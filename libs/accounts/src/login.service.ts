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
    const user = await this.users.findByEmail(normalizeEmail(email));
    const matches = await verifyPassword(password, user?.passwordHash ?? (await dummyPasswordHash()));
    if (!user || !matches) throw new AuthenticationError('INVALID_CREDENTIALS');

    const expiresOn = new Date(now.getTime() + LOGIN_SESSION_TTL_MS);
    const session = await this.sessions.create({ userId: user.id, merchantId: user.merchantId, expiresOn });
    const token = signLoginToken(
      { sessionId: session.id, merchantId: user.merchantId, userId: user.id, expiresOn },
      this.#signingKey,
      now,
    );
    return { token, user, sessionId: session.id, expiresOn };
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
}
