import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { AuthenticationError, BusinessRuleError, PermissionError } from '@kessai/domain';
import {
  ACCEPTED_CREDENTIALS,
  BEFORE_VERIFICATION,
  DEFAULT_CREDENTIALS,
  ROUTE_ACCESS,
  type RouteAccess,
} from './decorators';
import { EMBEDDER_HEADER, isOwnOrigin, originAllowed } from './origin';
import type { CredentialKind } from './principal';

/**
 * Enforces each route's access rule on the principal that the authentication hook resolved:
 * open routes need nothing; others need valid credentials of a kind the route accepts (app tokens
 * unless @AcceptsCredentials says otherwise); secret-less (public) tokens are accepted only on
 * browser routes and only from an Origin in the token's domains — or from the gateway's own inline
 * frame, whose embedding page (sent in X-Kessai-Embedder) is in them, the frame itself being framable
 * only by those domains (docs/hosted-checkout.md). A checkout link's credentials are accepted only
 * by the routes that name them, from the gateway's own pages (Origin the gateway's, required on
 * writes); elsewhere they are no app token (401 INVALID_APP_TOKEN). A store customer's token is
 * accepted only by the routes that name it (403 INVALID_PERMISSIONS elsewhere). Live mode is closed to a merchant
 * the operator has not verified: its live app tokens are refused with 400
 * LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED but on the routes marked @BeforeVerification (decision 0049).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (access === 'open') return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (request.authError) throw request.authError;
    const principal = request.principal;
    if (!principal) throw new AuthenticationError('AUTH_HEADER_MISSING');

    const accepted =
      this.reflector.getAllAndOverride<CredentialKind[] | undefined>(ACCEPTED_CREDENTIALS, [
        context.getHandler(),
        context.getClass(),
      ]) ?? DEFAULT_CREDENTIALS;
    if (principal.kind === 'checkout_link') {
      if (!accepted.includes('checkout_link')) throw new AuthenticationError('INVALID_APP_TOKEN');
      const origin = request.headers.origin;
      const write = request.method !== 'GET' && request.method !== 'HEAD';
      if ((write || origin !== undefined) && !isOwnOrigin(this.config, origin, request.headers.host))
        throw new AuthenticationError('INVALID_DOMAIN');
      return true;
    }
    if (!accepted.includes(principal.kind)) throw new PermissionError('INVALID_PERMISSIONS');
    // a customer's token holds no secret and no domains: it is the customer's proof of its email
    if (principal.kind === 'customer') return true;

    if (!principal.hasSecret) {
      if (!browserOriginAllowed(this.config, request, principal.domains))
        throw new AuthenticationError('INVALID_DOMAIN');
      if (access !== 'browser') throw new PermissionError('INVALID_PERMISSIONS');
    }
    if (
      principal.unverifiedLive &&
      !this.reflector.getAllAndOverride<boolean | undefined>(BEFORE_VERIFICATION, [
        context.getHandler(),
        context.getClass(),
      ])
    )
      throw new BusinessRuleError('LIVE_MODE_NOT_ENABLED_WHEN_UNVERIFIED');
    return true;
  }
}

/** An Origin in the token's domains, or the gateway's own frame embedded by a page in them. */
function browserOriginAllowed(config: AppConfig, request: FastifyRequest, domains: string[]): boolean {
  const origin = request.headers.origin;
  if (originAllowed(origin, domains)) return true;
  const embedder = request.headers[EMBEDDER_HEADER];
  return (
    typeof embedder === 'string' &&
    isOwnOrigin(config, origin, request.headers.host) &&
    originAllowed(embedder, domains)
  );
}
