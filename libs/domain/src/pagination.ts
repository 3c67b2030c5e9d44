import { ValidationError } from './errors';
import { isUuid } from './uuid';

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

function single(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** Reads limit, cursor and cursor_direction from a query string object, with the API's rules. */
export function parsePageRequest(query: Record<string, unknown>): PageRequest {
  const errors: { field: string; reason: string }[] = [];

  let limit = PAGE_LIMIT_DEFAULT;
  const rawLimit = single(query.limit);
  if (rawLimit !== undefined && rawLimit !== '') {
    const text = typeof rawLimit === 'string' || typeof rawLimit === 'number' ? String(rawLimit) : '';
    if (!/^\d+$/.test(text)) errors.push({ field: 'limit', reason: 'INVALID_FORMAT' });
    else {
      limit = Number(text);
      if (limit < PAGE_LIMIT_MIN || limit > PAGE_LIMIT_MAX)
        errors.push({ field: 'limit', reason: 'NOT_WITHIN_BOUNDS' });
    }
  }

  let cursor: string | null = null;
  const rawCursor = single(query.cursor);
  if (rawCursor !== undefined && rawCursor !== '') {
    if (typeof rawCursor !== 'string' || !isUuid(rawCursor))
      errors.push({ field: 'cursor', reason: 'INVALID_UUID' });
    else cursor = rawCursor.toLowerCase();
  }

  let direction: CursorDirection = 'desc';
  const rawDirection = single(query.cursor_direction);
  if (rawDirection !== undefined && rawDirection !== '') {
    if (rawDirection === 'asc' || rawDirection === 'desc') direction = rawDirection;
    else errors.push({ field: 'cursor_direction', reason: 'INVALID_FORMAT' });
  }

  if (errors.length > 0) throw new ValidationError(errors);
  return { limit, cursor, direction };
}

/** The cursor names an item the caller cannot list (missing, deleted, or someone else's). */
export function unknownCursor(): ValidationError {
  return ValidationError.field('cursor', 'NOT_FOUND');
}

/** Builds a page from `limit + 1` fetched rows. */
export function toPage<R, T>(rows: R[], limit: number, present: (row: R) => T): Page<T> {
  return { items: rows.slice(0, limit).map(present), has_more: rows.length > limit };
}
