import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { eventually } from './eventually';

/** A server of a test's own (own-postgres, own-redis), which the test stops, kills and restarts. */
export interface OwnServer {
  /** where to connect: the server's URL on 127.0.0.1:<port> */
  readonly url: string;
  readonly port: number;
  /** A graceful stop (Postgres: `pg_ctl stop -m fast`, its backends told 57P01; Redis: SIGTERM). */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port and waits until it answers. */
  start(): Promise<void>;
  /** stop, then start. */
  restart(): Promise<void>;
  /** SIGKILL (a crash); start() recovers it. */
  kill(): Promise<void>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

/**
 * A PostgreSQL cluster of a test's own (`initdb` into a temporary directory), for tests that stop,
 * restart or kill the database: doing that to the machine's shared server would disturb every other
 * suite. Trust authentication, loopback only, its socket in its own directory. As root, the server
 * runs as the `postgres` user (initdb refuses root). Its URL: postgresql://postgres@127.0.0.1:<port>/postgres.
 */
export type OwnPostgres = OwnServer;

function binDir(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  } catch {
    // Debian's pg_config may name a client-only bindir; fall back to the server's
  }
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql') : [];
  const latest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (latest && existsSync(`/usr/lib/postgresql/${latest}/bin/initdb`))
    return `/usr/lib/postgresql/${latest}/bin`;
  throw new Error('no PostgreSQL server binaries (initdb) found: install Debian package postgresql');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port given')),
      );
    });
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

export async function startOwnPostgres(settings: Record<string, string> = {}): Promise<OwnPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'kessai-pg-'));
  const data = path.join(dir, 'data');
  const user = postgresUser();
  if (user) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  // as root, every server command runs as postgres
  const run = (command: string, args: string[]) => {
    const [file, argv] = user
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const ready = () =>
    eventually(
      async () => {
        const client = new Client({ connectionString: url });
        client.on('error', () => undefined);
        await client.connect();
        await client.end();
        return true;
      },
      { timeoutMs: 60_000, what: `PostgreSQL on port ${port}` },
    );
  const start = async () => {
    run('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    await ready();
  };
  // a failing pg_ctl rejects (the executor's throw) rather than throwing at the call
  const stop = () =>
    new Promise<void>((resolve) => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      resolve();
    });
  await start();
  return {
    url,
    port,
    start,
    stop,
    async restart() {
      await stop();
      await start();
    },
    async kill() {
      const pid = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      await eventually(
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        { timeoutMs: 30_000, what: `postmaster ${pid} to exit` },
      );
    },
    async destroy() {
      try {
        await stop();
      } catch {
        // already stopped (or killed): nothing runs
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
