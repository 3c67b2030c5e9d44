import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Violation, ViolationKind } from './check';
import type { SdkCallRecord } from './record';

/**
 * A deliberate or known difference between Kessai's answers and the SDK's declared types: the
 * methods and answer paths it covers (in both `*` matches any characters: a path pattern starting
 * with one covers a list's items and a nested answer too), the kind and, for `enum`, the value; why,
 * with the decision that records it or the issue that will close it.
 */
export interface SdkException {
  method: string | string[];
  path: string | string[];
  kind: ViolationKind;
  value?: string;
  reason: string;
}

export interface SdkConformanceReport {
  /** distinct methods called (answered or failed with the API's envelope) */
  methods: string[];
  /** methods none of whose answers broke their type */
  typeClean: string[];
  /** methods whose answers broke their type only where the exceptions list says */
  cleanButForExceptions: string[];
  /** violations no exception covers, with the test files that met them */
  unlisted: { method: string; violation: Violation; files: string[] }[];
  /** exceptions (by index in the list) met in this run */
  used: number[];
  /** exceptions not met in this run: fixed, or not called by the suites that ran */
  unused: number[];
}

export function loadSdkExceptions(file: string): SdkException[] {
  const list = parse(readFileSync(file, 'utf8')) as SdkException[] | null;
  return list ?? [];
}

function globMatch(pattern: string, text: string): boolean {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`).test(text);
}

function matches(exception: SdkException, method: string, violation: Violation): boolean {
  const methods = [exception.method].flat();
  const paths = [exception.path].flat();
  return (
    exception.kind === violation.kind &&
    (exception.value === undefined || exception.value === violation.value) &&
    methods.some((m) => globMatch(m, method)) &&
    paths.some((p) => globMatch(p, violation.path))
  );
}

/** The run's calls, from the folder the instrumented SDK appended them to. */
export function readSdkCalls(dir: string): SdkCallRecord[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as SdkCallRecord),
    );
}

export function sdkConformanceReport(
  calls: SdkCallRecord[],
  exceptions: SdkException[],
): SdkConformanceReport {
  const methods = new Set<string>();
  const broken = new Set<string>();
  const brokenUnlisted = new Set<string>();
  const used = new Set<number>();
  const unlisted = new Map<string, { method: string; violation: Violation; files: Set<string> }>();
  for (const call of calls) {
    methods.add(call.method);
    for (const violation of call.violations) {
      broken.add(call.method);
      const index = exceptions.findIndex((e) => matches(e, call.method, violation));
      if (index >= 0) {
        used.add(index);
        continue;
      }
      brokenUnlisted.add(call.method);
      const key = JSON.stringify([call.method, violation.path, violation.kind, violation.value]);
      const entry = unlisted.get(key) ?? { method: call.method, violation, files: new Set() };
      entry.files.add(call.file);
      unlisted.set(key, entry);
    }
  }
  const sorted = [...methods].sort();
  return {
    methods: sorted,
    typeClean: sorted.filter((m) => !broken.has(m)),
    cleanButForExceptions: sorted.filter((m) => broken.has(m) && !brokenUnlisted.has(m)),
    unlisted: [...unlisted.values()].map((u) => ({ ...u, files: [...u.files].sort() })),
    used: [...used].sort((a, b) => a - b),
    unused: exceptions.map((_, i) => i).filter((i) => !used.has(i)),
  };
}

function describe(method: string, v: Violation): string {
  return `${method} ${v.path || '/'} ${v.kind}${v.value === undefined ? '' : ` ${v.value}`}`;
}

/** The report as the end of a jest run prints it. */
export function formatSdkConformanceReport(
  report: SdkConformanceReport,
  exceptions: SdkException[],
  sdkVersion: string,
): string {
  const lines = [
    `SDK conformance (univapay-node ${sdkVersion}): ${report.methods.length} methods called, ` +
      `${report.typeClean.length} type-clean, ${report.cleanButForExceptions.length} clean but for ` +
      `listed exceptions; ${report.used.length} of ${exceptions.length} listed exceptions used; ` +
      `${report.unlisted.length} unlisted violations`,
  ];
  for (const { method, violation, files } of report.unlisted) {
    lines.push(`  UNLISTED ${describe(method, violation)}  (${files.join(', ')})`);
  }
  if (report.unused.length > 0) {
    lines.push(
      `  ${report.unused.length} listed exceptions did not occur (fixed — remove them — or not ` +
        `called by the suites that ran):`,
    );
    for (const i of report.unused) {
      const e = exceptions[i];
      lines.push(`    ${[e.method].flat().join(',')} ${[e.path].flat().join(',')} ${e.kind}`);
    }
  }
  return lines.join('\n');
}
