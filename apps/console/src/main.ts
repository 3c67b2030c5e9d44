import 'reflect-metadata';
import { loadConfigOrExit } from '@kessai/config';
import { createLogger } from '@kessai/observability';
import { stopOnSignals } from '@kessai/runtime';
import { createConsoleApp } from './app.factory';

async function main() {
  const config = loadConfigOrExit('console');
  const logger = createLogger({ service: 'console', level: config.LOG_LEVEL });
  const app = await createConsoleApp(config, { logger });
  await app.listen(config.CONSOLE_PORT, config.HOST);
  logger.info({ url: await app.getUrl() }, 'console listening');
  // SIGTERM: stop accepting, let requests in flight finish, close Postgres and Redis
  stopOnSignals({ logger, stop: () => app.close() }, config.SHUTDOWN_TIMEOUT_MS);
}

main().catch((error: unknown) => {
  process.stderr.write(`console failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
