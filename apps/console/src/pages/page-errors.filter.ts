import { Catch, HttpException, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { NotFoundError, PermissionError, RateLimitedError, ServiceUnavailableError } from '@kessai/domain';
import { LOGGER, type Logger } from '@kessai/observability';
import { ConsoleSessions } from '../session/console-sessions';
import { CsrfError, SignInRequiredError } from '../session/errors';
import { messagePage } from '../views/layout';
import { pageContext } from './request-context';

/**
 * Every refusal and failure as a page of the console (never a stack trace, never JSON): no session
 * → the sign-in page; a missing CSRF token → 403; a role without the permission → 403; an unknown
 * or another merchant's id → 404; anything else → 500 with an error id in the log.
 */
@Catch()
export class PageErrorsFilter implements ExceptionFilter {
  constructor(
    private readonly sessions: ConsoleSessions,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (error instanceof SignInRequiredError) {
      void reply.redirect('/sign-in', 303);
      return;
    }
    const ctx = pageContext(request, this.sessions);
    const { m } = ctx;
    const answer = (status: number, title: string, message: string) =>
      void reply
        .status(status)
        .type('text/html; charset=utf-8')
        .send(messagePage(ctx, title, message));
    if (error instanceof CsrfError) return answer(403, m.csrfTitle, m.csrf);
    if (error instanceof PermissionError) return answer(403, m.forbiddenTitle, m.notAllowed);
    if (error instanceof NotFoundError) return answer(404, m.notFoundTitle, m.notFound);
    if (error instanceof HttpException && error.getStatus() < 500) {
      const status = error.getStatus();
      return answer(
        status,
        status === 404 ? m.notFoundTitle : m.errorTitle,
        status === 404 ? m.notFound : m.error,
      );
    }
    if (error instanceof RateLimitedError) {
      void reply.header('retry-after', String(error.retryAfterSeconds));
      return answer(429, m.errorTitle, m.signInThrottled);
    }
    if (error instanceof ServiceUnavailableError) {
      void reply.header('retry-after', '1');
      return answer(503, m.errorTitle, m.error);
    }
    const errorId = randomUUID();
    this.logger.error({ err: error, errorId, correlationId: request.id }, 'console request failed');
    return answer(500, m.errorTitle, `${m.error} (${errorId})`);
  }
}
