import 'reflect-metadata';
import { loadConfigOrExit } from '@kessai/config';
import { createGatewayApp } from './app.factory';

async function main() {
  const config = loadConfigOrExit();
  const app = await createGatewayApp(config);
  await app.listen(config.PORT, config.HOST);
  process.stdout.write(`gateway listening on ${await app.getUrl()}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
