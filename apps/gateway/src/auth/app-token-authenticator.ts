import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { LoginService } from '@kessai/accounts';
import {
  InvalidAppTokenError,
  LOGIN_TOKEN_SUBJECT,
  parseAuthorizationHeader,
  secretMatches,
  unverifiedSubject,
  verifyAppToken,
  type AppTokenClaims,
} from '@kessai/auth';
import { AuthenticationError, PermissionError, UnsupportedAuthorizationSchemeError } from '@kessai/domain';
import { AppTokenCache } from './app-token-cache';
import type { Principal } from './principal';

/** Verified app-token JWTs remembered at most (see #verify). */
const MAX_VERIFIED = 10_000;

/**
 * Turns an Authorization header into a Principal, or refuses it with the reason in the envelope:
 * app tokens (`Bearer <secret>.<jwt>`, `Bearer <jwt>`) and merchant users' login tokens
 * (`Bearer <jwt>` whose subject is login_token).
 */
@Injectable()
export class AppTokenAuthenticator {
  readonly #verified = new Map<string, AppTokenClaims>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly appTokens: AppTokenCache,
    private readonly logins: LoginService,
  ) {}

  async authenticate(header: string | undefined): Promise<Principal> {
    const parsed = parseAuthorizationHeader(header);
    switch (parsed.kind) {
      case 'missing':
        throw new AuthenticationError('AUTH_HEADER_MISSING');
      case 'unsupported':
        throw new UnsupportedAuthorizationSchemeError();
      case 'malformed':
        throw new AuthenticationError('INVALID_APP_TOKEN');
      case 'bearer':
        break;
    }
    if (parsed.secret === null && unverifiedSubject(parsed.jwt) === LOGIN_TOKEN_SUBJECT) {
      return this.authenticateLogin(parsed.jwt);
    }

    const claims = this.#verify(parsed.jwt);

    const token = await this.appTokens.find(claims.jti);
    if (
      !token ||
      token.revokedOn !== null ||
      token.merchantId !== claims.merchant_id ||
      (token.storeId ?? undefined) !== claims.store_id ||
      token.mode !== claims.mode
    ) {
      throw new AuthenticationError('INVALID_APP_TOKEN');
    }
    if (parsed.secret !== null && !secretMatches(parsed.secret, token.secretHash)) {
      throw new AuthenticationError('INVALID_CREDENTIALS');
    }
    if (claims.version !== token.version) throw new PermissionError('OUTDATED_APP_TOKEN');

    return {
      credentialId: `app_token_${token.id}`,
      kind: 'app_token',
      login: null,
      merchantId: token.merchantId,
      storeId: token.storeId,
      scope: token.scope,
      mode: token.mode === 'live' ? 'live' : 'test',
      domains: token.domains,
      hasSecret: parsed.secret !== null,
    };
  }

  /**
   * The JWT's claims once its signature and shape are verified. A verification depends on the
   * token's text and the signing key alone, and app tokens do not expire (revocation is the row's),
   * so a verified text is remembered: the HMAC and JSON work was a tenth of the gateway's CPU on
   * POST /charges. Failures are not remembered. Bounded: full, it starts over.
   */
  #verify(jwt: string): AppTokenClaims {
    const known = this.#verified.get(jwt);
    if (known) return known;
    let claims: AppTokenClaims;
    try {
      claims = verifyAppToken(jwt, this.config.JWT_SIGNING_KEY);
    } catch (error) {
      if (error instanceof InvalidAppTokenError) throw new AuthenticationError('INVALID_APP_TOKEN');
      throw error;
    }
    if (this.#verified.size >= MAX_VERIFIED) this.#verified.clear();
    this.#verified.set(jwt, claims);
    return claims;
  }

  private async authenticateLogin(jwt: string): Promise<Principal> {
    const session = await this.logins.authenticate(jwt);
    return {
      credentialId: `login_${session.sessionId}`,
      kind: 'login',
      login: { userId: session.userId, sessionId: session.sessionId },
      merchantId: session.merchantId,
      storeId: null,
      scope: 'merchant',
      mode: 'test',
      domains: [],
      hasSecret: true,
    };
  }
}
