import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './eventually';
import { freePort, type OwnServer } from './own-postgres';

/**
 * A Redis server of a test's own (`redis-server` on a free loopback port, its directory temporary),
 * for tests that restart or kill Redis: doing that to the machine's shared server would disturb
 * every other suite. Without persistence (the default) a restart loses every key; with
 * `{ persistence: true }` it keeps an append-only file, as docker-compose.yml's Redis does
 * (`--appendonly yes`), and a restart keeps what was written before it.
 */
export type OwnRedis = OwnServer;

/** Resolves once a raw PING on `port` is answered +PONG. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

export async function startOwnRedis({
  persistence = false,
}: { persistence?: boolean } = {}): Promise<OwnRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kessai-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const start = async () => {
    output = '';
    const server = spawn(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir],
        ...['--appendonly', persistence ? 'yes' : 'no'],
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = new Promise((resolve) => server.once('exit', () => resolve()));
    child = server;
    await eventually(
      async () => {
        if (server.exitCode !== null) throw new Error(`redis-server exited (${server.exitCode}):\n${output}`);
        return pong(port);
      },
      { timeoutMs: 30_000, intervalMs: 50, what: `Redis on port ${port}` },
    );
  };
  const signal = async (name: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop: () => signal('SIGTERM'),
    async restart() {
      await signal('SIGTERM');
      await start();
    },
    kill: () => signal('SIGKILL'),
    async destroy() {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
