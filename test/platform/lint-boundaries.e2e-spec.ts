import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

// The boundaries of docs/decisions/0001-enforced-boundaries.md are lint rules. Each is shown failing
// on a planted violation, and a clean file passes. The planted files form a throwaway app,
// apps/lint-probe, and a throwaway lib, libs/lint-probe, that exist only while this suite runs.

const root = join(__dirname, '..', '..');
const probe = join(root, 'apps', 'lint-probe');
const libProbe = join(root, 'libs', 'lint-probe');

const planted: Record<string, string> = {
  'cycle-a.ts': `import { b } from './cycle-b';\nexport const a = (n: number): number => (n > 0 ? b(n - 1) : 0);\n`,
  'cycle-b.ts': `import { a } from './cycle-a';\nexport const b = (n: number): number => a(n) + 1;\n`,
  'imports-pg.ts': `import { Pool } from 'pg';\nexport const pool = new Pool();\n`,
  'imports-prisma-client.ts': `import { PrismaClient } from '@prisma/client';\nexport const client = PrismaClient;\n`,
  'imports-generated-client.ts':
    `import type { Charge } from '../../../libs/db/src/generated/prisma/client';\n` +
    `export type Row = Charge;\n`,
  'imports-prisma-service.ts': `import { PrismaService } from '@kessai/db';\nexport const service = PrismaService;\n`,
  'runs-raw-sql.ts':
    `export const wipe = (db: { $executeRawUnsafe(sql: string): Promise<number> }): Promise<number> =>\n` +
    `  db.$executeRawUnsafe('DELETE FROM charges');\n`,
  'imports-pg-at-run-time.ts': `export const loadPg = () => import('pg');\n`,
  'imports-another-app.ts': `export { createGatewayApp } from '../../gateway/src/app.factory';\n`,
  'clean.ts':
    `import { MerchantsRepository } from '@kessai/db';\n` +
    `import { isUuid } from '@kessai/domain';\n` +
    `import { HttpPaymentProcessor } from '@kessai/processor';\n` +
    `export const parts = { MerchantsRepository, HttpPaymentProcessor };\n` +
    `export const known = (id: string): boolean => isUuid(id);\n`,
};

/** Planted in libs/lint-probe: a lib reaching into the gateway (decision 0026). */
const plantedInLib: Record<string, string> = {
  'lib-imports-gateway.ts': `export { ChargesController } from '../../../apps/gateway/src/charges/charges.controller';\n`,
};

// ESLint loads its flat config with import(), which jest's module sandbox refuses: it runs in a
// process of its own, through its Node API, and prints what it found as JSON.
const LINT = `
  import { ESLint } from 'eslint';
  const results = await new ESLint({ cwd: process.cwd() }).lintFiles(process.argv.slice(1));
  process.stdout.write(JSON.stringify(results.map(({ filePath, messages }) => ({ filePath, messages }))));
`;

interface Reported {
  ruleId: string | null;
  message: string;
}
let reports: Map<string, Reported[]>;

function reportedFor(file: string): Reported[] {
  const reported = reports.get(file);
  if (!reported) throw new Error(`ESLint did not lint ${file}`);
  return reported.map(({ ruleId, message }) => ({ ruleId, message }));
}

beforeAll(async () => {
  rmSync(probe, { recursive: true, force: true });
  mkdirSync(join(probe, 'src'), { recursive: true });
  for (const [name, text] of Object.entries(planted)) writeFileSync(join(probe, 'src', name), text);
  rmSync(libProbe, { recursive: true, force: true });
  mkdirSync(join(libProbe, 'src'), { recursive: true });
  for (const [name, text] of Object.entries(plantedInLib)) writeFileSync(join(libProbe, 'src', name), text);

  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', LINT, join(probe, 'src'), join(libProbe, 'src')],
    { cwd: root, maxBuffer: 16 * 1024 * 1024 },
  );
  const results = JSON.parse(stdout) as { filePath: string; messages: Reported[] }[];
  reports = new Map(results.map((result) => [basename(result.filePath), result.messages]));
}, 120_000);

afterAll(() => {
  rmSync(probe, { recursive: true, force: true });
  rmSync(libProbe, { recursive: true, force: true });
});

const databaseRule = expect.stringContaining('the database is reached through libs/db repositories only');

it('reports an import cycle, through either file', () => {
  for (const file of ['cycle-a.ts', 'cycle-b.ts']) {
    expect(reportedFor(file)).toContainEqual(expect.objectContaining({ ruleId: 'import-x/no-cycle' }));
  }
});

it.each([
  'imports-pg.ts',
  'imports-prisma-client.ts',
  'imports-generated-client.ts',
  'imports-prisma-service.ts',
])('reports the database reached outside libs/db: %s', (file) => {
  expect(reportedFor(file)).toContainEqual({ ruleId: 'no-restricted-imports', message: databaseRule });
});

it.each(['runs-raw-sql.ts', 'imports-pg-at-run-time.ts'])(
  'reports the database reached outside libs/db: %s',
  (file) => {
    expect(reportedFor(file)).toContainEqual({ ruleId: 'no-restricted-syntax', message: databaseRule });
  },
);

it('reports an app importing another app', () => {
  expect(reportedFor('imports-another-app.ts')).toContainEqual({
    ruleId: 'import-x/no-restricted-paths',
    message: expect.stringContaining('an app does not import another app'),
  });
});

it('reports a lib importing the gateway', () => {
  expect(reportedFor('lib-imports-gateway.ts')).toContainEqual({
    ruleId: 'import-x/no-restricted-paths',
    message: expect.stringContaining('a lib does not import an app'),
  });
});

it('passes a clean file that uses libs, libs/db repositories included', () => {
  expect(reportedFor('clean.ts')).toEqual([]);
});
