import { defineStatement, pg, sqlList, sqlLiteral } from './statement';

describe('defineStatement', () => {
  const statement = defineStatement({
    name: 'statement_spec_probe',
    params: { ids: pg.array(pg.uuid), payload: pg.jsonb<{ a: number }>(), amount: pg.nullable(pg.int8) },
    columns: { id: pg.text, amount: pg.int8, spare: pg.nullable(pg.int8), at: pg.timestamptz },
    text: (p) => `SELECT ${p.ids}, ${p.payload}, ${p.amount}, ${p.ids}`,
  });

  it('numbers the parameters in declaration order, each with its cast, the same number every time it is used', () => {
    expect(statement.text).toBe('SELECT $1::uuid[], $2::jsonb, $3::int8, $1::uuid[]');
  });

  it('sends jsonb as its JSON text and every other value as it is', () => {
    expect(statement.encode({ ids: ['a', 'b'], payload: { a: 1 }, amount: 12n })).toEqual([
      ['a', 'b'],
      '{"a":1}',
      12n,
    ]);
    expect(statement.encode({ ids: [], payload: { a: 2 }, amount: null })).toEqual([[], '{"a":2}', null]);
  });

  it('decodes int8 to bigint, whether pg sends a string or Prisma a bigint, and leaves the rest alone', () => {
    const at = new Date();
    const rows = statement.decode([
      { id: 'x', amount: '9007199254740993', spare: null, at },
      { id: 'y', amount: 5n, spare: '7', at },
    ]);
    expect(rows).toEqual([
      { id: 'x', amount: 9_007_199_254_740_993n, spare: null, at },
      { id: 'y', amount: 5n, spare: 7n, at },
    ]);
  });

  it('refuses a second statement under the same name: a prepared statement name must mean one text', () => {
    expect(() =>
      defineStatement({ name: 'statement_spec_probe', params: {}, columns: {}, text: () => 'SELECT 1' }),
    ).toThrow('defined twice');
  });
});

describe('sqlLiteral', () => {
  it('quotes a constant of the code', () => {
    expect(sqlLiteral('charge_finished')).toBe("'charge_finished'");
  });

  it('refuses anything that is not a plain constant', () => {
    expect(() => sqlLiteral("x'; DROP TABLE charges; --")).toThrow('not a plain constant');
  });
});

describe('sqlList', () => {
  it('writes constants of the code as a parenthesized list for IN', () => {
    expect(sqlList(['canceled', 'completed', 'unconfirmed'])).toBe(
      "('canceled', 'completed', 'unconfirmed')",
    );
  });

  it('refuses an empty list, which SQL cannot write, and anything that is not a plain constant', () => {
    expect(() => sqlList([])).toThrow('at least one value');
    expect(() => sqlList(['pending', "x') OR (1=1"])).toThrow('not a plain constant');
  });
});
