/**
 * `npm run bench:all`: every benchmark back to back on one build, then one table (issue 35): each
 * path's rate, what it is compared with in the same run and the ratio, the target and whether it
 * was met, p50/p99, and CPU per operation by process. Each benchmark's own output goes by as it
 * runs (the full tables, for bench/README.md); the table at the end is made from the lines they
 * recorded (bench/summary.ts), so it cannot disagree with them.
 *
 * Settings: BENCH_ALL (a comma-separated subset of the names below, in that order; default all),
 * and every benchmark's own BENCH_* settings, passed through unchanged. Exits 1 when a benchmark
 * failed, recorded nothing it should have, or missed a target.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SummaryRow } from './summary';

interface Bench {
  name: string;
  file: string;
  /** whether it records summary lines (the others are judged by their exit status alone) */
  summarized: boolean;
}

const BENCHES: Bench[] = [
  { name: 'charges', file: 'bench/charges.bench.ts', summarized: true },
  { name: 'webhooks', file: 'bench/webhooks.bench.ts', summarized: true },
  { name: 'reads', file: 'bench/reads.bench.ts', summarized: true },
  { name: 'recurring', file: 'bench/recurring.bench.ts', summarized: true },
  { name: 'ledger', file: 'bench/ledger.bench.ts', summarized: true },
  { name: 'console', file: 'bench/console-list.bench.ts', summarized: true },
  { name: 'connectors', file: 'bench/connectors.bench.ts', summarized: true },
  { name: 'limiter', file: 'bench/rate-limiter.bench.ts', summarized: false },
  { name: 'webhook-sender', file: 'bench/webhook-sender.bench.ts', summarized: false },
  { name: 'availability', file: 'bench/availability.bench.ts', summarized: false },
];

const root = path.resolve(__dirname, '..');
const chosen = process.env.BENCH_ALL?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = chosen?.filter((name) => !BENCHES.some((bench) => bench.name === name)) ?? [];
if (unknown.length > 0) {
  console.error(
    `BENCH_ALL names no benchmark ${unknown.join(', ')} (known: ${BENCHES.map((b) => b.name).join(', ')})`,
  );
  process.exit(2);
}
const benches = chosen ? BENCHES.filter((bench) => chosen.includes(bench.name)) : BENCHES;

const fmt = (n: number | undefined, digits = 0) =>
  n === undefined || !Number.isFinite(n)
    ? ''
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `gateway 0.42 · charge-service 0.40 · …`, the largest first, `other processes` last. */
function cpuCell(cpu: Record<string, number> | undefined): string {
  if (!cpu) return '';
  const { ['other processes']: other, ...own } = cpu;
  const parts = Object.entries(own)
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`);
  if (other !== undefined) parts.push(`other ${other.toFixed(2)}`);
  return parts.join(' · ');
}

function main(): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'kessai-bench-all-'));
  const summaryFile = path.join(dir, 'summary.jsonl');
  const started = new Date();
  try {
    const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) {
      console.error('bench:all: the build failed');
      return 1;
    }
    const exits = new Map<string, number | null>();
    for (const bench of benches) {
      console.log(`\n===== bench:all: ${bench.name} (${bench.file}) =====\n`);
      const run = spawnSync(
        process.execPath,
        ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', bench.file],
        {
          cwd: root,
          stdio: 'inherit',
          env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', BENCH_SUMMARY_FILE: summaryFile },
        },
      );
      exits.set(bench.name, run.status);
    }
    const rows: SummaryRow[] = existsSync(summaryFile)
      ? readFileSync(summaryFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as SummaryRow)
      : [];

    let failed = false;
    console.log(
      `\n## bench:all, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${benches.length} benchmarks\n`,
    );
    console.log(
      '| bench | path | /s | compared with | its /s | ratio | target | p50 / p99 ms | CPU ms per operation by process | result |',
    );
    console.log('|---|---|---:|---|---:|---:|---|---|---|---|');
    for (const bench of benches) {
      const exit = exits.get(bench.name);
      const own = rows.filter((row) => row.bench === bench.name);
      if (bench.summarized && own.length === 0) {
        failed = true;
        console.log(`| ${bench.name} | (recorded nothing) | | | | | | | | **FAIL** (exit ${exit}) |`);
        continue;
      }
      if (!bench.summarized) {
        failed ||= exit !== 0;
        console.log(
          `| ${bench.name} | its own tables above | | | | | exit 0 | | | ${exit === 0 ? 'pass' : `**FAIL** (exit ${exit})`} |`,
        );
        continue;
      }
      // a benchmark that failed with every row met failed for another reason: every row says so
      const explained = own.some((row) => row.pass === false);
      for (const row of own) {
        const ratio = row.reference ? row.perSecond / row.reference.perSecond : undefined;
        const targets = [
          row.targetRatio !== undefined ? `≥ ${fmt(row.targetRatio * 100)} %` : '',
          row.targetPerSecond !== undefined ? `≥ ${fmt(row.targetPerSecond)}/s` : '',
        ]
          .filter(Boolean)
          .join(', ');
        const pass = row.pass !== false && (exit === 0 || explained);
        failed ||= !pass;
        console.log(
          `| ${row.bench} | ${row.path} | ${fmt(row.perSecond)} | ${row.reference?.name ?? ''} | ${fmt(row.reference?.perSecond)} | ${ratio === undefined ? '' : `${fmt(ratio * 100)} %`} | ${targets} | ${fmt(row.p50Ms, 1)} / ${fmt(row.p99Ms, 1)} | ${cpuCell(row.cpuMsPerOp)} | ${pass ? 'pass' : `**FAIL**${explained || exit === 0 ? '' : ` (exit ${exit})`}`}${row.notes ? `; ${row.notes}` : ''} |`,
        );
      }
    }
    console.log(
      `\n"other" is CPU the rest of the machine used meanwhile: the figures are clean only when it is near 0.`,
    );
    return failed ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = main();
