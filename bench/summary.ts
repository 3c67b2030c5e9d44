import { appendFileSync } from 'node:fs';

/**
 * One line of `npm run bench:all`'s table: a path's rate, what it is compared with in the same run,
 * the target on that ratio, latency and CPU per operation by process. A benchmark records its lines
 * with `recordSummary`; they go to BENCH_SUMMARY_FILE (one JSON object per line) when it is set, and
 * nowhere otherwise, so each benchmark still runs alone as before.
 */
export interface SummaryRow {
  bench: string;
  /** what was measured, e.g. "charges end to end" */
  path: string;
  perSecond: number;
  /** what the rate is compared with, measured in the same run */
  reference?: { name: string; perSecond: number };
  /** the target on perSecond / reference.perSecond (e.g. 0.75), when there is one */
  targetRatio?: number;
  /** a target on the rate itself (e.g. 2,000 deliveries/s), when there is one */
  targetPerSecond?: number;
  /** whether every target of the row was met, and its exactly-once checks held */
  pass?: boolean;
  p50Ms?: number;
  p99Ms?: number;
  /** ms of CPU per operation, by process (cpuPerUnit) */
  cpuMsPerOp?: Record<string, number>;
  notes?: string;
}

export function recordSummary(...rows: SummaryRow[]): void {
  const file = process.env.BENCH_SUMMARY_FILE;
  if (!file) return;
  appendFileSync(file, rows.map((row) => JSON.stringify(row) + '\n').join(''));
}

/** Whether `row` meets its targets (true when it has none). */
export function meetsTargets(
  row: Pick<SummaryRow, 'perSecond' | 'reference' | 'targetRatio' | 'targetPerSecond'>,
) {
  const ratioOk =
    row.targetRatio === undefined ||
    (row.reference !== undefined && row.perSecond / row.reference.perSecond >= row.targetRatio);
  const rateOk = row.targetPerSecond === undefined || row.perSecond >= row.targetPerSecond;
  return ratioOk && rateOk;
}
