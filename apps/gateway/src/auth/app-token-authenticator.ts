import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type GatewayConfig } from '@kessai/config';
import { CustomerLoginsService, LoginService, loginsNotEnabled } from '@kessai/accounts';
import {
  CHECKOUT_LINK_SUBJECT,
  CUSTOMER_TOKEN_SUBJECT,
  checkoutLinkSecretMatches,
  InvalidAppTokenError,
  LOGIN_TOKEN_SUBJECT,
  verifyCheckoutLink,
  parseAuthorizationHeader,
  secretMatches,
  unverifiedSubject,
  verifyAppToken,
  type AppTokenClaims,
} from '@kessai/auth';
import { CheckoutLinksRepository } from '@kessai/db';
import {
  AuthenticationError,
  BusinessRuleError,
  PermissionError,
  UnsupportedAuthorizationSchemeError,
} from '@kessai/domain';
import { AppTokenCache } from './app-token-cache';
import type { Principal } from './principal';

/** Verified app-token JWTs remembered at most (see #verify). */
const MAX_VERIFIED = 10_000;

/**
 * Turns an Authorization header into a Principal, or refuses it with the reason in the envelope:
 * app tokens (`Bearer <secret>.<jwt>`, `Bearer <jwt>`), merchant users' login tokens
 * (`Bearer <jwt>` whose subject is login_token), checkout links' and store customers' tokens.
 */
@Injectable()
export class AppTokenAuthenticator {
  readonly #verified = new Map<string, AppTokenClaims>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
    private readonly appTokens: AppTokenCache,
    private readonly logins: LoginService,
    private readonly links: CheckoutLinksRepository,
    private readonly customers: CustomerLoginsService,
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
    // a text verified before is an app token's (#verify): its subject needs no decoding again
    let claims = this.#verified.get(parsed.jwt);
    if (claims === undefined) {
      const subject = unverifiedSubject(parsed.jwt);
      if (parsed.secret === null && subject === LOGIN_TOKEN_SUBJECT) {
        return this.authenticateLogin(parsed.jwt);
      }
      if (parsed.secret !== null && subject === CHECKOUT_LINK_SUBJECT) {
        return this.authenticateCheckoutLink(parsed.secret, parsed.jwt);
      }
      if (parsed.secret === null && subject === CUSTOMER_TOKEN_SUBJECT) {
        return this.authenticateCustomer(parsed.jwt);
      }
      claims = this.#verify(parsed.jwt);
    }

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
      appTokenId: token.id,
      kind: 'app_token',
      login: null,
      merchantId: token.merchantId,
      storeId: token.storeId,
      scope: token.scope,
      mode: token.mode === 'live' ? 'live' : 'test',
      domains: token.domains,
      hasSecret: parsed.secret !== null,
      ...(token.mode === 'live' && !token.merchantVerified ? { unverifiedLive: true as const } : {}),
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

  /**
   * A checkout link's own credentials, `Bearer <link secret>.<link jwt>` (the hosted link page): the
   * jwt verified, the secret matched (constant time) before the database is asked, and the link still
   * payable: enabled, not expired, its store not deleted. The principal is the link's store, in the
   * link's mode, and carries the link: only routes that accept `checkout_link` take it.
   */
  private async authenticateCheckoutLink(secret: string, jwt: string): Promise<Principal> {
    const key = this.config.JWT_SIGNING_KEY;
    const claims = verifyCheckoutLink(jwt, key);
    if (!claims) throw new AuthenticationError('INVALID_APP_TOKEN');
    if (!checkoutLinkSecretMatches(claims.jti, secret, key))
      throw new AuthenticationError('INVALID_CREDENTIALS');
    const link = await this.links.findActiveIdentity(claims.jti);
    if (
      !link ||
      link.storeDeleted ||
      link.storeId !== claims.store_id ||
      link.merchantId !== claims.merchant_id
    )
      throw new AuthenticationError('INVALID_APP_TOKEN');
    if (!link.enabled) throw new BusinessRuleError('NOT_ACTIVE', [{ field: null, reason: 'LINK_DISABLED' }]);
    if (link.expiry !== null && link.expiry.getTime() <= Date.now())
      throw new BusinessRuleError('NOT_ACTIVE', [{ field: null, reason: 'LINK_EXPIRED' }]);
    return {
      credentialId: `checkout_link_${link.id}`,
      kind: 'checkout_link',
      login: null,
      merchantId: link.merchantId,
      storeId: link.storeId,
      scope: 'store',
      mode: link.mode === 'live' ? 'live' : 'test',
      domains: [],
      hasSecret: false,
      checkoutLink: { id: link.id, tokenType: link.tokenType },
    };
  }

  /**
   * A store customer's token (refers.authorize): verified and unexpired, its store not deleted. The
   * principal is the token's store, in its mode, and carries the customer's email: only routes that
   * accept `customer` take it, and they act on that customer's own subscriptions (decision 0058).
   */
  private async authenticateCustomer(jwt: string): Promise<Principal> {
    const customer = this.customers.authenticate(jwt);
    const state = await this.customers.storeState(customer);
    if (state === 'deleted') throw new AuthenticationError('INVALID_LOGIN_TOKEN');
    if (state === 'disabled') throw loginsNotEnabled();
    return {
      credentialId: `customer_${customer.tokenId}`,
      kind: 'customer',
      login: null,
      merchantId: customer.merchantId,
      storeId: customer.storeId,
      scope: 'store',
      mode: customer.mode,
      domains: [],
      hasSecret: false,
      customer: { email: customer.email },
    };
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
