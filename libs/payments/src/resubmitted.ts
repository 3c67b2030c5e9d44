import { ConflictError } from '@kessai/domain';

/**
 * A charge's refund or cancel whose chosen id was taken (`id_taken`): the same form sent again, so
 * the row of that id when it is the charge's in the scope; an id anything else holds is a conflict.
 */
export function resubmitted<T>(existing: T | null): T {
  if (!existing) throw new ConflictError('CONFLICTED');
  return existing;
}
