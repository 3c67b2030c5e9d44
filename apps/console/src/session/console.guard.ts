import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { PermissionError } from '@kessai/domain';
import { may, type Permission } from '../roles';
import { ConsoleSessions } from './console-sessions';
import { SESSION_COOKIE, SIGN_IN_COOKIE, signedCookie } from './cookies';
import { PERMISSION, PUBLIC_PAGE } from './decorators';
import { CsrfError, SignInRequiredError } from './errors';

/** The form field every console form carries its CSRF token in. */
export const CSRF_FIELD = '_csrf';

/**
 * Every console route: a live session unless the page is public, a CSRF token on every POST (the
 * session's, or on the sign-in form the one of its nonce cookie), and the role's permission where a
 * route requires one. Runs before any handler, so a refused request writes nothing.
 */
@Injectable()
export class ConsoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: ConsoleSessions,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const targets = [context.getHandler(), context.getClass()];
    const isPost = request.method === 'POST';
    const given = isPost ? formField(request.body, CSRF_FIELD) : undefined;

    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_PAGE, targets)) {
      if (isPost) {
        const nonce = signedCookie(request, SIGN_IN_COOKIE);
        if (!nonce || !ConsoleSessions.tokensMatch(given, this.sessions.signInToken(nonce)))
          throw new CsrfError();
      }
      return true;
    }

    const sessionId = signedCookie(request, SESSION_COOKIE);
    const session = sessionId ? await this.sessions.find(sessionId) : null;
    if (!session) throw new SignInRequiredError();
    request.consoleSession = session;
    if (isPost && !ConsoleSessions.tokensMatch(given, this.sessions.csrfToken(session.sessionId)))
      throw new CsrfError();

    const permission = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION, targets);
    if (permission && !may(session.user.role, permission)) throw new PermissionError();
    return true;
  }
}

/** One field of a urlencoded form body. */
export function formField(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}
