import type { Client } from 'pg';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first column of the first row as a number (a count, a sum). */
export async function scalar(db: Client, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await db.query<{ n: string | number | null }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

/** Polls `check` every 250 ms until it holds; fails past `timeoutMs`. */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
