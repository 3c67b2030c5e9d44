import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { DatabaseError, Pool, type PoolClient } from 'pg';
import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { WriteOutcomeUnknownError } from '@kessai/domain';
import { PrismaClient, type Prisma } from './generated/prisma/client';
import type { ParamsOf, PgTypes, RowOf, SqlStatement } from './sql/statement';

/**
 * Where a statement runs: the pool (by default), a pg client of `inTransaction`, or the client of a
 * Prisma interactive transaction.
 */
export type SqlDb = Pick<Pool, 'query'> | Prisma.TransactionClient;

/**
 * The one Prisma client of a process; repositories are its only users. `pool` is the pg pool under
 * it, for the plain SQL statements of libs/db (sql/: the hot paths, where Prisma's per-query cost
 * matters, and the queries Prisma cannot express), which `run` and `write` execute.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnModuleInit, OnModuleDestroy {
  readonly pool: Pool;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const pool = new Pool({ connectionString: config.DATABASE_URL, max: config.DB_POOL_SIZE });
    // A connection the server drops (a restart, an administrator's termination, a network cut)
    // emits 'error' on its client. The pool listens on idle clients only (and re-emits here); a
    // client checked out by `write` or `inTransaction` has no listener of pg's, and an 'error' with
    // no listener crashes the process. So every client gets one of its own for its whole life: the
    // statement in flight, if any, fails with the error anyway, the client is no longer queryable
    // and the pool discards it on release, and the next checkout opens a new connection.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  /**
   * Runs one of libs/db's statements (sql/*.sql.ts) and resolves to its decoded rows: on the pool,
   * bypassing the Prisma client (a hot path's cost), prepared under the statement's name once per
   * connection; or on `db`: a pg client inside `inTransaction`, or a Prisma interactive transaction
   * (`$transaction(async (tx) => …)`), where Prisma prepares it itself. A `replan` statement is sent
   * unnamed, so that Postgres plans it with its values at every call.
   */
  async run<P extends PgTypes, C extends PgTypes>(
    statement: SqlStatement<P, C>,
    params: ParamsOf<P>,
    options: { db?: SqlDb } = {},
  ): Promise<RowOf<C>[]> {
    const db = options.db ?? this.pool;
    const values = statement.encode(params);
    if ('$queryRawUnsafe' in db) {
      return statement.decode(await db.$queryRawUnsafe<Record<string, unknown>[]>(statement.text, ...values));
    }
    const name = statement.replan ? undefined : statement.name;
    return statement.decode(
      (await db.query<Record<string, unknown>>({ name, text: statement.text, values })).rows,
    );
  }

  /**
   * `run` for one statement whose outcome the caller must know (it creates charges), on a connection
   * of its own: failing to get one (nothing was sent) is thrown as it is, and so is an error Postgres
   * answered with (nothing was written); any other failure once the statement was sent (the
   * connection lost) is WriteOutcomeUnknownError `what`, since it may have committed.
   */
  async write<P extends PgTypes, C extends PgTypes>(
    what: string,
    statement: SqlStatement<P, C>,
    params: ParamsOf<P>,
  ): Promise<RowOf<C>[]> {
    const values = statement.encode(params);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const config = { name: statement.name, text: statement.text, values };
      return statement.decode((await client.query<Record<string, unknown>>(config)).rows);
    } catch (error) {
      if (error instanceof DatabaseError) throw error;
      broken = error instanceof Error ? error : new Error(String(error));
      throw new WriteOutcomeUnknownError(what, error);
    } finally {
      client.release(broken);
    }
  }

  /**
   * A plain pg transaction on the pool: BEGIN, `work`, COMMIT (ROLLBACK when it throws). A COMMIT
   * that fails without Postgres' answer is WriteOutcomeUnknownError: it may have committed. Any
   * failure before it cannot have.
   * `settings`: planner or session settings for this transaction only (SET LOCAL), sent with the
   * BEGIN in the same round trip; names and values are code's constants, never input.
   */
  async inTransaction<T>(
    work: (client: PoolClient) => Promise<T>,
    options: { settings?: Readonly<Record<string, string>> } = {},
  ): Promise<T> {
    const settings = Object.entries(options.settings ?? {}).map(([name, value]) => {
      if (!/^[a-z_]+$/.test(name) || !/^[a-z0-9_]+$/.test(value)) throw new Error(`bad setting ${name}`);
      return `; SET LOCAL ${name} = ${value}`;
    });
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(`BEGIN${settings.join('')}`);
      const result = await work(client);
      await client.query('COMMIT').catch((error: unknown) => {
        throw error instanceof DatabaseError
          ? error
          : new WriteOutcomeUnknownError('transaction commit', error);
      });
      return result;
    } catch (error) {
      // a connection that cannot even roll back is not given back to the pool
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /** A process connects at boot: one that cannot reach Postgres does not start. */
  async onModuleInit() {
    await this.$queryRaw`SELECT 1`;
  }

  async isHealthy(): Promise<boolean> {
    try {
      await this.$queryRaw`SELECT 1`;
      return true;
    } catch {
      return false;
    }
  }

  async onModuleDestroy() {
    await this.$disconnect();
    await this.pool.end();
  }
}
