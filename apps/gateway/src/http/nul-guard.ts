import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@kessai/domain';
import { sendError } from './error-response';

/**
 * The path of the first string or object key in `value` that holds U+0000, or null when none does.
 * Postgres can keep that character neither in `text` nor in `jsonb`, and no field of the API has a
 * use for it.
 */
export function findNul(value: unknown, path: readonly (string | number)[] = []): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? [...path] : null;
  if (value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  for (const [key, entry] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key];
    const found = findNul(entry, [...path, key]);
    if (found) return found;
  }
  return null;
}

/**
 * Refuses a request whose JSON body or query string holds U+0000 anywhere with 400
 * VALIDATION_ERROR naming the field (INVALID_FORMAT), before authentication's effects, idempotency
 * or any handler see it: it would otherwise fail in Postgres as a 500. (Metadata given as a
 * JSON-encoded string is checked again once decoded, in its schema.)
 */
export function registerNulGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request, reply) => {
    const found = findNul(request.body) ?? findNul(request.query);
    if (found) return sendError(reply, ValidationError.field(found.join('.') || null, 'INVALID_FORMAT'));
  });
}
