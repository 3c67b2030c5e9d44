import { keysetAfter, keysetOrder } from './keyset';

describe('keyset pagination', () => {
  const cursor = {
    id: '00000000-0000-4000-8000-000000000005',
    createdOn: new Date('2026-01-01T00:00:00.000Z'),
  };

  it('orders by created_on then id, in the requested direction', () => {
    expect(keysetOrder('desc')).toEqual([{ createdOn: 'desc' }, { id: 'desc' }]);
    expect(keysetOrder('asc')).toEqual([{ createdOn: 'asc' }, { id: 'asc' }]);
  });

  it('selects strictly older rows, and same-timestamp rows with a smaller id, going newest first', () => {
    expect(keysetAfter(cursor, 'desc')).toEqual({
      OR: [{ createdOn: { lt: cursor.createdOn } }, { createdOn: cursor.createdOn, id: { lt: cursor.id } }],
    });
  });

  it('mirrors the comparison going oldest first', () => {
    expect(keysetAfter(cursor, 'asc')).toEqual({
      OR: [{ createdOn: { gt: cursor.createdOn } }, { createdOn: cursor.createdOn, id: { gt: cursor.id } }],
    });
  });

  it('adds no condition without a cursor', () => {
    expect(keysetAfter(null, 'desc')).toEqual({});
  });
});
