import 'reflect-metadata';
import { loadConfigOrExit } from '@kessai/config';
import { createLogger } from '@kessai/observability';
import { stopOnSignals } from '@kessai/runtime';
import { createGatewayApp } from './app.factory';
import { drainAndClose } from './http/graceful-shutdown';

async function main() {
  const config = loadConfigOrExit('gateway');
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const app = await createGatewayApp(config, { logger });
  await app.listen(config.PORT, config.HOST);
  logger.info({ url: await app.getUrl() }, 'gateway listening');
  // SIGTERM: readiness fails, stop accepting connections, let in-flight requests finish, then close
  // Postgres and Redis, all within SHUTDOWN_TIMEOUT_MS
  stopOnSignals(
    { logger, stop: () => drainAndClose(app, logger, config.SHUTDOWN_TIMEOUT_MS) },
    config.SHUTDOWN_TIMEOUT_MS,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
