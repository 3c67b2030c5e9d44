import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter as BullBoardAdapter } from '@bull-board/fastify';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import type { AppConfig } from '@kessai/config';
import { QUEUES, type QueueDefinition } from '@kessai/contracts';
import { AuthenticationError, NotFoundError } from '@kessai/domain';
import { bullPrefix, createRedisClient } from '@kessai/redis';
import { envelope, sendError } from '../http/error-response';
import { DashboardCredentials } from './dashboard-credentials';

/** Where the dashboard is served. Not in the OpenAPI document: it is no part of the merchant API. */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const CHALLENGE = 'Basic realm="Kessai queue dashboard", charset="UTF-8"';

/**
 * The board's page and scripts come from @bull-board/ui through the gateway itself. Its page sets
 * a <base href> (hence base-uri 'self'), inline styles, and a highlighting worker from its own
 * files; the web fonts it links from elsewhere are left out (the page falls back to system fonts).
 */
const DASHBOARD_HEADERS = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "worker-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  // job data and Redis statistics: nothing a shared cache should keep
  'cache-control': 'no-store',
};

/**
 * The queue dashboard (QUEUE_DASHBOARD_ENABLED; docs/operations.md, "Queue dashboard"): Bull Board
 * over every queue of libs/contracts, under the BullMQ prefix the services use, behind HTTP Basic
 * authentication. Read-only, twice over: the board's adapters are in read-only mode, and anything
 * but GET and HEAD is refused before it reaches the board; dead jobs are replayed with the admin
 * CLI (`jobs:retry`), the one path that does it (docs/decisions/0022-queue-dashboard.md). Its routes
 * take no app token and no rate limit: the credentials guard every one of them, its 404s included.
 */
export async function registerQueueDashboard(
  fastify: FastifyInstance,
  config: AppConfig,
  queues: readonly QueueDefinition[] = QUEUES,
): Promise<void> {
  if (config.QUEUE_DASHBOARD_PASSWORD === undefined)
    throw new Error('the queue dashboard needs QUEUE_DASHBOARD_PASSWORD');
  const credentials = new DashboardCredentials(
    config.QUEUE_DASHBOARD_USERNAME,
    config.QUEUE_DASHBOARD_PASSWORD,
  );
  // one connection for all the board's queues: it only reads, and never blocks
  const connection = createRedisClient(config, { maxRetriesPerRequest: 1 });
  connection.on('error', () => undefined);
  const bullQueues = queues.map((queue) => new Queue(queue.name, { connection, prefix: bullPrefix(config) }));
  const board = new BullBoardAdapter().setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: bullQueues.map(
      (queue, i) =>
        new BullMQAdapter(queue, {
          readOnlyMode: true,
          description: `consumed by ${queues[i].consumer ?? 'no service'}`,
        }),
    ),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'Kessai queues' } },
  });

  await fastify.register(
    async (scope) => {
      scope.addHook('onRoute', (route) => {
        route.config = { ...route.config, rateLimit: false };
      });
      scope.addHook('onRequest', async (request, reply) => {
        if (!credentials.allows(request.headers.authorization))
          return sendError(reply, new AuthenticationError('INVALID_CREDENTIALS'), {
            'www-authenticate': CHALLENGE,
          });
        if (request.method !== 'GET' && request.method !== 'HEAD')
          return reply
            .status(405)
            .header('allow', 'GET, HEAD')
            .type('application/json')
            .send(envelope('NOT_ALLOWED'));
      });
      scope.addHook('onSend', async (_request, reply) => {
        void reply.headers(DASHBOARD_HEADERS);
      });
      scope.setNotFoundHandler((_request, reply) => sendError(reply, new NotFoundError()));
      scope.addHook('onClose', async () => {
        await Promise.all(bullQueues.map((queue) => queue.close()));
        await connection.quit().catch(() => connection.disconnect());
      });
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_DASHBOARD_PATH },
  );
}
