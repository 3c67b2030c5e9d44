import type { RawBodyRequest } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '@kessai/domain';
import { sendError } from './error-response';

type Path = (string | number)[];

/**
 * The path of the first string or object key in `value` that holds U+0000, or null when none does.
 * Postgres can keep that character neither in `text` nor in `jsonb`, and no field of the API has a
 * use for it. Iterative (any depth), in document order; a path is built only for what it finds.
 */
export function findNul(value: unknown): Path | null {
  interface Entry {
    value: unknown;
    parent: Entry | null;
    key: string | number | null;
  }
  const pathOf = (entry: Entry | null, last?: string): Path => {
    const path: Path = last === undefined ? [] : [last];
    for (let at = entry; at !== null && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Entry[] = [{ value, parent: null, key: null }];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const current = entry.value;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return pathOf(entry);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const children: [string | number, unknown][] = Array.isArray(current)
      ? current.map((item, i) => [i, item])
      : Object.entries(current);
    for (const [key] of children) {
      if (typeof key === 'string' && key.includes('\u0000')) return pathOf(entry, key);
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i];
      stack.push({ value: child, parent: entry, key });
    }
  }
  return null;
}

/** Whether the request's text can hold U+0000 at all: JSON spells it \u0000, a URL %00. */
function mayHoldNul(request: RawBodyRequest<FastifyRequest>): boolean {
  if (request.url.includes('%00')) return true;
  if (request.body === undefined || request.body === null) return false;
  const raw = request.rawBody;
  return raw === undefined || raw.includes('\\u0000');
}

/**
 * Refuses a request whose JSON body or query string holds U+0000 anywhere with 400
 * VALIDATION_ERROR naming the field (INVALID_FORMAT), before idempotency or any handler sees it: it
 * would otherwise fail in Postgres as a 500. The parsed values are walked only when the raw text
 * can hold one. (Metadata given as a JSON-encoded string is checked again once decoded, in its
 * schema.)
 */
export function registerNulGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request, reply) => {
    if (!mayHoldNul(request)) return;
    const found = findNul(request.body) ?? findNul(request.query);
    if (found) return sendError(reply, ValidationError.field(found.join('.') || null, 'INVALID_FORMAT'));
  });
}
