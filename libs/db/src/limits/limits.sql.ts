import { defineStatement, pg } from '../sql/statement';

/**
 * A transaction-scoped advisory lock on a 64-bit hash of `key`, released when the transaction ends;
 * waits while another transaction holds it.
 */
export const ADVISORY_XACT_LOCK = defineStatement({
  name: 'advisory_xact_lock',
  params: { key: pg.text },
  columns: { locked: pg.bool },
  text: (p) => `SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended(${p.key}, 0))`,
});

/**
 * Takes one unit of a daily quota: an INSERT of count 1 that, when the day's row exists, turns into
 * `count = count + 1` guarded by `count < max`. The day's count, or no row when the quota is used up.
 */
export const CONSUME_DAILY_QUOTA = defineStatement({
  name: 'daily_quotas_consume',
  params: { resource: pg.text, scopeKey: pg.text, day: pg.date, max: pg.int4 },
  columns: { count: pg.int4 },
  text: (p) => `
    INSERT INTO daily_quota_usage (resource, scope_key, day, count)
    VALUES (${p.resource}, ${p.scopeKey}, ${p.day}, 1)
    ON CONFLICT (resource, scope_key, day)
    DO UPDATE SET count = daily_quota_usage.count + 1, updated_on = now()
    WHERE daily_quota_usage.count < ${p.max}
    RETURNING count`,
});
