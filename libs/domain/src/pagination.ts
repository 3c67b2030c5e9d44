import { ValidationError } from './errors';

// Keyset pagination's rules (api-reference §4): the bounds of a page, what a page request holds, a
// page made of the rows read. Reading a request from a query string is each front end's (the
// gateway: http/pagination.ts).

export const PAGE_LIMIT_MIN = 10;
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 10;

export type CursorDirection = 'asc' | 'desc';

export interface PageRequest {
  limit: number;
  /** id of the last item already seen; that item is not returned again */
  cursor: string | null;
  direction: CursorDirection;
}

export interface Page<T> {
  items: T[];
  has_more: boolean;
}

/** The cursor names an item the caller cannot list (missing, deleted, or someone else's). */
export function unknownCursor(): ValidationError {
  return ValidationError.field('cursor', 'NOT_FOUND');
}

/** Builds a page from `limit + 1` fetched rows. */
export function toPage<R, T>(rows: R[], limit: number, present: (row: R) => T): Page<T> {
  return { items: rows.slice(0, limit).map(present), has_more: rows.length > limit };
}
