/**
 * The one idiom of libs/db's plain SQL: a statement is defined once, at load time, with a fixed text
 * (`$n` placeholders, prepared under its name once per connection), the Postgres type of each
 * parameter and of each result column, and from those its TypeScript parameter and row types and
 * its row decoder (int8 → bigint). `PrismaService.run` / `write` execute them; the contract test
 * (test/sql-statements.e2e-spec.ts) prepares every statement against the migrated schema and
 * compares the columns Postgres describes with the ones declared here.
 */

/** A Postgres type as a statement's parameter or result column, with its TypeScript type. */
export interface PgType<T> {
  /** as a cast spells it, e.g. `uuid[]`, `charge_status`: the contract test resolves it with ::regtype */
  readonly name: string;
  /** pg's (or Prisma's, inside its transactions) value to T; absent when they hand over T already */
  decode?(this: void, value: unknown): T;
  /** T to what pg sends; absent when pg sends T as it is */
  encode?(this: void, value: T): unknown;
  /** phantom: the TypeScript type */
  readonly __type?: T;
}

export type TypeOf<P> = P extends PgType<infer T> ? T : never;

function pgType<T>(name: string, codec: Pick<PgType<T>, 'decode' | 'encode'> = {}): PgType<T> {
  return { name, ...codec };
}

/** int8 arrives from pg as a string (from Prisma as a bigint): minor units are bigint end to end. */
const int8 = pgType<bigint>('int8', { decode: (value) => BigInt(value as string | bigint) });

export const pg = {
  uuid: pgType<string>('uuid'),
  text: pgType<string>('text'),
  /** text holding one of T's values (an enum read as ::text) */
  textOf: <T extends string>() => pgType<T>('text'),
  /** char(n), e.g. a currency code */
  bpchar: pgType<string>('bpchar'),
  int4: pgType<number>('int4'),
  int8,
  float8: pgType<number>('float8'),
  bool: pgType<boolean>('bool'),
  timestamptz: pgType<Date>('timestamptz'),
  /** a calendar day, YYYY-MM-DD (parameters only: pg would read a result as a local Date) */
  date: pgType<string>('date'),
  bytea: pgType<Uint8Array>('bytea'),
  /** sent as its JSON text, read parsed */
  jsonb: <T>() => pgType<T>('jsonb', { encode: (value) => JSON.stringify(value) }),
  /**
   * sent as its JSON text, kept as text by Postgres (no jsonb conversion): for a batch's rows read
   * once by json_to_recordset, where JSON.stringify is far cheaper than pg's array literals
   * (escaped element by element in JavaScript) for long strings such as webhook bodies
   */
  json: <T>() => pgType<T>('json', { encode: (value) => JSON.stringify(value) }),
  /** a Postgres enum, typed as the union of its labels */
  enum: <T extends string>(name: string) => pgType<T>(name),
  array: <T>(item: PgType<T>) => pgType<readonly T[]>(`${item.name}[]`),
  /** the same type, null allowed (null is neither encoded nor decoded) */
  nullable: <T>(type: PgType<T>) => type as unknown as PgType<T | null>,
};

export type PgTypes = Readonly<Record<string, PgType<unknown>>>;

/** A statement's parameters as TypeScript sees them. */
export type ParamsOf<P extends PgTypes> = { readonly [K in keyof P]: TypeOf<P[K]> };

/** A decoded result row. */
export type RowOf<C extends PgTypes> = { [K in keyof C]: TypeOf<C[K]> };

/** Each parameter as the text refers to it: `$n::type`. */
export type ParamRefs<P extends PgTypes> = { readonly [K in keyof P]: string };

export interface SqlStatement<P extends PgTypes = PgTypes, C extends PgTypes = PgTypes> {
  /** the prepared statement's name, unique among statements */
  readonly name: string;
  readonly text: string;
  /**
   * planned again at every call with its parameters (sent unnamed), never settled on a generic plan:
   * for a statement whose best plan depends on its values (optional filters, open or closed ranges)
   */
  readonly replan: boolean;
  /** in placeholder order ($1 first) */
  readonly params: P;
  /** the result columns, in the order the statement returns them */
  readonly columns: C;
  /** the values to send, in placeholder order */
  encode(params: ParamsOf<P>): unknown[];
  /** decodes pg's rows in place (only the columns that need it) */
  decode(rows: Record<string, unknown>[]): RowOf<C>[];
}

const registry = new Map<string, SqlStatement>();

/** Every statement defined so far, by name (the contract test prepares them all). */
export function registeredStatements(): readonly SqlStatement[] {
  return [...registry.values()];
}

/**
 * Defines (and registers) a statement. `text` gets each parameter as `$n::type`, numbered in the
 * order of `params`; a parameter may be used any number of times. The text is built once here, so
 * it never varies between calls (a prepared statement's text must not).
 */
export function defineStatement<const P extends PgTypes, const C extends PgTypes>(definition: {
  name: string;
  params: P;
  columns: C;
  text: (params: ParamRefs<P>) => string;
  /** SqlStatement.replan; false unless told */
  replan?: boolean;
}): SqlStatement<P, C> {
  const { name, params, columns } = definition;
  if (registry.has(name)) throw new Error(`SQL statement ${name} is defined twice`);
  const keys = Object.keys(params) as (keyof P & string)[];
  const refs = Object.fromEntries(keys.map((key, i) => [key, `$${i + 1}::${params[key].name}`]));
  const encoders = keys.map((key) => [key, params[key].encode] as const);
  const decoders = Object.entries(columns).flatMap(([key, type]) =>
    type.decode ? [[key, type.decode] as const] : [],
  );
  const statement: SqlStatement<P, C> = {
    name,
    text: definition.text(refs as ParamRefs<P>),
    replan: definition.replan ?? false,
    params,
    columns,
    encode: (values) =>
      encoders.map(([key, encode]) => {
        const value = values[key];
        return encode && value !== null && value !== undefined ? encode(value) : value;
      }),
    decode: (rows) => {
      if (decoders.length > 0) {
        for (const row of rows) {
          for (const [key, decode] of decoders) if (row[key] !== null) row[key] = decode(row[key]);
        }
      }
      return rows as RowOf<C>[];
    },
  };
  registry.set(name, statement);
  return statement;
}

/** A string as an SQL literal, for a constant of the code (an event type, a status), never input. */
export function sqlLiteral(value: string): string {
  if (!/^[a-z0-9_.]*$/.test(value)) throw new Error(`not a plain constant: ${value}`);
  return `'${value}'`;
}

/**
 * Constants of the code (statuses, payment types: libs/domain's sets) as a parenthesized SQL list
 * for `IN …`, written into a statement's text once, when its module loads.
 */
export function sqlList(values: readonly string[]): string {
  if (values.length === 0) throw new Error('an SQL list needs at least one value');
  return `(${values.map(sqlLiteral).join(', ')})`;
}
