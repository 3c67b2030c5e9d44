/**
 * What the end-to-end benchmarks share: free ports, the processes they start (compiled build or
 * ts-node), and CPU accounting per process, Postgres, Redis and the machine (Linux /proc).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { masterNodes, type RedisClient } from '@kessai/redis';
import type { Client } from 'pg';
import { sleep } from './db-helpers';

const ROOT = path.resolve(__dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A process of the compiled build (or a TypeScript file under ts-node), with its output kept. */
export class Proc {
  readonly output: string[] = [];
  readonly exited: Promise<number | null>;
  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }
  static start(name: string, args: string[], env: Record<string, string>): Proc {
    // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles every spawned process
    const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new Proc(name, child);
  }
  get pid(): number {
    return this.child.pid!;
  }
  async waitHttp(url: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null)
        throw new Error(`${this.name} exited (${this.child.exitCode}):\n${this.output.join('\n')}`);
      try {
        if ((await fetch(url)).ok) return;
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    throw new Error(`${this.name} did not answer ${url}:\n${this.output.join('\n')}`);
  }
  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

/** The processor simulator of the compiled build on a free port, up; resolves to it and its URL. */
export async function startSimulator(
  variables: Record<string, string>,
  latencyMs: number,
): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = Proc.start('processor-simulator', ['dist/apps/processor-simulator/src/main.js'], {
    ...variables,
    SIMULATOR_PORT: String(port),
    SIMULATOR_HOST: '127.0.0.1',
    SIMULATOR_LATENCY_MS: String(latencyMs),
  });
  const url = `http://127.0.0.1:${port}`;
  await proc.waitHttp(`${url}/_sim/health`);
  return { proc, url };
}

/** A worker service of the compiled build (`app`: its folder under apps/) on a free health port, up. */
export async function startWorker(
  name: string,
  app: string,
  variables: Record<string, string>,
): Promise<Proc> {
  const port = await freePort();
  const proc = Proc.start(name, [`dist/apps/${app}/src/main.js`], {
    ...variables,
    HEALTH_PORT: String(port),
  });
  await proc.waitHttp(`http://127.0.0.1:${port}/health`);
  return proc;
}

// ---------- CPU accounting (Linux /proc; clock ticks are 100/s) ----------

export async function pidCpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Postgres processes of this benchmark: the backends connected to the scratch database and the
 * server's background processes (WAL writer, checkpointer…). Per pid, so that backends of other
 * databases (a test run beside the benchmark) do not count; a backend that exits between two
 * snapshots loses its time (pools keep theirs open for the whole run).
 */
export async function postgresCpu(db: Client): Promise<Map<number, number>> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR backend_type <> 'client backend'`,
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = await pidCpuSeconds(pid);
    if (Number.isFinite(seconds)) cpu.set(pid, seconds);
  }
  return cpu;
}

/** Redis's CPU seconds: the server's, or all masters' of a Cluster together. */
export async function redisCpuSeconds(redis: RedisClient): Promise<number> {
  let seconds = 0;
  for (const node of masterNodes(redis)) {
    const info = await node.info('cpu');
    const value = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
    seconds += value('used_cpu_user') + value('used_cpu_sys');
  }
  return seconds;
}

/** Busy and total CPU seconds of the whole machine. */
export async function machineCpu(): Promise<{ busy: number; total: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0];
  const ticks = line.split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((a, b) => a + b, 0);
  const idle = ticks[3] + (ticks[4] ?? 0);
  return { busy: (total - idle) / 100, total: total / 100 };
}

export interface CpuSnapshot {
  /** CPU seconds used so far, per process name */
  seconds: Record<string, number>;
  postgresPids: Map<number, number>;
  machineBusy: number;
  machineTotal: number;
}

export async function cpuSnapshot(
  procs: readonly Pick<Proc, 'name' | 'pid'>[],
  redis: RedisClient,
  db: Client,
): Promise<CpuSnapshot> {
  const seconds: Record<string, number> = {};
  for (const proc of procs) seconds[proc.name] = await pidCpuSeconds(proc.pid);
  seconds.postgres = 0; // from postgresPids
  seconds.redis = await redisCpuSeconds(redis);
  const usage = process.cpuUsage();
  seconds['bench client'] = (usage.user + usage.system) / 1e6;
  const machine = await machineCpu();
  return {
    seconds,
    postgresPids: await postgresCpu(db),
    machineBusy: machine.busy,
    machineTotal: machine.total,
  };
}

/** CPU seconds each process used between two snapshots, with their sum and what else the machine did. */
function cpuUsed(before: CpuSnapshot, after: CpuSnapshot) {
  const processes: [string, number][] = [];
  let sum = 0;
  // a process started between the two snapshots (ledger-service, say) counts from nothing
  for (const name of Object.keys(after.seconds)) {
    let used = after.seconds[name] - (before.seconds[name] ?? 0);
    if (name === 'postgres') {
      used = 0;
      for (const [pid, seconds] of after.postgresPids) used += seconds - (before.postgresPids.get(pid) ?? 0);
    }
    sum += used;
    processes.push([name, used]);
  }
  // anything else on the machine (another test run, an editor): the figures are only clean when ~0
  const other = after.machineBusy - before.machineBusy - sum;
  return { processes, sum, other };
}

/** ms of CPU per unit by process, `other processes` included (bench:all's table). */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number): Record<string, number> {
  const { processes, other } = cpuUsed(before, after);
  const perUnit = (seconds: number) => Number(((seconds * 1000) / Math.max(units, 1)).toFixed(3));
  const entries: [string, number][] = processes.map(([name, seconds]) => [name, perUnit(seconds)]);
  entries.push(['other processes', perUnit(other)]);
  return Object.fromEntries(entries);
}

export function cpuTable(before: CpuSnapshot, after: CpuSnapshot, units: number, unitName: string) {
  const wall = (after.machineTotal - before.machineTotal) / cpus().length; // /proc/stat counts every core
  const line = (name: string, used: number) =>
    `| ${name} | ${used.toFixed(2)} | ${((used / wall) * 100).toFixed(0)} % | ${((used * 1000) / units).toFixed(3)} |`;
  const { processes, sum, other } = cpuUsed(before, after);
  const rows = processes.map(([name, used]) => line(name, used));
  rows.push(line('**this benchmark (sum)**', sum));
  rows.push(line('other processes', other));
  return [
    `| process | CPU s | CPU (100 % = one core of ${cpus().length}) | CPU ms per ${unitName} |`,
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
