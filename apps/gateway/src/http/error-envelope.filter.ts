import { Catch, NotFoundException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '@kessai/observability';
import { envelope, toErrorResponse } from './error-response';
import type { RouteRegistry } from './route-registry';

declare module 'fastify' {
  interface FastifyRequest {
    /** the failure this request was answered with, for the hooks that run after (idempotency) */
    failure?: unknown;
  }
}

/** The one place where any failure becomes the API's error envelope. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly routes: RouteRegistry,
  ) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();

    if (exception instanceof NotFoundException && !request.routeOptions?.url) {
      const path = request.url.split('?')[0];
      const allowed = this.routes.allowedMethods(path);
      if (allowed.length > 0) {
        void reply
          .status(405)
          .header('allow', allowed.join(', '))
          .type('application/json')
          .send(envelope('NOT_ALLOWED'));
        return;
      }
    }

    request.failure = exception;
    const response = toErrorResponse(exception, randomUUID);
    if (response.internal) {
      this.logger.error(
        {
          err: exception,
          errorId: response.body.error_id,
          reqId: request.id,
          method: request.method,
          url: request.routeOptions?.url,
        },
        'request failed',
      );
    }
    void reply
      .status(response.statusCode)
      .headers(response.headers)
      .type('application/json')
      .send(response.body);
  }
}
