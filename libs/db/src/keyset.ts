import { unknownCursor, type CursorDirection, type PageRequest } from '@kessai/domain';

/** Rows are listed by (created_on, id): a total order, so pages are stable when timestamps tie. */
export interface KeysetRow {
  id: string;
  createdOn: Date;
}

export function keysetOrder(
  direction: CursorDirection,
): [{ createdOn: CursorDirection }, { id: CursorDirection }] {
  return [{ createdOn: direction }, { id: direction }];
}

/** The rows strictly after the cursor row in the listing direction. */
export function keysetAfter(cursor: KeysetRow | null, direction: CursorDirection) {
  if (!cursor) return {};
  const op = direction === 'desc' ? 'lt' : 'gt';
  return {
    OR: [{ createdOn: { [op]: cursor.createdOn } }, { createdOn: cursor.createdOn, id: { [op]: cursor.id } }],
  };
}

/**
 * Lists one page. The cursor is looked up within the same scope as the list, so a cursor naming
 * another merchant's or store's row is as unknown as a missing one.
 */
export async function listPage<W extends object, R extends KeysetRow>(
  page: PageRequest,
  scope: W,
  queries: {
    findCursor(where: { AND: [W, { id: string }] }): Promise<KeysetRow | null>;
    findMany(args: { where: object; orderBy: ReturnType<typeof keysetOrder>; take: number }): Promise<R[]>;
  },
): Promise<R[]> {
  let cursor: KeysetRow | null = null;
  if (page.cursor) {
    // AND, not a spread: a scope naming its own id (a store credential's stores) must not be
    // overridden by the cursor's, or a sibling's id would be found (an oracle of its existence)
    cursor = await queries.findCursor({ AND: [scope, { id: page.cursor }] });
    if (!cursor) throw unknownCursor();
  }
  return queries.findMany({
    where: { AND: [scope, keysetAfter(cursor, page.direction)] },
    orderBy: keysetOrder(page.direction),
    take: page.limit + 1,
  });
}

/** the least uuid: (t, NIL) lies before every row of instant t, so bounds at an instant are exact */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** A point of the (created_on, id) order, as a plain statement's bound takes it. */
export interface KeysetBound {
  /** an ISO instant, or `-infinity` / `infinity` for an open side */
  on: string;
  id: string;
}

/**
 * The rows of a plain statement's page as two exclusive bounds, (lower) < (created_on, id) < (upper):
 * the created_on range (`from` inclusive, `to` exclusive; open when null) and the cursor row, the
 * last one seen (rows after it in the listing direction), folded together, so that a statement has
 * exactly one bound on each side for its index to start and stop at.
 */
export function keysetBounds(
  range: { from: Date | null; to: Date | null },
  cursor: KeysetRow | null,
  direction: CursorDirection,
): { lower: KeysetBound; upper: KeysetBound } {
  // created_on ≥ from  ⇔  (created_on, id) > (from, NIL);  created_on < to  ⇔  (created_on, id) < (to, NIL)
  let lower = { time: range.from ? range.from.getTime() : -Infinity, id: NIL_UUID };
  let upper = { time: range.to ? range.to.getTime() : Infinity, id: NIL_UUID };
  if (cursor) {
    const at = { time: cursor.createdOn.getTime(), id: cursor.id.toLowerCase() };
    if (direction === 'desc' && compare(at, upper) < 0) upper = at;
    if (direction === 'asc' && compare(at, lower) > 0) lower = at;
  }
  return { lower: bound(lower), upper: bound(upper) };
}

/** lower-case uuid text sorts as Postgres sorts uuids (byte by byte) */
function compare(a: { time: number; id: string }, b: { time: number; id: string }): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function bound({ time, id }: { time: number; id: string }): KeysetBound {
  const on = time === Infinity ? 'infinity' : time === -Infinity ? '-infinity' : new Date(time).toISOString();
  return { on, id };
}
