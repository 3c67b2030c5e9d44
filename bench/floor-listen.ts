import type { FastifyInstance } from 'fastify';

/**
 * A floor server's life after its routes: it listens on PORT (any free one when unset) on the
 * loopback, tells the bench its URL as one JSON line on stdout (`floor listening`), and on SIGTERM or
 * SIGINT closes the server, then `release` (its pool, queue, Redis), and exits.
 */
export async function serveFloor(app: FastifyInstance, release: () => Promise<void>): Promise<void> {
  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.stdout.write(
    `${JSON.stringify({ msg: 'floor listening', url: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` })}\n`,
  );
  const stop = () => {
    void (async () => {
      await app.close();
      await release();
      process.exit(0);
    })();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Runs a floor server's `main`; a failure is written to stderr with its stack, and the process exits 1. */
export function runFloor(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
