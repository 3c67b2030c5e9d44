import { defineStatement, pg } from '../sql/statement';

/**
 * The relay's backlog for the metrics: how many events are unpublished (counted up to $1, so that
 * a scrape during a long outage stays cheap) and how old the oldest is, in seconds by the
 * database's clock. Both read the partial index outbox_events_unpublished_idx (sequence WHERE
 * published_on IS NULL), which holds only the backlog; the oldest is the first in sequence order.
 */
export const OUTBOX_BACKLOG = defineStatement({
  name: 'outbox_backlog',
  params: { cap: pg.int4 },
  columns: { unpublished: pg.int4, oldest_age_seconds: pg.float8 },
  text: (p) => `
    SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox_events WHERE published_on IS NULL
                                   LIMIT ${p.cap}) AS capped)::int4 AS unpublished,
           COALESCE((SELECT extract(epoch FROM now() - created_on) FROM outbox_events
                      WHERE published_on IS NULL ORDER BY sequence LIMIT 1), 0)::float8
             AS oldest_age_seconds`,
});
