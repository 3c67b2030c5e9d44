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
