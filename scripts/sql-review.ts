/**
 * `npm run sql:generate`: writes libs/db/queries/<module>.sql (libs/db/src/<aggregate>/<module>.sql.ts's
 * statements; one flat folder, so module names are unique), every plain SQL statement of libs/db
 * as Postgres receives it (name, parameter and column types, text), so that a reviewer sees in a
 * diff the SQL a change produces, not only the TypeScript that builds it (immich's generated query
 * files are the model). `npm run sql:check` (CI): fails when the committed files are not what the
 * code generates.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { registeredStatements, type SqlStatement } from '../libs/db/src/sql/statement';

const ROOT = join(__dirname, '..');
const SOURCES = join(ROOT, 'libs', 'db', 'src');
export const QUERIES_DIR = join(ROOT, 'libs', 'db', 'queries');

/** Every module of libs/db that defines statements, in a stable order. */
function statementModules(dir = SOURCES): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'generated' ? [] : statementModules(path);
      if (!entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts') || entry.name === 'statement.ts')
        return [];
      return readFileSync(path, 'utf8').includes('defineStatement(') ? [path] : [];
    });
}

/** The text as a block: its common indentation removed, trailing blanks trimmed. */
function dedent(text: string): string {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n');
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length));
  return lines.map((l) => l.slice(indent).trimEnd()).join('\n');
}

function describe(statement: SqlStatement): string {
  const params = Object.entries(statement.params).map(([key, type], i) => `$${i + 1} ${key} ${type.name}`);
  const columns = Object.entries(statement.columns).map(([key, type]) => `${key} ${type.name}`);
  return [
    `-- ${statement.name}${statement.replan ? ' (replanned)' : ''}`,
    `-- params: ${params.length > 0 ? params.join(', ') : 'none'}`,
    `-- columns: ${columns.length > 0 ? columns.join(', ') : 'none'}`,
    `${dedent(statement.text)};`,
  ].join('\n');
}

/** A statement exported itself, or inside exported tables of them (e.g. one per scope and order). */
function reachable(values: unknown[], depth = 0): unknown[] {
  return values.flatMap((value) =>
    value !== null && typeof value === 'object' && !('text' in value) && depth < 3
      ? reachable(Object.values(value), depth + 1)
      : [value],
  );
}

/**
 * File name → contents: each module's statements (those it exports, in the order it defines them).
 * A statement no module exports is an error: it could not be reviewed where it lives.
 */
export function generatedQueryFiles(): Map<string, string> {
  const modules = statementModules();
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exportsOf = modules.map((module) => [module, require(module) as Record<string, unknown>] as const);
  const order = registeredStatements();
  const claimed = new Set<SqlStatement>();
  const files = new Map<string, string>();
  const sources = new Map<string, string>();
  for (const [module, exported] of exportsOf) {
    const own = new Set(reachable(Object.values(exported)));
    const statements = order.filter((statement) => own.has(statement));
    if (statements.length === 0) continue;
    for (const statement of statements) claimed.add(statement);
    // one folder of review files for every aggregate's folder: a module's name must be unique
    const name = `${basename(module, '.ts').replace(/\.sql$/, '')}.sql`;
    const same = sources.get(name);
    if (same)
      throw new Error(`${relative(ROOT, same)} and ${relative(ROOT, module)} would both write ${name}`);
    sources.set(name, module);
    const header = `-- Generated from ${relative(ROOT, module)} by npm run sql:generate: do not edit.\n`;
    files.set(name, `${header}\n${statements.map(describe).join('\n\n')}\n`);
  }
  const unclaimed = order.filter((statement) => !claimed.has(statement)).map((statement) => statement.name);
  if (unclaimed.length > 0)
    throw new Error(`statements no module of libs/db exports: ${unclaimed.join(', ')}`);
  return files;
}

function main(command: string | undefined): number {
  const generated = generatedQueryFiles();
  if (command === 'generate') {
    rmSync(QUERIES_DIR, { recursive: true, force: true });
    mkdirSync(QUERIES_DIR, { recursive: true });
    for (const [name, text] of generated) writeFileSync(join(QUERIES_DIR, name), text);
    console.log(`sql: wrote ${generated.size} files to ${relative(ROOT, QUERIES_DIR)}`);
    return 0;
  }
  if (command !== 'check') {
    console.error('usage: sql-review.ts generate|check');
    return 64;
  }
  let committed: string[];
  try {
    committed = readdirSync(QUERIES_DIR).sort();
  } catch {
    committed = [];
  }
  const stale = [
    ...[...generated.keys()].filter((name) => {
      try {
        return readFileSync(join(QUERIES_DIR, name), 'utf8') !== generated.get(name);
      } catch {
        return true;
      }
    }),
    ...committed.filter((name) => !generated.has(name)),
  ];
  if (stale.length > 0) {
    console.error(
      `sql: libs/db/queries is stale (${stale.join(', ')}): the SQL changed; run npm run sql:generate, ` +
        'review the diff and commit it',
    );
    return 1;
  }
  console.log(`sql: libs/db/queries is current (${generated.size} files)`);
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv[2]);
