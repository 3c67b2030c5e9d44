import type { AccessScope } from '@kessai/db';

/**
 * What authenticated: an app token, a merchant user's login token (POST /authenticate), a
 * checkout link's own credentials (`Bearer <link secret>.<link jwt>`: the hosted link page,
 * docs/hosted-checkout.md), or a store customer's token (refers.authorize, decision 0058); the
 * last two accepted only by the routes that name them.
 */
export type CredentialKind = 'app_token' | 'login' | 'checkout_link' | 'customer';

/** The link behind checkout-link credentials: what the hosted page may pay, and nothing else. */
export interface CheckoutLinkPrincipal {
  id: string;
  tokenType: 'one_time' | 'subscription' | 'recurring';
}

/**
 * Who is calling: resolved from a verified, unrevoked app token, or from a login token whose session
 * is live (a login acts for its merchant, with merchant scope, on the routes that accept logins).
 */
export interface Principal extends AccessScope {
  /** the credential that rate-limit buckets and Idempotency-Key records belong to */
  credentialId: string;
  kind: CredentialKind;
  /** the app token's id, for app tokens only (the issuer of the tokens it issues) */
  appTokenId?: string;
  /** the user and session behind a login token; null for app tokens */
  login: { userId: string; sessionId: string } | null;
  scope: 'merchant' | 'store';
  /** an app token's processing mode; a login is bound to none and reads as 'test' */
  mode: 'test' | 'live';
  domains: string[];
  /** false for a secret-less app token (`Bearer <jwt>`): public capabilities only, from an allowed Origin */
  hasSecret: boolean;
  /**
   * a live-mode app token of a merchant the operator has not verified: only the routes marked
   * @BeforeVerification answer it (decision 0049)
   */
  unverifiedLive?: true;
  /** set for checkout-link credentials only */
  checkoutLink?: CheckoutLinkPrincipal;
  /** set for a customer token only: whose subscriptions it may act on (its store's, its email's) */
  customer?: { email: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** why the presented credentials were refused; raised only on routes that need them */
    authError?: Error;
  }
}
