import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@kessai/domain';
import { sendError } from './error-response';

type Path = (string | number)[];

/** String.prototype.isWellFormed (Node 20; the compiler's lib stops at ES2023). */
const isWellFormed = (text: string): boolean =>
  (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** Whether a string breaks the API's string rules: U+0000, or a surrogate without its pair. */
export const isInvalidText = (text: string): boolean => text.includes('\u0000') || !isWellFormed(text);

/**
 * The path of the first string or object key in `value` that holds U+0000 or a lone surrogate
 * (JSON can spell both: `\u0000`, `\ud800`), or null when none does. Postgres can keep neither in
 * `text` nor in `jsonb` (a 500 where it is written), and no field of the API has a use for them.
 * Iterative (any depth), in document order; a path is built only for what it finds.
 */
export function findInvalidText(value: unknown): Path | null {
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
      if (isInvalidText(current)) return pathOf(entry);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const children: [string | number, unknown][] = Array.isArray(current)
      ? current.map((item, i) => [i, item])
      : Object.entries(current);
    for (const [key] of children) {
      if (typeof key === 'string' && isInvalidText(key)) return pathOf(entry, key);
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i];
      stack.push({ value: child, parent: entry, key });
    }
  }
  return null;
}

/**
 * Refuses a request whose query string holds U+0000 (`%00`) anywhere with 400 VALIDATION_ERROR
 * naming the parameter (INVALID_FORMAT), before idempotency or any handler sees it: it would
 * otherwise fail in Postgres as a 500. (A percent-encoded lone surrogate does not decode: it stays
 * as its text.) Bodies are held to the same rules by their parsers (`json-body-parser.ts`,
 * `form-body.ts`), and metadata given as a JSON-encoded string once decoded, in its schema.
 */
export function registerNulGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request, reply) => {
    if (!request.url.includes('%00')) return;
    const found = findInvalidText(request.query);
    if (found) return sendError(reply, ValidationError.field(found.join('.') || null, 'INVALID_FORMAT'));
  });
}
