import { Client } from 'pg';
import { registeredStatements, type SqlStatement } from '@kessai/db';
import type { TestEnvironment } from './environment';

/**
 * A suite's own connection to its database (for statements and plans Prisma does not run), closed
 * at the suite's cleanup. `frozen`: tables whose statistics stay those the suite takes (its own
 * ANALYZE), as a busy table's lag behind its rows: autovacuum off on them until the cleanup turns
 * it back on.
 */
export async function suiteClient(
  suite: { env: TestEnvironment; cleanup(teardown: () => unknown): void },
  frozen: readonly string[] = [],
): Promise<Client> {
  const client = new Client({ connectionString: suite.env.database.url });
  await client.connect();
  suite.cleanup(async () => {
    for (const table of frozen) await client.query(`ALTER TABLE ${table} RESET (autovacuum_enabled)`);
    await client.end();
  });
  for (const table of frozen) await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  return client;
}

/** A node of a Postgres JSON plan (EXPLAIN ANALYZE, FORMAT JSON), as far as the plan tests read it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  /** under EXPLAIN ANALYZE only */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
  /** every other field of the plan node (Alias, Index Cond, Scan Direction…) */
  [field: string]: unknown;
}

/** Every node of a plan. */
export function planNodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(planNodes)];
}

/**
 * A statement prepared as the services prepare theirs (a named statement, which Postgres may settle
 * on a generic plan after a few runs), planned `mode`, run and rolled back under EXPLAIN ANALYZE:
 * its plan's nodes. `values` as the statement's `encode` gives them.
 */
export async function executedPlan(
  client: Client,
  text: string,
  values: unknown[],
  mode: 'custom' | 'generic',
): Promise<PlanNode[]> {
  await client.query(`PREPARE plan_probe AS ${text}`);
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL plan_cache_mode = force_${mode}_plan`);
    // EXECUTE takes its arguments as SQL, not as bound parameters: literals (a null one as NULL)
    const args = values.map((value) =>
      value === null || value === undefined ? 'NULL' : sqlArgument(client, value),
    );
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE plan_probe(${args.join(', ')})`,
    );
    return planNodes(rows[0]['QUERY PLAN'][0].Plan);
  } finally {
    await client.query('ROLLBACK');
    await client.query('DEALLOCATE plan_probe');
  }
}

/** A parameter's value as an SQL literal for EXECUTE. */
function sqlArgument(client: Client, value: unknown): string {
  return typeof value === 'number'
    ? String(value)
    : client.escapeLiteral(
        Array.isArray(value)
          ? `{${value.join(',')}}`
          : value instanceof Date
            ? value.toISOString()
            : String(value),
      );
}

/** executedPlan of a libs/db statement (registeredStatement), its parameters encoded as it sends them. */
export function statementPlan(
  client: Client,
  statement: SqlStatement,
  params: Parameters<SqlStatement['encode']>[0],
  mode: 'custom' | 'generic',
): Promise<PlanNode[]> {
  return executedPlan(client, statement.text, statement.encode(params), mode);
}

/** Index entries and rows of `table` a plan visited, and the indexes it used on it. */
export function tableReads(plan: PlanNode[], table: string) {
  const reads = plan.filter(
    (node) => node['Relation Name'] === table || node['Index Name']?.startsWith(`${table}_`) === true,
  );
  return {
    rows: reads.reduce((sum, node) => sum + actual(node, 'Actual Rows') * actual(node, 'Actual Loops'), 0),
    indexes: [...new Set(reads.flatMap((node) => node['Index Name'] ?? []))].sort(),
  };
}

/**
 * Rows of `table` a plan's scans read, those their filters or an index recheck then removed
 * included (0 for a figure the plan does not show).
 */
export function rowsRead(plan: PlanNode[], table: string): number {
  const figure = (node: PlanNode, field: string) => Number(node[field] ?? 0);
  return plan
    .filter((node) => node['Relation Name'] === table)
    .reduce(
      (sum, node) =>
        sum +
        (figure(node, 'Actual Rows') +
          figure(node, 'Rows Removed by Filter') +
          figure(node, 'Rows Removed by Index Recheck')) *
          figure(node, 'Actual Loops'),
      0,
    );
}

/** Rows the plan inserted into, updated or deleted from `table` (0 when it wrote none). */
export function rowsWritten(plan: PlanNode[], table: string): number {
  return plan
    .filter((node) => node['Node Type'] === 'ModifyTable' && node['Relation Name'] === table)
    .reduce((sum, node) => sum + actual(node, 'Actual Rows'), 0);
}

/** A statement of libs/db by its name, for a plan test. */
export function registeredStatement(name: string): SqlStatement {
  const found = registeredStatements().find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no statement ${name}`);
  return found;
}

/** A node's measured figure; a plan without them (not EXPLAIN ANALYZE) cannot show what was read. */
function actual(node: PlanNode, field: 'Actual Rows' | 'Actual Loops'): number {
  const value = node[field];
  if (value === undefined) throw new Error(`the plan has no ${field}: run it under EXPLAIN ANALYZE`);
  return value;
}
