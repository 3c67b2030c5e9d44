/**
 * Driver adapter for Prisma's JavaScript schema engine (migrate deploy/dev/diff run offline with it).
 *
 * Three upstream bugs of @prisma/adapter-pg 6.19 are mended here, for migrations only:
 * - it runs a migration's script by splitting it at every `;`, which cuts a function body (PL/pgSQL)
 *   or a comment holding one in pieces; the script is sent whole instead, as one simple-protocol
 *   query (Postgres runs its statements in order, in one implicit transaction);
 * - introspection selects Postgres `name` (oid 19) and `"char"` (oid 18) columns, which the adapter
 *   cannot map to a column type (prisma/orm#27403); they are reported as `text` (oid 25);
 * - its shadow database ignores the database name when a connection string is given, and drops the
 *   shadow database while its own pool still holds connections.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const TEXT_OID = 25;
const UNDECODABLE_OIDS = new Set([18, 19]);

type PgResult = { fields?: { dataTypeID: number }[] };
type Queryable = { performIO(query: unknown): Promise<PgResult | PgResult[]> };
type ScriptRunner = {
  executeScript?: (script: string) => Promise<void>;
  underlyingDriver?: () => unknown;
  onError?: (error: unknown) => never;
};

function runScriptsWhole<T>(queryable: T): T {
  const target = queryable as unknown as ScriptRunner;
  if (typeof target.executeScript !== 'function' || typeof target.underlyingDriver !== 'function')
    return queryable;
  const driver = target.underlyingDriver() as { query(text: string): Promise<unknown> };
  target.executeScript = async (script) => {
    try {
      await driver.query(script);
    } catch (error) {
      // the adapter's own error conversion, as its executeScript does
      if (typeof target.onError === 'function') target.onError(error);
      throw error;
    }
  };
  return queryable;
}

function reportNameColumnsAsText<T>(queryable: T): T {
  const target = queryable as unknown as Queryable;
  const performIO = target.performIO.bind(target);
  target.performIO = async (query) => {
    const result = await performIO(query);
    // a multi-statement script answers with one result per statement
    for (const part of Array.isArray(result) ? result : [result]) {
      for (const field of part.fields ?? []) {
        if (UNDECODABLE_OIDS.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
      }
    }
    return result;
  };
  const withTx = queryable as unknown as { startTransaction?: (...a: unknown[]) => Promise<unknown> };
  if (typeof withTx.startTransaction === 'function') {
    const start = withTx.startTransaction.bind(queryable);
    withTx.startTransaction = async (...args: unknown[]) => reportNameColumnsAsText(await start(...args));
  }
  return queryable;
}

function withDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  return url.toString();
}

export class MigrationAdapterFactory extends PrismaPg {
  constructor(private readonly connectionString: string) {
    super({ connectionString });
  }

  override async connect() {
    return runScriptsWhole(reportNameColumnsAsText(await super.connect()));
  }

  override async connectToShadowDb() {
    const database = `prisma_shadow_${randomUUID().replaceAll('-', '')}`;
    const admin = new pg.Client({ connectionString: this.connectionString });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${database}"`);
    await admin.end();
    const shadow = new PrismaPg({ connectionString: withDatabase(this.connectionString, database) });
    const adapter = runScriptsWhole(reportNameColumnsAsText(await shadow.connect()));
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      const cleanup = new pg.Client({ connectionString: this.connectionString });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await cleanup.end();
    };
    return adapter;
  }
}
