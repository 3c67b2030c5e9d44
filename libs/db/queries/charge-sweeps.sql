-- Generated from libs/db/src/charges/charge-sweeps.sql.ts by npm run sql:generate: do not edit.

-- charge_outcomes_find_due_captures
-- params: $1 limit int4
-- columns: id text, amount int8, currency bpchar
SELECT c.id::text AS id, c.requested_amount AS amount, c.requested_currency AS currency
  FROM charges c
 WHERE c.status = 'authorized' AND c.capture_at <= now()
   AND c.pending_operation IS NULL
   AND NOT EXISTS (SELECT 1 FROM captures k WHERE k.charge_id = c.id)
 LIMIT $1::int4;

-- charge_outcomes_find_expired_awaiting
-- params: $1 limit int4
-- columns: id text, expires_on timestamptz
SELECT id::text AS id, expires_on FROM charges
 WHERE status = 'awaiting' AND expires_on <= now()
 LIMIT $1::int4;

-- charge_outcomes_find_stale_pending
-- params: $1 seconds int4, $2 limit int4
-- columns: id text
SELECT id::text AS id FROM charges
 WHERE status = 'pending' AND updated_on < now() - make_interval(secs => $1::int4)
 LIMIT $2::int4;

-- charge_outcomes_find_stale_captures
-- params: $1 seconds int4, $2 limit int4
-- columns: charge_id text
SELECT charge_id::text AS charge_id FROM captures
 WHERE status = 'pending' AND updated_on < now() - make_interval(secs => $1::int4)
 LIMIT $2::int4;
