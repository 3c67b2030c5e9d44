import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditEntry } from '@kessai/db';
import { DomainError, NotFoundError, PAGE_LIMIT_DEFAULT } from '@kessai/domain';
import type { ConsoleSession } from '../session/console-sessions';
import { originOf } from './request-context';

/** A rendered page as the answer. */
export function send(reply: FastifyReply, status: number, page: string) {
  return reply.status(status).type('text/html; charset=utf-8').send(page);
}

/** The query parameters a refused filter names. */
export function badFields(error: { issues: { path: PropertyKey[] }[] }): string {
  return [...new Set(error.issues.map((issue) => issue.path.map(String).join('.')))].join(', ');
}

/** A list's read, where a cursor or store of another merchant (or none) is a page that does not exist. */
export async function listedOrMissing<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof DomainError) throw new NotFoundError('page');
    throw error;
  }
}

/**
 * One keyset page of a list read PAGE_LIMIT_DEFAULT + 1 rows at a time (newest first, or oldest first
 * when going back), in the order shown, with the queries of the pages after and before it: `base` is
 * the list's filter, kept in both.
 */
export function keysetPage<T extends { id: string }>(
  rows: T[],
  cursor: string | undefined,
  backwards: boolean,
  base: Record<string, string>,
): { page: T[]; nextQuery: string | null; previousQuery: string | null } {
  const more = rows.length > PAGE_LIMIT_DEFAULT;
  const page = rows.slice(0, PAGE_LIMIT_DEFAULT);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const hasNext = backwards ? cursor !== undefined : more;
  const hasPrevious = backwards ? more : cursor !== undefined;
  return {
    page,
    nextQuery: hasNext && last ? new URLSearchParams({ ...base, cursor: last.id }).toString() : null,
    previousQuery:
      hasPrevious && first
        ? new URLSearchParams({ ...base, cursor: first.id, direction: 'previous' }).toString()
        : null,
  };
}

/**
 * A use case's refusal as the line its page shows (`what`, the code and its reasons); null for what is
 * no refusal (a missing resource, any other error), which the caller throws.
 */
export function refusalOf(error: unknown, what: string): string | null {
  if (!(error instanceof DomainError) || error instanceof NotFoundError) return null;
  const reasons = error.errors.map((e) => e.reason).filter((r) => r !== error.code);
  return `${what}: ${[error.code, ...reasons].join(', ')}`;
}

/**
 * Runs a use case's write: null once it is done, else the line its page shows for the refusal
 * (refusalOf); what is no refusal (a missing resource, any other error) is thrown as it came.
 */
export async function refusalOfWrite(write: () => Promise<unknown>, what: string): Promise<string | null> {
  try {
    await write();
    return null;
  } catch (error) {
    const message = refusalOf(error, what);
    if (message === null) throw error;
    return message;
  }
}

/** The audit entry of a console write by the session's user (what it did, to what, in which mode). */
export function auditOf(
  session: ConsoleSession,
  request: FastifyRequest,
  write: Pick<AuditEntry, 'action' | 'targetType' | 'targetId' | 'mode'>,
  detail: Record<string, unknown>,
): AuditEntry {
  return {
    merchantId: session.user.merchantId,
    userId: session.user.id,
    sessionId: session.sessionId,
    ...originOf(request),
    ...write,
    detail,
  };
}
