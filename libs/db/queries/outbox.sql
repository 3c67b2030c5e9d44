-- Generated from libs/db/src/outbox/outbox.sql.ts by npm run sql:generate: do not edit.

-- outbox_backlog
-- params: $1 cap int4
-- columns: unpublished int4, oldest_age_seconds float8
SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox_events WHERE published_on IS NULL
                               LIMIT $1::int4) AS capped)::int4 AS unpublished,
       COALESCE((SELECT extract(epoch FROM now() - created_on) FROM outbox_events
                  WHERE published_on IS NULL ORDER BY sequence LIMIT 1), 0)::float8
         AS oldest_age_seconds;
