/**
 * Adding a migration (`npm run db:migrate:new -- <name>`) and checking the migrations' order (part
 * of `npm run db:check`).
 *
 * Prisma applies the folders of prisma/migrations in the order of their names (a UTC timestamp, then
 * a label) and records each one it applied. A folder whose name sorts before one that deployments
 * applied already is applied after it there, but before it on a fresh database: the two orders may
 * end in different schemas, or one of them may fail. So a new folder is named after every existing
 * one (`nextMigrationName`), and the check fails when a folder reached this branch after another
 * that sorts after it (`orderProblems`). "Reached" is the order of the branch's first-parent line
 * (`git log --first-parent`, a merge counting as the commit that brought its folders): the order in
 * which a deployment following that line applied them. A branch's own commit dates say nothing
 * about it (a migration written first may be merged last).
 *
 * The SQL comes from `prisma migrate diff --from-migrations … --to-schema-datamodel … --script`:
 * the migrations replayed into a scratch database and compared with schema.prisma, as db:check does.
 * `prisma migrate dev --create-only` (what db:migrate:new ran before) also reads DATABASE_URL's
 * database for drift, and crashed once ("null pointer passed to rust"; not reproduced, its cause
 * unknown); the diff needs neither that database's contents nor `migrate dev`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
export const MIGRATIONS_DIR = 'prisma/migrations';

/** `<UTC timestamp, 14 digits>_<snake_case label>`, as Prisma names a migration's folder. */
const FOLDER_NAME = /^(\d{14})_([a-z0-9]+(?:_[a-z0-9]+)*)$/;
const LABEL = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/**
 * Folders that reached the line out of order and that deployments have applied already: renaming
 * one would make them apply it a second time (under its new name) and fail. Each says why both
 * orders end in the same schema.
 */
export const KNOWN_OUT_OF_ORDER: Readonly<Record<string, string>> = {
  '20261125100000_stray_deposits':
    'written on the bank-transfer branch, merged (989c5cc) after 20261125110000_hosted_checkout ' +
    '(6d7debe): deployments between the two merges applied hosted_checkout first. It touches ' +
    'charge_deposits and a new unassigned_deposits table only, hosted_checkout the checkout_* tables ' +
    'only: either order gives one schema',
};

/** The migration folders under `dir` (what Prisma reads: directories only), sorted by name. */
export function migrationFolders(root = ROOT, dir = MIGRATIONS_DIR): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** `date` as a migration timestamp: YYYYMMDDHHMMSS in UTC. */
export function migrationTimestamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, '')
    .replace(/[-T:]/g, '');
}

function timestampDate(timestamp: string): Date {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(timestamp)!;
  return new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s));
}

/**
 * The folder name of a new migration: `now` as its timestamp, or one second after the newest
 * existing folder when that is not earlier (a clock behind, a folder named in the future, two made
 * within a second), so that the new one is applied after every other.
 */
export function nextMigrationName(existing: readonly string[], label: string, now: Date): string {
  if (!LABEL.test(label))
    throw new Error(
      `a migration's name is snake_case (a-z, 0-9, single underscores): ${JSON.stringify(label)}`,
    );
  let timestamp = migrationTimestamp(now);
  const newest = existing
    .map((name) => FOLDER_NAME.exec(name)?.[1])
    .filter((stamp): stamp is string => stamp !== undefined)
    .sort()
    .at(-1);
  if (newest !== undefined && timestamp <= newest)
    timestamp = migrationTimestamp(new Date(timestampDate(newest).getTime() + 1_000));
  return `${timestamp}_${label}`;
}

/**
 * When each folder reached the branch: the position on its first-parent line of the commit that
 * brought it (0 first); a folder that none brought yet (not committed) after all of them.
 * - `history`: a full clone, every folder placed;
 * - `tracked`: a shallow clone (its oldest commit seems to add everything): only "committed" (0)
 *   or "not yet" (1), so that a new folder is still checked against the committed ones;
 * - `none`: not a git work tree (an unpacked archive): nothing to order by.
 */
export type Arrivals =
  | { kind: 'history'; position: ReadonlyMap<string, number> }
  | { kind: 'tracked'; position: ReadonlyMap<string, number>; reason: string }
  | { kind: 'none'; reason: string };

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** The folder of a path under `dir` (`prisma/migrations/<folder>/migration.sql`). */
function folderOf(file: string, dir: string): string | null {
  const rest = file.startsWith(`${dir}/`) ? file.slice(dir.length + 1) : null;
  return rest?.includes('/') ? rest.slice(0, rest.indexOf('/')) : null;
}

export function readArrivals(root = ROOT, dir = MIGRATIONS_DIR): Arrivals {
  if (git(root, ['rev-parse', '--is-inside-work-tree'])?.trim() !== 'true')
    return { kind: 'none', reason: 'not a git work tree' };
  // paths relative to the work tree's top, whichever directory `root` is in it
  const prefix = git(root, ['rev-parse', '--show-prefix'])?.trim() ?? '';
  const under = `${prefix}${dir}`;
  const position = new Map<string, number>();
  if (git(root, ['rev-parse', '--is-shallow-repository'])?.trim() === 'true') {
    for (const file of (git(root, ['ls-files', '--full-name', '--', dir]) ?? '').split('\n')) {
      const folder = folderOf(file, under);
      if (folder) position.set(folder, 0);
    }
    return { kind: 'tracked', position, reason: 'a shallow clone has not the history' };
  }
  if (git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']) === null) return { kind: 'history', position };
  const log = git(root, [
    'log',
    '--first-parent',
    // a merge as its diff against the first parent: what it brought onto the line
    '-m',
    // a renamed folder counts from its rename (under its new name it is a new migration to Prisma)
    '--no-renames',
    '--diff-filter=A',
    '--reverse',
    '--name-only',
    '--format=%x01',
    '--',
    dir,
  ]);
  if (log === null) return { kind: 'none', reason: '`git log` failed' };
  log
    .split('\x01')
    .slice(1)
    .forEach((commit, i) => {
      for (const file of commit.split('\n')) {
        const folder = folderOf(file, under);
        if (folder && !position.has(folder)) position.set(folder, i);
      }
    });
  return { kind: 'history', position };
}

/**
 * What is wrong with the folders' names and order: a name Prisma's ordering would misread, two
 * folders with one timestamp, a folder that reached the branch after one that sorts after it (unless
 * a known exception), an exception that names no folder. `position`: as readArrivals gives it; a
 * folder it lacks arrived last. Empty when all is well.
 */
export function orderProblems(
  folders: readonly string[],
  position: ReadonlyMap<string, number> | null,
  exceptions: Readonly<Record<string, string>> = KNOWN_OUT_OF_ORDER,
): string[] {
  const problems: string[] = [];
  const byTimestamp = new Map<string, string>();
  for (const folder of folders) {
    const match = FOLDER_NAME.exec(folder);
    if (!match || migrationTimestamp(timestampDate(match[1])) !== match[1]) {
      problems.push(`${folder}: not <UTC timestamp YYYYMMDDHHMMSS>_<snake_case name>`);
      continue;
    }
    const other = byTimestamp.get(match[1]);
    if (other) problems.push(`${folder}: the same timestamp as ${other} (their order is their names')`);
    byTimestamp.set(match[1], folder);
  }
  for (const exception of Object.keys(exceptions))
    if (!folders.includes(exception)) problems.push(`known exception ${exception} is not a migration folder`);
  if (!position) return problems;

  const last = Math.max(-1, ...position.values()) + 1;
  const arrival = (folder: string) => position.get(folder) ?? last;
  const arrived = [...folders].sort((a, b) => arrival(a) - arrival(b) || (a < b ? -1 : 1));
  // the latest-sorting folder of those that arrived strictly before the current one's commit
  let latestBefore: string | null = null;
  let latestSoFar: string | null = null;
  arrived.forEach((folder, i) => {
    if (i > 0 && arrival(folder) !== arrival(arrived[i - 1])) latestBefore = latestSoFar;
    if (latestBefore !== null && folder < latestBefore && !(folder in exceptions))
      problems.push(
        `${folder} sorts before ${latestBefore}, which reached the branch before it: a deployment ` +
          `that applied ${latestBefore} applies ${folder} after it, a fresh database before it. ` +
          'Give it a name after every other (npm run db:migrate:new names it so); if deployments ' +
          'have applied it already, list it in KNOWN_OUT_OF_ORDER (scripts/migrations.ts) with why ' +
          'both orders give one schema',
      );
    if (latestSoFar === null || folder > latestSoFar) latestSoFar = folder;
  });
  return problems;
}

function check(): number {
  const folders = migrationFolders();
  const arrivals = readArrivals();
  const problems = orderProblems(folders, arrivals.kind === 'none' ? null : arrivals.position);
  for (const problem of problems) console.error(`db:check: ${problem}`);
  if (problems.length > 0) return 1;
  if (arrivals.kind !== 'history')
    console.error(
      `db:check: the order of committed migrations is not checked: ${arrivals.reason}` +
        (arrivals.kind === 'tracked'
          ? ' (new folders are checked against the committed ones; `git fetch --unshallow` checks all)'
          : ' (names and timestamps are checked)'),
    );
  const exceptions = Object.keys(KNOWN_OUT_OF_ORDER).length;
  console.log(
    `db:check: ${folders.length} migrations, each named after the ones before it` +
      (exceptions ? ` (known exceptions: ${Object.keys(KNOWN_OUT_OF_ORDER).join(', ')})` : ''),
  );
  return 0;
}

/** The SQL that takes a database migrated to today's folders to schema.prisma, or '' when none. */
function schemaChangeSql(): string {
  const prisma = path.join(ROOT, 'node_modules', '.bin', 'prisma');
  const result = spawnSync(
    prisma,
    [
      ...['migrate', 'diff', '--script'],
      ...['--from-migrations', MIGRATIONS_DIR, '--to-schema-datamodel', 'prisma/schema.prisma'],
    ],
    { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (result.status !== 0)
    throw new Error(`prisma migrate diff failed (exit ${result.status ?? result.signal ?? 'unknown'})`);
  const sql = result.stdout.trim();
  return sql === '' || sql === '-- This is an empty migration.' ? '' : `${sql}\n`;
}

function create(args: string[]): number {
  const empty = args.includes('--empty');
  const [label, ...extra] = args.filter((arg) => arg !== '--empty');
  if (!label || extra.length > 0) {
    console.error('usage: npm run db:migrate:new -- <snake_case_name> [--empty]');
    return 64;
  }
  nextMigrationName([], label, new Date()); // the name's check, before the slow diff
  let sql: string;
  if (empty) {
    sql = `-- ${label}: written by hand (what it does, and why schema.prisma cannot say it)\n`;
  } else {
    if (!process.env.DATABASE_URL) {
      console.error(
        'db:migrate:new: DATABASE_URL is not set: a Postgres server on which it may create and drop ' +
          'a scratch database to replay the migrations in (its own database is not read)',
      );
      return 1;
    }
    sql = schemaChangeSql();
    if (sql === '') {
      console.error(
        'db:migrate:new: the migrations already make schema.prisma: nothing to write ' +
          '(--empty for a migration written by hand)',
      );
      return 1;
    }
  }
  // named now, after the diff, and written whole or not at all: Prisma would apply a folder left empty
  const name = nextMigrationName(migrationFolders(), label, new Date());
  const draft = path.join(ROOT, 'prisma', `.new-migration-${randomBytes(4).toString('hex')}`);
  const target = path.join(ROOT, MIGRATIONS_DIR, name);
  if (existsSync(target)) throw new Error(`${target} exists`);
  try {
    mkdirSync(draft);
    writeFileSync(path.join(draft, 'migration.sql'), sql);
    renameSync(draft, target);
  } finally {
    rmSync(draft, { recursive: true, force: true });
  }
  console.log(
    `db:migrate:new: wrote ${MIGRATIONS_DIR}/${name}/migration.sql; read it (add a comment saying why), ` +
      'then npm run db:check',
  );
  return 0;
}

function main([command, ...args]: string[]): number {
  if (command === 'check') return check();
  if (command === 'new') return create(args);
  console.error('usage: migrations.ts check | new <snake_case_name> [--empty]');
  return 64;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    console.error(`migrations: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
