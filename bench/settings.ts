/** The benches' settings from the environment, and the small formatters their tables share. */

/** A numeric setting: the variable `name`, or `fallback` when it is unset. */
export const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/** An on/off setting: on unless the variable `name` is 0. */
export const on = (name: string) => process.env[name] !== '0';

/** A scratch database of the bench's own, beside (never inside) the test suites' template, unless TEST_DATABASE_URL names one. */
export function useScratchDatabase(): void {
  process.env.TEST_DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/kessai_bench';
}

/** A figure with `digits` decimals; a dash for one that was not measured. */
export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

/** HTTP statuses (or charge statuses) and how many of each, as `201×1500 429×3`. */
export const statusList = (statuses: Record<string | number, number>) =>
  Object.entries(statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');

/** Runs a benchmark's `main` and exits with its code (1, its error printed, when it throws). */
export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
