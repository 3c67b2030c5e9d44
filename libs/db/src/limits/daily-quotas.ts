import { Injectable } from '@nestjs/common';
import { ResourceLimitError, utcDay, type DailyQuotaResource } from '@kessai/domain';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';
import { CONSUME_DAILY_QUOTA } from './limits.sql';
import type { AccessScope } from '../scope';
import { limitScopeKey } from './limit-scope';

export interface DailyQuota {
  resource: DailyQuotaResource;
  /** a store, or the merchant itself (store_id null) */
  scope: AccessScope;
  max: number;
}

/**
 * Per-day quotas (creations per scope per UTC calendar day), counted in `daily_quota_usage`, one row
 * per (resource, scope, day).
 *
 * `consume` is one statement: an INSERT of count 1 that, when the day's row exists, turns into
 * `count = count + 1` guarded by `count < max`. Postgres locks the row for the upsert and evaluates
 * the guard against its latest committed version, so parallel calls queue on the row and exactly
 * `max` of them succeed; when the guard fails no row is returned and the quota is exhausted.
 *
 * Pass the transaction that creates the counted resource: if it rolls back, so does the consumption.
 * The day's row stays locked until that transaction ends, so consumers in one scope run one after
 * another from this call on: consume first (no work is done for a refused request), and keep the
 * rest of the transaction short.
 */
@Injectable()
export class DailyQuotas {
  constructor(private readonly prisma: PrismaService) {}

  /** Takes one unit of today's quota (UTC) and returns the day's count, or throws ResourceLimitError. */
  async consume(quota: DailyQuota, now: Date, db?: Prisma.TransactionClient): Promise<number> {
    if (quota.max <= 0) throw new ResourceLimitError(quota.resource);
    const rows = await this.prisma.run(
      CONSUME_DAILY_QUOTA,
      { resource: quota.resource, scopeKey: limitScopeKey(quota.scope), day: utcDay(now), max: quota.max },
      { db },
    );
    if (rows.length === 0) throw new ResourceLimitError(quota.resource);
    return rows[0].count;
  }

  /** How much of the quota the scope used on the UTC day of `at`. */
  async used(
    quota: Pick<DailyQuota, 'resource' | 'scope'>,
    at: Date,
    db: Prisma.TransactionClient = this.prisma,
  ): Promise<number> {
    const row = await db.dailyQuotaUsage.findUnique({
      where: {
        resource_scopeKey_day: {
          resource: quota.resource,
          scopeKey: limitScopeKey(quota.scope),
          day: new Date(`${utcDay(at)}T00:00:00.000Z`),
        },
      },
      select: { count: true },
    });
    return row?.count ?? 0;
  }
}
