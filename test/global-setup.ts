import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { templateDatabase, templatePrefix, testServerUrl, withDatabase } from '../libs/testing/src/database';
import { SDK_CONFORMANCE_DIR } from '../libs/testing/src/sdk-conformance/record';
import { loadSdkSchemas } from '../libs/testing/src/sdk-conformance/schemas';

/** A template no run has built for this long is dropped (when nobody is connected to it). */
const STALE_TEMPLATE_MS = 24 * 3_600_000;
const READY = 'kessai test template, migrated at ';

/**
 * Builds the template database every e2e suite copies: the real migrations, applied once. Its name
 * carries a digest of prisma/migrations (templateDatabase), so runs at once on one server — another
 * checkout's, a branch with one migration more — never drop or copy each other's. A run finding its
 * template built and marked ready reuses it; building one is serialised by an advisory lock, and the
 * mark (a comment on the database) is written only once the migrations applied. Templates nobody has
 * built for a day are dropped.
 */
export default async function globalSetup() {
  prepareSdkConformance();
  const template = templateDatabase();
  const admin = new Client({ connectionString: withDatabase(testServerUrl(), 'postgres') });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    try {
      if (!(await isReady(admin, template))) {
        await admin.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
        await admin.query(`CREATE DATABASE "${template}"`);
        execFileSync('npx', ['prisma', 'migrate', 'deploy'], {
          env: { ...process.env, DATABASE_URL: withDatabase(testServerUrl(), template) },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        await admin.query(`COMMENT ON DATABASE "${template}" IS '${READY}${new Date().toISOString()}'`);
      }
    } finally {
      await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
    }
    await dropStaleTemplates(admin, template);
  } finally {
    await admin.end();
  }
}

async function isReady(admin: Client, template: string): Promise<boolean> {
  const { rows } = await admin.query<{ comment: string | null }>(
    `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
    [template],
  );
  return rows[0]?.comment?.startsWith(READY) ?? false;
}

/** Other migrations' templates, built over a day ago and unused (no FORCE: a run may copy one now). */
async function dropStaleTemplates(admin: Client, keep: string): Promise<void> {
  const { rows } = await admin.query<{ name: string; comment: string | null }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment
       FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2`,
    [templatePrefix(), keep],
  );
  for (const { name, comment } of rows) {
    // a template without its mark is being built by another run right now: its run owns it
    const built = comment?.startsWith(READY) ? Date.parse(comment.slice(READY.length)) : NaN;
    if (Number.isNaN(built) || Date.now() - built <= STALE_TEMPLATE_MS) continue;
    // refused while a run is connected to it or copying it: then it stays for the next run to try
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`).catch(() => undefined);
  }
}

/**
 * The SDK conformance check (test/sdk-conformance.setup.ts, test/global-teardown.ts): the SDK's
 * answer schemas generated into their cache now, once, rather than by each worker at once; and the
 * folder the run's SDK calls are recorded in, which the workers inherit through the environment.
 */
function prepareSdkConformance(): void {
  loadSdkSchemas();
  process.env[SDK_CONFORMANCE_DIR] = mkdtempSync(join(tmpdir(), 'kessai-sdk-conformance-'));
}
