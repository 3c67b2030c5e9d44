-- Generated from libs/db/src/webhooks/webhooks.sql.ts by npm run sql:generate: do not edit.

-- webhooks_find_subscribed_events
-- params: $1 ids uuid[]
-- columns: id text, event_type text, merchant_id text, store_id text, aggregate_id text, payload jsonb, created_on timestamptz, webhook_ids text[]
SELECT e.id::text, e.event_type, e.merchant_id::text, e.store_id::text, e.aggregate_id::text,
       e.payload, e.created_on, array_agg(w.id::text ORDER BY w.id) AS webhook_ids
  FROM outbox_events e
 CROSS JOIN LATERAL (SELECT CASE e.aggregate_type
         WHEN 'charge' THEN (SELECT a.mode FROM charges a WHERE a.id = e.aggregate_id)
         WHEN 'refund' THEN (SELECT a.mode FROM refunds a WHERE a.id = e.aggregate_id)
         WHEN 'cancel' THEN (SELECT a.mode FROM cancels a WHERE a.id = e.aggregate_id)
         WHEN 'transaction_token' THEN (SELECT a.mode FROM transaction_tokens a WHERE a.id = e.aggregate_id)
         WHEN 'subscription' THEN (SELECT a.mode FROM subscriptions a WHERE a.id = e.aggregate_id)
         WHEN 'transfer' THEN (SELECT a.mode FROM transfers a WHERE a.id = e.aggregate_id)
       END AS mode) m
  JOIN webhooks w
    ON w.merchant_id = e.merchant_id
   AND (w.store_id = e.store_id OR w.store_id IS NULL)
   AND w.active
   AND w.mode = m.mode
   AND e.event_type = ANY (w.triggers)
 WHERE e.id = ANY($1::uuid[])
 GROUP BY e.id
 ORDER BY e.sequence;

-- webhooks_create_deliveries
-- params: $1 deliveries json
-- columns: id text, webhook_id text
WITH wanted AS MATERIALIZED (
  SELECT *
    FROM json_to_recordset($1::json) AS d (id uuid, webhook_id uuid, event_id uuid, event text, body text)
),
earlier AS MATERIALIZED (
  SELECT d.id, d.webhook_id, d.status, d.attempt_count
    FROM wanted JOIN webhook_deliveries d ON d.webhook_id = wanted.webhook_id AND d.event_id = wanted.event_id
),
created AS (
  INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, body)
  SELECT id, webhook_id, event_id, event, body FROM wanted
  ON CONFLICT (webhook_id, event_id) DO NOTHING
  RETURNING id, webhook_id
)
SELECT id::text, webhook_id::text FROM created
UNION ALL
SELECT id::text, webhook_id::text FROM earlier WHERE status = 'pending' AND attempt_count = 0;

-- webhooks_find_delivery_targets
-- params: $1 ids uuid[]
-- columns: id text, url text, auth_token text, signing_secret text, previous_signing_secret text, secrets_key_id text, secrets_iv bytea, secrets_ciphertext bytea, secrets_auth_tag bytea, previous_signs bool, mode text, active bool
SELECT id::text, url, auth_token, signing_secret, previous_signing_secret,
       secrets_key_id, secrets_iv, secrets_ciphertext, secrets_auth_tag,
       coalesce(previous_secret_expires_on > now(), false) AS previous_signs,
       mode::text, active
  FROM webhooks
 WHERE id = ANY($1::uuid[]);

-- webhooks_find_deliveries
-- params: $1 ids uuid[]
-- columns: id text, webhook_id text, status text, attempt_count int4, body text, url text, auth_token text, signing_secret text, previous_signing_secret text, secrets_key_id text, secrets_iv bytea, secrets_ciphertext bytea, secrets_auth_tag bytea, previous_signs bool, mode text, webhook_active bool
SELECT d.id::text, d.webhook_id::text, d.status::text, d.attempt_count, d.body, w.url,
       w.auth_token, w.signing_secret, w.previous_signing_secret,
       w.secrets_key_id, w.secrets_iv, w.secrets_ciphertext, w.secrets_auth_tag,
       coalesce(w.previous_secret_expires_on > now(), false) AS previous_signs,
       w.mode::text, w.active AS webhook_active
  FROM webhook_deliveries d
  JOIN webhooks w ON w.id = d.webhook_id
 WHERE d.id = ANY($1::uuid[]);

-- webhooks_record_attempts
-- params: $1 tries json, $2 disableAfterSeconds int4
-- columns: id text
WITH tries AS MATERIALIZED (
  SELECT *
    FROM json_to_recordset($1::json)
         AS t (delivery_id uuid, number int4, status_code int4, error_message text,
               response_snippet text, duration_ms int4, status delivery_status,
               next_attempt_on timestamptz, disable_reason text, judged bool)
),
current AS MATERIALIZED (
  SELECT d.id, d.status, d.attempt_count
    FROM webhook_deliveries d
   WHERE d.id = ANY (ARRAY(SELECT delivery_id FROM tries))
),
attempt AS (
  INSERT INTO webhook_attempts (delivery_id, number, status_code, error_message, response_snippet,
                                duration_ms)
  SELECT d.id, tries.number, tries.status_code, tries.error_message, tries.response_snippet, tries.duration_ms
    FROM tries JOIN current d ON d.id = tries.delivery_id
   WHERE d.status = 'pending' AND d.attempt_count < tries.number
   ORDER BY d.id
  ON CONFLICT (delivery_id, number) DO NOTHING
  RETURNING delivery_id, number
),
delivery AS (
  UPDATE webhook_deliveries d
     SET status = tries.status, attempt_count = tries.number, next_attempt_on = tries.next_attempt_on,
         delivered_on = CASE WHEN tries.status = 'delivered' THEN now() END, updated_on = now()
    FROM attempt JOIN tries ON tries.delivery_id = attempt.delivery_id AND tries.number = attempt.number
   WHERE d.id = attempt.delivery_id
  RETURNING d.id, d.webhook_id, tries.status, tries.disable_reason, tries.judged
),
judged AS (
  SELECT w.id,
         bool_or(delivery.status = 'delivered') AS succeeded,
         coalesce(max(delivery.disable_reason),
                  CASE WHEN NOT bool_or(delivery.status = 'delivered')
                            AND w.failing_since < now() - make_interval(secs => $2::int4)
                       THEN 'every try failed since '
                            || to_char(w.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                  END) AS disable_reason
    FROM webhooks w JOIN delivery ON w.id = delivery.webhook_id
   WHERE delivery.judged
   GROUP BY w.id
),
health AS (
  UPDATE webhooks w
     SET failing_since = CASE WHEN judged.succeeded THEN NULL ELSE coalesce(w.failing_since, now()) END,
         active = w.active AND judged.disable_reason IS NULL,
         disabled_reason = coalesce(judged.disable_reason, w.disabled_reason),
         updated_on = now()
    FROM judged
   WHERE w.id = judged.id
     AND (judged.disable_reason IS NOT NULL
          OR (judged.succeeded AND w.failing_since IS NOT NULL)
          OR (NOT judged.succeeded AND w.failing_since IS NULL))
  RETURNING w.id
)
SELECT id::text FROM delivery;

-- webhooks_find_stale_deliveries
-- params: $1 seconds int4, $2 limit int4
-- columns: id text, attempt_count int4
SELECT id::text, attempt_count
  FROM webhook_deliveries
 WHERE status = 'pending'
   AND coalesce(next_attempt_on, created_on) < now() - make_interval(secs => $1::int4)
 ORDER BY coalesce(next_attempt_on, created_on)
 LIMIT $2::int4;
