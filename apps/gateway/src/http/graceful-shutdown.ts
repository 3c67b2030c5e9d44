import type { Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ServiceUnavailableError } from '@kessai/domain';
import type { Logger } from '@kessai/observability';
import { sendError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './error-response';

/** What the gateway's shutdown leaves to close the pools after the drain, out of SHUTDOWN_TIMEOUT_MS. */
const CLOSE_RESERVE_MS = 2_000;

const draining = new WeakSet<FastifyInstance>();

/**
 * While the gateway drains (after SIGTERM): readiness fails first (`/heartbeat` answers 503 in the
 * envelope, so a load balancer stops sending), and every answer carries `Connection: close`, so a
 * keep-alive connection ends after the request it is serving. Other requests still arriving on an
 * open connection are served as usual: Postgres and Redis stay open until the drain is over.
 */
export function registerDrain(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (draining.has(fastify) && request.url.split('?')[0] === '/heartbeat') {
      return sendError(reply, new ServiceUnavailableError(), {
        'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
      });
    }
  });
  // every answer sent while draining, including those of requests that began before it
  fastify.addHook('onSend', async (_request, reply, payload) => {
    if (draining.has(fastify)) void reply.header('connection', 'close');
    return payload;
  });
}

/**
 * The gateway's graceful stop, in the order docs/operations.md promises: readiness fails and the
 * listening socket closes (no new connection is accepted), the requests in flight finish (bounded
 * by `timeoutMs` less a reserve for the rest), the connections still open past that are cut, and
 * only then does Nest close the pools (Postgres, Redis) through its shutdown hooks. Nest's own
 * `app.close()` alone would run those hooks first and close HTTP last, so requests in flight and
 * arriving met closed pools: 500s, 503s from the limiter, connection resets.
 */
export async function drainAndClose(
  app: NestFastifyApplication,
  logger: Logger,
  timeoutMs: number,
): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const server: Server = app.getHttpServer();
  draining.add(fastify);
  const budgetMs = Math.max(timeoutMs - CLOSE_RESERVE_MS, Math.floor(timeoutMs / 2));
  const started = Date.now();
  const drained = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), budgetMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve(true);
    });
    // the listening socket is closed now (server.close closes it at once): a new connection is refused
    logger.info('stopped accepting connections');
    server.closeIdleConnections();
  });
  if (!drained) {
    logger.warn({ budgetMs }, 'requests still in flight at the end of the drain: their connections are cut');
    server.closeAllConnections();
  }
  logger.info({ drained, ms: Date.now() - started }, 'gateway drained');
  await app.close();
}
