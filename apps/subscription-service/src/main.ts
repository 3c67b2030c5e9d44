import 'reflect-metadata';
import { loadConfigOrExit } from '@kessai/config';
import { startWorkerService, stopOnSignals } from '@kessai/runtime';

/** Health port when HEALTH_PORT is not set. */
export const DEFAULT_HEALTH_PORT = 3102;

async function main() {
  const config = loadConfigOrExit();
  const service = await startWorkerService({
    name: 'subscription-service',
    config,
    healthPort: config.HEALTH_PORT ?? DEFAULT_HEALTH_PORT,
  });
  stopOnSignals(service, config.SHUTDOWN_TIMEOUT_MS);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `subscription-service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
