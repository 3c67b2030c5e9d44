import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '@kessai/config';
import { mayHoldCardNumber } from '@kessai/cards';
import { createLogger, NestPinoLogger, withCorrelation, type Logger } from '@kessai/observability';
import { GATEWAY_CONTROLLERS, GatewayModule } from './app.module';
import { AppTokenAuthenticator } from './auth/app-token-authenticator';
import { credentialRoutes, registerCredentialCheck } from './auth/credential-check';
import { ErrorEnvelopeFilter } from './http/error-envelope.filter';
import { registerDrain } from './http/graceful-shutdown';
import { acceptFormBodies } from './http/form-body';
import { acceptEmptyJsonBodies, registerRawJsonBodyLimit } from './http/json-body-parser';
import { registerNulGuard } from './http/nul-guard';
import { RouteRegistry } from './http/route-registry';
import { IdempotencyRecordsRepository } from '@kessai/db';
import { LOGO_MAX_BYTES } from '@kessai/domain';
import { registerIdempotency } from './idempotency/idempotency.hooks';
import { registerRateLimiting } from './limits/rate-limit.hook';
import { RateLimiter } from '@kessai/rate-limits';
import { registerTenantWriteLimit } from './limits/tenant-writes';
import { GatewayMetrics } from './metrics/gateway-metrics';
import { registerHttpMetrics } from './metrics/http-metrics.hook';

export interface GatewayOptions {
  logger?: Logger;
  /** where the app's routes are recorded (a test lists them); a new registry otherwise */
  routes?: RouteRegistry;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Builds the gateway (not yet listening): routes, authentication, error envelope, request ids. */
export async function createGatewayApp(
  config: GatewayConfig,
  options: GatewayOptions = {},
): Promise<NestFastifyApplication> {
  const logger = options.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const adapter = new FastifyAdapter({
    bodyLimit: config.BODY_LIMIT_BYTES,
    // only the operator's own proxies may say who the client is (per-IP limits): docs/security.md
    ...(config.TRUST_PROXY ? { trustProxy: config.TRUST_PROXY } : {}),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      // an id that may hold a card number would put it on every log line of the request: replaced
      return typeof given === 'string' && REQUEST_ID.test(given) && !mayHoldCardNumber(given)
        ? given
        : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.register(config, logger),
    adapter,
    {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
      // JSON bodies keep their bytes as request.rawBody: processor callbacks are signed over them
      rawBody: true,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  // first of all: every log line written for the request carries its id (X-Request-Id or a new one)
  fastify.addHook('onRequest', (request, _reply, done) => withCorrelation(request.id, done));
  // after SIGTERM: /heartbeat answers 503 and connections close after their request (main.ts)
  registerDrain(fastify);
  // an open route that verifies its bytes before parsing them (processor callbacks) reads few of them
  registerRawJsonBodyLimit(fastify);

  // the API speaks JSON (and, for a store's logo, multipart/form-data: acceptFormBodies below): any
  // other body is refused with 415 rather than parsed as text
  fastify.removeContentTypeParser('text/plain');

  const routes = options.routes ?? new RouteRegistry();
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));

  const metrics = app.get(GatewayMetrics);
  registerHttpMetrics(fastify, metrics);
  // at debug: one line per answered request, with its correlation id (the request's)
  fastify.addHook('onResponse', async (request, reply) => {
    if (!logger.isLevelEnabled('debug')) return;
    withCorrelation(request.id, () =>
      logger.debug(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          statusCode: reply.statusCode,
          ms: Math.round(reply.elapsedTime),
        },
        'request answered',
      ),
    );
  });

  const authenticator = app.get(AppTokenAuthenticator);
  fastify.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    if (header === undefined) return;
    try {
      request.principal = await authenticator.authenticate(header);
    } catch (error) {
      request.authError = error instanceof Error ? error : new Error(String(error));
    }
  });
  registerRateLimiting(fastify, app.get(RateLimiter), config, logger, metrics);
  // a route that needs credentials refuses a request without valid ones before its body is read
  registerCredentialCheck(fastify, credentialRoutes(GATEWAY_CONTROLLERS));
  registerNulGuard(fastify);
  // before the idempotency claim: a merchant's writes beyond its share of the pool wait here
  registerTenantWriteLimit(fastify, config);
  registerIdempotency(fastify, app.get(IdempotencyRecordsRepository), config, logger, metrics);
  fastify.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    // every answer: no content sniffing (a JSON error echoing input is never read as HTML)
    void reply.header('x-content-type-options', 'nosniff');
    // API answers (app tokens' secrets, login tokens, webhook auth tokens, card data) are not kept
    // by a browser or a proxy; pages and assets that may be cached say so themselves
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  });
  // off by default (the process refuses to start when it is on without credentials: libs/config),
  // and loaded only when on: its static-file server needs Node's require(esm), 20.19 and later
  if (config.QUEUE_DASHBOARD_ENABLED) {
    const { registerQueueDashboard } = await import('./queue-dashboard/queue-dashboard');
    await registerQueueDashboard(fastify, config);
  }

  app.useGlobalFilters(new ErrorEnvelopeFilter(logger, routes));
  await app.init();
  // after init: Nest registers its body parsers there. The JSON one is replaced; the urlencoded one
  // goes, as text/plain did: no client of the API sends it, and its values escaped the string rules
  acceptEmptyJsonBodies(app, config.BODY_LIMIT_BYTES);
  fastify.removeContentTypeParser('application/x-www-form-urlencoded');
  // the SDK's multipart bodies (a store's logo): the store routes only, 415 elsewhere as before
  acceptFormBodies(app, config.BODY_LIMIT_BYTES, LOGO_MAX_BYTES);
  return app;
}
