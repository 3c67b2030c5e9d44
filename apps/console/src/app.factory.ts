import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createLogger, NestPinoLogger, type Logger } from '@kessai/observability';
import { ConsoleModule, type ConsoleConfig } from './console.module';
import { acceptLogoUploads } from './pages/logo-upload';

/**
 * The console's Content-Security-Policy: its own stylesheet and images, no script at all, forms
 * posting to itself only, never framed.
 */
export const CONSOLE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The largest form the console accepts. */
const BODY_LIMIT_BYTES = 16_384;

/** Builds the console (not yet listening). */
export async function createConsoleApp(
  config: ConsoleConfig,
  options: { logger?: Logger } = {},
): Promise<NestFastifyApplication> {
  const logger = options.logger ?? createLogger({ service: 'console', level: config.LOG_LEVEL });
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    ...(config.TRUST_PROXY ? { trustProxy: config.TRUST_PROXY } : {}),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    ConsoleModule.register(config, logger),
    adapter,
    {
      logger: new NestPinoLogger(logger),
      abortOnError: false,
    },
  );
  await app.register(fastifyCookie, { secret: config.CONSOLE_SESSION_SECRET });
  acceptLogoUploads(app);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (_request, reply, payload) => {
    void reply.header('content-security-policy', CONSOLE_CSP);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('referrer-policy', 'same-origin');
    void reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
    return payload;
  });
  return app;
}
