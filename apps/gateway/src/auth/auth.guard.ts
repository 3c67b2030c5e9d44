import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AuthenticationError, PermissionError } from '@kessai/domain';
import { ACCEPTED_CREDENTIALS, DEFAULT_CREDENTIALS, ROUTE_ACCESS, type RouteAccess } from './decorators';
import { originAllowed } from './origin';
import type { CredentialKind } from './principal';

/**
 * Enforces each route's access rule on the principal that the authentication hook resolved:
 * open routes need nothing; others need valid credentials of a kind the route accepts (app tokens
 * unless @AcceptsCredentials says otherwise); secret-less (public) tokens are accepted only on
 * browser routes and only from an Origin in the token's domains.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

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
    if (!accepted.includes(principal.kind)) throw new PermissionError('INVALID_PERMISSIONS');

    if (!principal.hasSecret) {
      if (!originAllowed(request.headers.origin, principal.domains))
        throw new AuthenticationError('INVALID_DOMAIN');
      if (access !== 'browser') throw new PermissionError('INVALID_PERMISSIONS');
    }
    return true;
  }
}
