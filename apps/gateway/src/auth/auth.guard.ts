import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AuthenticationError, PermissionError } from '@kessai/domain';
import { ROUTE_ACCESS, type RouteAccess } from './decorators';
import { originAllowed } from './origin';

/**
 * Enforces each route's access rule on the principal that the authentication hook resolved:
 * open routes need nothing; others need valid credentials; secret-less (public) tokens are
 * accepted only on browser routes and only from an Origin in the token's domains.
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

    if (!principal.hasSecret) {
      if (!originAllowed(request.headers.origin, principal.domains))
        throw new AuthenticationError('INVALID_DOMAIN');
      if (access !== 'browser') throw new PermissionError('INVALID_PERMISSIONS');
    }
    return true;
  }
}
