import type { FastifyRequest } from 'fastify';
import { LANG_COOKIE, MODE_COOKIE, signedCookie } from '../session/cookies';
import { may } from '../roles';
import type { ConsoleSessions } from '../session/console-sessions';
import { contextOf, type PageContext } from '../views/layout';
import { langOf } from '../views/messages';

/** The processing mode the visible switch chose (a signed cookie); test unless live was chosen. */
export function modeOf(request: FastifyRequest): 'test' | 'live' {
  return signedCookie(request, MODE_COOKIE) === 'live' ? 'live' : 'test';
}

/** A page's context from its request: language, mode and, when signed in, the user and CSRF token. */
export function pageContext(request: FastifyRequest, sessions: ConsoleSessions): PageContext {
  const lang = langOf(request.cookies[LANG_COOKIE], request.headers['accept-language']);
  const session = request.consoleSession;
  return contextOf(
    lang,
    request.url,
    modeOf(request),
    session
      ? {
          email: session.user.email,
          role: session.user.role,
          csrf: sessions.csrfToken(session.sessionId),
          canReadAudit: may(session.user.role, 'audit:read'),
          canManageUsers: may(session.user.role, 'users:manage'),
        }
      : undefined,
  );
}

/** The client's address and user agent, as an audit row records them. */
export function originOf(request: FastifyRequest): { ip: string; userAgent: string | null } {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent.slice(0, 512) : null };
}
