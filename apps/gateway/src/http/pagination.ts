import {
  PAGE_LIMIT_DEFAULT,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  toPage,
  ValidationError,
  isUuid,
  type CursorDirection,
  type PageRequest,
} from '@kessai/domain';

function single(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/**
 * Reads limit, cursor and cursor_direction from a query string object, with the API's rules
 * (api-reference §4; the bounds are libs/domain's): all three refusals at once.
 */
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

/**
 * A list's answer (api-reference §4): a page of the `limit + 1` rows read, presented, with
 * `total_hits` when the use case counted them (a first page, as UnivaPay's lists).
 */
export function presentPage<R, T>(
  rows: R[],
  page: PageRequest,
  present: (row: R) => T,
  totalHits: number | null = null,
) {
  const result = toPage(rows, page.limit, present);
  return totalHits === null ? result : { ...result, total_hits: totalHits };
}
