import { ValidationError } from '@kessai/domain';
import { parsePageRequest, presentPage } from './pagination';

function reasons(query: Record<string, unknown>) {
  try {
    parsePageRequest(query);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('parsePageRequest', () => {
  it('defaults to 10 items, newest first, from the start', () => {
    expect(parsePageRequest({})).toEqual({ limit: 10, cursor: null, direction: 'desc' });
  });

  it('accepts the bounds 10 and 100 and both directions', () => {
    expect(parsePageRequest({ limit: '10' }).limit).toBe(10);
    expect(parsePageRequest({ limit: '100', cursor_direction: 'asc' })).toMatchObject({
      limit: 100,
      direction: 'asc',
    });
  });

  it.each(['9', '101', '0', '-5'])('rejects limit=%s as out of bounds', (limit) => {
    expect(reasons({ limit })).toEqual([
      { field: 'limit', reason: expect.stringMatching(/NOT_WITHIN_BOUNDS|INVALID_FORMAT/) },
    ]);
  });

  it('rejects a non-numeric limit, a malformed cursor and an unknown direction together', () => {
    expect(reasons({ limit: '1e2', cursor: 'abc', cursor_direction: 'up' })).toEqual([
      { field: 'limit', reason: 'INVALID_FORMAT' },
      { field: 'cursor', reason: 'INVALID_UUID' },
      { field: 'cursor_direction', reason: 'INVALID_FORMAT' },
    ]);
  });

  it('normalises a cursor uuid to lower case', () => {
    const id = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';
    expect(parsePageRequest({ cursor: id }).cursor).toBe(id.toLowerCase());
  });

  it('reads the last of a repeated parameter', () => {
    expect(parsePageRequest({ limit: ['20', '30'] }).limit).toBe(30);
  });
});

describe('presentPage', () => {
  const page = { limit: 2, cursor: null, direction: 'desc' as const };

  it('adds total_hits only when the rows were counted', () => {
    expect(presentPage([1, 2, 3], page, (n) => n * 10)).toEqual({ items: [10, 20], has_more: true });
    expect(presentPage([1], page, (n) => n, 1)).toEqual({ items: [1], has_more: false, total_hits: 1 });
  });
});
