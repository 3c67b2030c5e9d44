import { DatabaseError } from 'pg';
import { isDatabaseUnavailable } from './unavailable';

/** Errors as pg, Node and Prisma's driver adapter shape them when Postgres is away, and ones that are not. */
function pgError(code: string, message = 'error'): DatabaseError {
  const error = new DatabaseError(message, 0, 'error');
  error.code = code;
  error.severity = 'FATAL';
  return error;
}
function socketError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), {
    code,
    errno: -111,
    syscall: 'connect',
  });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['admin shutdown (a restart)', pgError('57P01', 'terminating connection due to administrator command')],
    ['the server starting up', pgError('57P03', 'the database system is starting up')],
    ['too many connections', pgError('53300')],
    ['a connection exception (class 08)', pgError('08006')],
    ['a statement timeout', pgError('57014')],
    ['connection refused', socketError('ECONNREFUSED')],
    ['connection reset', socketError('ECONNRESET')],
    ["pg's lost connection", new Error('Connection terminated unexpectedly')],
    ["pg's pool wait", new Error('timeout exceeded when trying to connect')],
    ['a broken client reused', new Error('Client has encountered a connection error and is not queryable')],
    [
      "Prisma's unreachable database",
      Object.assign(new Error("Can't reach database server"), { code: 'P1001' }),
    ],
    [
      "Prisma's transaction that could not start",
      Object.assign(new Error('Unable to start a transaction'), { code: 'P2028' }),
    ],
    ['wrapped in a cause', new Error('query failed', { cause: socketError('ECONNREFUSED') })],
    [
      "Prisma's driver adapter error",
      Object.assign(new Error('x'), {
        code: 'P2010',
        meta: { driverAdapterError: { cause: { kind: 'ConnectionClosed' } } },
      }),
    ],
  ])('%s: unavailable', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505')],
    ['a syntax error', pgError('42601')],
    ['a serialization failure', pgError('40001')],
    ["Prisma's record not found", Object.assign(new Error('not found'), { code: 'P2025' })],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s: not unavailable', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('does not loop on a cause cycle', () => {
    const a: { cause?: unknown; message: string } = { message: 'a' };
    a.cause = { message: 'b', cause: a };
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});
