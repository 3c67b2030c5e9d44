import { ResourceLimitError, type ActiveLimitedResource } from '@kessai/domain';
import type { Prisma } from '../generated/prisma/client';
import type { PrismaService } from '../prisma.service';
import type { AccessScope } from '../scope';
import { ADVISORY_XACT_LOCK } from './limits.sql';
import { limitScopeKey } from './limit-scope';

export interface ActiveLimit {
  resource: ActiveLimitedResource;
  /** whose resources are counted: a store's, or the merchant's own (store_id null) */
  scope: AccessScope;
  max: number;
}

/**
 * Waiting for the lock is part of the transaction, so both bounds are generous: a burst of
 * creations in one scope queues behind the lock rather than failing.
 */
const LIMITED_TRANSACTION = { maxWait: 10_000, timeout: 15_000 } as const;

/**
 * Runs `create` only while the scope holds fewer than `max` active resources, and never lets
 * parallel creations overshoot.
 *
 * Counting and inserting are two statements, so without more, two requests can both count 19 and
 * both insert. One transaction does: take a transaction-scoped advisory lock on (resource, scope),
 * count, insert, commit. The lock serialises only the creators of this resource in this scope; the
 * count runs after the lock is granted, and in READ COMMITTED every statement reads a fresh
 * snapshot, so it sees all rows the previous holder committed (Postgres makes a commit visible
 * before it releases that transaction's locks). The lock ends with the transaction, so a crashed
 * request never leaves it held. Alternatives considered:
 * - SERIALIZABLE isolation is as correct but aborts contenders with serialization failures that
 *   must be retried; 40 parallel creations would mostly retry, several times each;
 * - a counter column raised on create and lowered on revoke/deactivate is one atomic conditional
 *   UPDATE, but it is a second truth beside the rows that drifts when any path forgets it;
 * - locking a parent row (SELECT ... FOR UPDATE on the store) also blocks unrelated writers of it.
 * The lock key is a 64-bit hash of "limit:<resource>:<scope>"; a collision would only make two
 * unrelated scopes wait for each other, never miscount.
 */
export function createWithinActiveLimit<T>(
  prisma: PrismaService,
  limit: ActiveLimit,
  ops: {
    countActive(tx: Prisma.TransactionClient): Promise<number>;
    create(tx: Prisma.TransactionClient): Promise<T>;
  },
): Promise<T> {
  return withActiveLimitLock(prisma, limit, async (tx) => {
    if ((await ops.countActive(tx)) >= limit.max) throw new ResourceLimitError(limit.resource);
    return ops.create(tx);
  });
}

/**
 * Runs `work` in one transaction holding the lock createWithinActiveLimit takes for the same
 * resource and scope: for a change that may add to the count (re-activating a webhook) or that
 * must see the scope as no creator is changing it (a unique URL), without a bare UPDATE racing them.
 */
export function withActiveLimitLock<T>(
  prisma: PrismaService,
  limit: Pick<ActiveLimit, 'resource' | 'scope'>,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const lockKey = `limit:${limit.resource}:${limitScopeKey(limit.scope)}`;
  return prisma.$transaction(async (tx) => {
    await prisma.run(ADVISORY_XACT_LOCK, { key: lockKey }, { db: tx });
    return work(tx);
  }, LIMITED_TRANSACTION);
}
