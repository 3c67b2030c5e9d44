import { keysetAfter, keysetBounds, keysetOrder } from './keyset';

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

describe('keysetBounds (the plain statements’ page bounds)', () => {
  const NIL = '00000000-0000-0000-0000-000000000000';
  const at = (iso: string, id: string) => ({ createdOn: new Date(iso), id });
  const open = { from: null, to: null };

  it('is open on both sides without a range or a cursor', () => {
    expect(keysetBounds(open, null, 'desc')).toEqual({
      lower: { on: '-infinity', id: NIL },
      upper: { on: 'infinity', id: NIL },
    });
  });

  it('bounds by the range: from inclusive, to exclusive (the least id at each instant)', () => {
    const range = { from: new Date('2026-01-01T00:00:00Z'), to: new Date('2026-02-01T00:00:00Z') };
    expect(keysetBounds(range, null, 'asc')).toEqual({
      lower: { on: '2026-01-01T00:00:00.000Z', id: NIL },
      upper: { on: '2026-02-01T00:00:00.000Z', id: NIL },
    });
  });

  it('takes the cursor as the upper bound going newest first, the lower going oldest first', () => {
    const cursor = at('2026-01-10T00:00:00Z', '00000000-0000-4000-8000-00000000000A');
    const seen = { on: '2026-01-10T00:00:00.000Z', id: '00000000-0000-4000-8000-00000000000a' };
    expect(keysetBounds(open, cursor, 'desc')).toEqual({ lower: { on: '-infinity', id: NIL }, upper: seen });
    expect(keysetBounds(open, cursor, 'asc')).toEqual({ lower: seen, upper: { on: 'infinity', id: NIL } });
  });

  it('keeps the tighter of the cursor and the range on the cursor’s side', () => {
    const range = { from: new Date('2026-01-05T00:00:00Z'), to: new Date('2026-01-08T00:00:00Z') };
    // a cursor past the range's end (desc) or before its start (asc) narrows nothing
    const late = at('2026-01-10T00:00:00Z', '00000000-0000-4000-8000-000000000001');
    expect(keysetBounds(range, late, 'desc').upper).toEqual({ on: '2026-01-08T00:00:00.000Z', id: NIL });
    const early = at('2026-01-01T00:00:00Z', '00000000-0000-4000-8000-000000000001');
    expect(keysetBounds(range, early, 'asc').lower).toEqual({ on: '2026-01-05T00:00:00.000Z', id: NIL });
    // inside the range it does
    const inside = at('2026-01-06T00:00:00Z', '00000000-0000-4000-8000-000000000001');
    expect(keysetBounds(range, inside, 'desc').upper.on).toBe('2026-01-06T00:00:00.000Z');
    expect(keysetBounds(range, inside, 'asc').lower.on).toBe('2026-01-06T00:00:00.000Z');
    // at the same instant the id decides: (to, NIL) is below every row of that instant
    const atEnd = at('2026-01-08T00:00:00Z', '00000000-0000-4000-8000-000000000001');
    expect(keysetBounds(range, atEnd, 'desc').upper.id).toBe(NIL);
  });
});
