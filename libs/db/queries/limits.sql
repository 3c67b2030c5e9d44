-- Generated from libs/db/src/limits/limits.sql.ts by npm run sql:generate: do not edit.

-- advisory_xact_lock
-- params: $1 key text
-- columns: locked bool
SELECT true AS locked FROM pg_advisory_xact_lock(hashtextextended($1::text, 0));

-- daily_quotas_consume
-- params: $1 resource text, $2 scopeKey text, $3 day date, $4 max int4
-- columns: count int4
INSERT INTO daily_quota_usage (resource, scope_key, day, count)
VALUES ($1::text, $2::text, $3::date, 1)
ON CONFLICT (resource, scope_key, day)
DO UPDATE SET count = daily_quota_usage.count + 1, updated_on = now()
WHERE daily_quota_usage.count < $4::int4
RETURNING count;
