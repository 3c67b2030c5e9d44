import { Client, type Connection } from 'pg';
import { pg as types, registeredStatements, type SqlStatement } from '@kessai/db';
import { createTestDatabase, type TestDatabase } from '@kessai/testing';

/**
 * The contract between libs/db's plain SQL and the schema the migrations build: every registered
 * statement (libs/db/src/sql/) is parsed and described by Postgres — the extended protocol's Parse
 * and Describe, which is what preparing it does — and the parameter and result types Postgres
 * infers are compared with the ones the statement declares (from which its TypeScript parameter and
 * row types, and its row decoder, are derived). A renamed column, a dropped table, a cast that no
 * longer holds or a row type that drifted from the SQL fails here, not in production.
 */

interface Described {
  params: number[];
  /** null: the statement returns no rows (NoData) */
  columns: { name: string; type: number }[] | null;
}

/** pg's Submittable for Parse + Describe (statement) + Sync, without executing anything. */
class DescribeStatement {
  #params: number[] = [];
  #columns: Described['columns'] = null;
  #connection: Connection | undefined;
  readonly #onParams = (msg: { dataTypeIDs: number[] }) => (this.#params = msg.dataTypeIDs);

  constructor(
    readonly text: string,
    private readonly done: (error: Error | undefined, described: Described) => void,
  ) {}

  submit(connection: Connection) {
    this.#connection = connection;
    connection.on('parameterDescription', this.#onParams);
    const protocol = connection as unknown as {
      parse(query: { text: string; types: number[] }): void;
      describe(msg: { type: 'S'; name: string }): void;
      sync(): void;
    };
    protocol.parse({ text: this.text, types: [] });
    protocol.describe({ type: 'S', name: '' });
    protocol.sync();
  }

  handleRowDescription(msg: { fields: { name: string; dataTypeID: number }[] }) {
    this.#columns = msg.fields.map((field) => ({ name: field.name, type: field.dataTypeID }));
  }

  /** pg ends the query at an error: ReadyForQuery that follows is not passed on */
  handleError(error: Error) {
    this.#connection?.removeListener('parameterDescription', this.#onParams);
    this.done(error, { params: [], columns: null });
  }

  handleReadyForQuery() {
    this.#connection?.removeListener('parameterDescription', this.#onParams);
    this.done(undefined, { params: this.#params, columns: this.#columns });
  }
}

let database: TestDatabase;
let client: Client;

function describeText(text: string): Promise<Described> {
  return new Promise((resolve, reject) => {
    client.query(
      new DescribeStatement(text, (error, described) =>
        error ? reject(error) : resolve(described),
      ) as never,
    );
  });
}

const oids = new Map<string, number>();

/** The OID of a declared type name (`uuid[]`, `charge_status`, `int8`…), as the schema resolves it. */
async function oidOf(name: string): Promise<number> {
  let oid = oids.get(name);
  if (oid === undefined) {
    const { rows } = await client.query<{ oid: number }>('SELECT $1::regtype::oid AS oid', [name]);
    oid = rows[0].oid;
    oids.set(name, oid);
  }
  return oid;
}

/** What Postgres says of the statement, next to what it declares, as comparable lists. */
async function contractOf(statement: Pick<SqlStatement, 'text' | 'params' | 'columns'>) {
  const described = await describeText(statement.text);
  // one query at a time: the client runs them in order anyway
  const declared = { params: [] as number[], columns: [] as { name: string; type: number }[] };
  for (const type of Object.values(statement.params)) declared.params.push(await oidOf(type.name));
  for (const [name, type] of Object.entries(statement.columns)) {
    declared.columns.push({ name, type: await oidOf(type.name) });
  }
  return { described: { params: described.params, columns: described.columns ?? [] }, declared };
}

beforeAll(async () => {
  database = await createTestDatabase();
  client = new Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

const statements = registeredStatements();

describe('libs/db statements against the migrated schema', () => {
  it('registers every statement of the hot paths, each under a name of its own', () => {
    const names = statements.map((statement) => statement.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'charges_create',
        'charge_outcomes_find_pending',
        'charge_outcomes_record',
        'transaction_tokens_create',
        'transaction_tokens_find_chargeable',
        'app_tokens_find_by_id',
        'outbox_insert_event',
      ]),
    );
  });

  it.each(statements.map((statement) => [statement.name, statement] as const))(
    '%s: Postgres infers the declared parameter types and returns the declared columns',
    async (_name, statement) => {
      const { described, declared } = await contractOf(statement);
      expect(described.params).toEqual(declared.params);
      expect(described.columns).toEqual(declared.columns);
      // every placeholder is declared, and every declared parameter is used
      expect(
        statement.text
          .match(/\$\d+/g)
          ?.map((p) => Number(p.slice(1)))
          .sort((a, b) => a - b)
          .at(-1),
      ).toBe(Object.keys(statement.params).length || undefined);
    },
  );

  it('tells a declaration that drifted from the SQL: a column renamed, a type changed, one missing', async () => {
    const text = 'SELECT id::text AS id, requested_amount AS amount FROM charges WHERE id = $1::uuid';
    const drifted: Pick<SqlStatement, 'params' | 'columns'>[] = [
      { params: { id: types.uuid }, columns: { charge_id: types.text, amount: types.int8 } },
      { params: { id: types.uuid }, columns: { id: types.text, amount: types.int4 } },
      { params: { id: types.uuid }, columns: { id: types.text } },
      { params: { id: types.text }, columns: { id: types.text, amount: types.int8 } },
    ];
    for (const declaration of drifted) {
      const { described, declared } = await contractOf({ text, ...declaration });
      expect(described).not.toEqual(declared);
    }
    const { described, declared } = await contractOf({
      text,
      params: { id: types.uuid },
      columns: { id: types.text, amount: types.int8 },
    });
    expect(described).toEqual(declared);
  });

  it('tells a statement the schema cannot run', async () => {
    await expect(describeText('SELECT no_such_column FROM charges')).rejects.toThrow(/no_such_column/);
    // the connection is still usable afterwards
    expect((await describeText('SELECT 1 AS one')).columns).toEqual([
      { name: 'one', type: await oidOf('int4') },
    ]);
  });
});
