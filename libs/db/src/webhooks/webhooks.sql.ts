import type { DeliveryStatus, ProcessingMode } from '../generated/prisma/enums';
import type { OutboxAggregateType } from '../outbox/outbox-events';
import { defineStatement, pg } from '../sql/statement';

/**
 * webhook-service's statements (docs/webhooks.md), each for a batch: the events' matching webhooks,
 * their delivery rows (unique per webhook and event), deliveries with what sending them needs, and
 * tries' records.
 */

const EVENT_COLUMNS = {
  id: pg.text,
  event_type: pg.text,
  merchant_id: pg.text,
  store_id: pg.nullable(pg.text),
  aggregate_id: pg.text,
  payload: pg.jsonb<Record<string, unknown>>(),
  created_on: pg.timestamptz,
};

/**
 * Where an event's mode is: the mode of the row it is about (outbox_events has no mode column), by
 * aggregate type. A new aggregate type does not compile until it is named here; one without a mode
 * (null) never reaches a webhook.
 */
const MODE_OF_AGGREGATE: Record<OutboxAggregateType, string | null> = {
  charge: 'charges',
  refund: 'refunds',
  cancel: 'cancels',
  transaction_token: 'transaction_tokens',
  subscription: 'subscriptions',
  transfer: 'transfers',
  merchant_user: null,
  webhook_delivery: null,
};

/** The event `e`'s mode: one lookup by primary key in its aggregate's table (null when unknown). */
const EVENT_MODE = `CASE e.aggregate_type${Object.entries(MODE_OF_AGGREGATE)
  .flatMap(([type, table]) =>
    table === null
      ? []
      : [`\n             WHEN '${type}' THEN (SELECT a.mode FROM ${table} a WHERE a.id = e.aggregate_id)`],
  )
  .join('')}
           END`;

/**
 * The events of a batch (ids as an array: reached by primary key) that some active webhook of the
 * event's own mode is subscribed to — its store's, or its merchant's own (store_id null) — each with
 * those webhooks' ids, in the events' order: a batch of events no webhook wants costs this one
 * statement and returns nothing. The mode is the event's resource's (EVENT_MODE): a live token's
 * event never reaches a test webhook, nor a test charge's a live one.
 */
export const FIND_SUBSCRIBED_EVENTS = defineStatement({
  name: 'webhooks_find_subscribed_events',
  params: { ids: pg.array(pg.uuid) },
  columns: { ...EVENT_COLUMNS, webhook_ids: pg.array(pg.text) },
  text: (p) => `
    SELECT e.id::text, e.event_type, e.merchant_id::text, e.store_id::text, e.aggregate_id::text,
           e.payload, e.created_on, array_agg(w.id::text ORDER BY w.id) AS webhook_ids
      FROM outbox_events e
     CROSS JOIN LATERAL (SELECT ${EVENT_MODE} AS mode) m
      JOIN webhooks w
        ON w.merchant_id = e.merchant_id
       AND (w.store_id = e.store_id OR w.store_id IS NULL)
       AND w.active
       AND w.mode = m.mode
       AND e.event_type = ANY (w.triggers)
     WHERE e.id = ANY(${p.ids})
     GROUP BY e.id
     ORDER BY e.sequence`,
});

/** A delivery row as CREATE_DELIVERIES takes it (one element of its JSON array). */
export interface NewDeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  body: string;
}

/** A try as RECORD_DELIVERY_ATTEMPTS takes it (one element of its JSON array). */
export interface DeliveryAttemptRow {
  delivery_id: string;
  number: number;
  status_code: number | null;
  error_message: string | null;
  response_snippet: string | null;
  duration_ms: number;
  status: DeliveryStatus;
  next_attempt_on: Date | null;
  disable_reason: string | null;
  /** false for a try that sent nothing (its webhook inactive): the webhook's health stays as it is */
  judged: boolean;
}

/**
 * The deliveries of a batch of events, one per webhook and event: a pair that has its row already
 * (a dispatch run again) keeps it, with its id and body. Returns the new rows and those of the same
 * pairs that an earlier run wrote and nobody tried yet, for their first tries.
 *
 * Every lookup goes by key — the earlier rows by the pairs' unique index, read before this
 * statement's inserts (a data-modifying CTE's rows are invisible to the rest of its statement) and
 * fenced in a MATERIALIZED CTE — so that the planner never reaches them through the status index:
 * filtering `status = 'pending'` there visits every pending delivery, a cost that grows with the
 * retries waiting and, right after a burst on stale statistics, with the burst itself (bench/README).
 */
export const CREATE_DELIVERIES = defineStatement({
  name: 'webhooks_create_deliveries',
  params: {
    deliveries: pg.json<readonly NewDeliveryRow[]>(),
  },
  columns: { id: pg.text, webhook_id: pg.text },
  text: (p) => `
    WITH wanted AS MATERIALIZED (
      SELECT *
        FROM json_to_recordset(${p.deliveries}) AS d (id uuid, webhook_id uuid, event_id uuid, event text, body text)
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
    SELECT id::text, webhook_id::text FROM earlier WHERE status = 'pending' AND attempt_count = 0`,
});

/**
 * A webhook's secrets as its row holds them (decision 0086): sealed (key id, iv, ciphertext, tag),
 * or, a row not sealed yet, in plaintext; and whether the secret before the last rotation still
 * signs (its overlap, by the database's clock).
 */
const SECRET_COLUMNS = {
  auth_token: pg.nullable(pg.text),
  signing_secret: pg.nullable(pg.text),
  previous_signing_secret: pg.nullable(pg.text),
  secrets_key_id: pg.nullable(pg.text),
  secrets_iv: pg.nullable(pg.bytea),
  secrets_ciphertext: pg.nullable(pg.bytea),
  secrets_auth_tag: pg.nullable(pg.bytea),
  previous_signs: pg.bool,
};

/**
 * Webhooks by id (an array: by primary key) with what a try to them needs: dispatch sends the first
 * tries of the deliveries it has just written with the bodies it holds.
 */
export const FIND_DELIVERY_TARGETS = defineStatement({
  name: 'webhooks_find_delivery_targets',
  params: { ids: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    url: pg.text,
    ...SECRET_COLUMNS,
    mode: pg.textOf<ProcessingMode>(),
    active: pg.bool,
  },
  text: (p) => `
    SELECT id::text, url, auth_token, signing_secret, previous_signing_secret,
           secrets_key_id, secrets_iv, secrets_ciphertext, secrets_auth_tag,
           coalesce(previous_secret_expires_on > now(), false) AS previous_signs,
           mode::text, active
      FROM webhooks
     WHERE id = ANY(${p.ids})`,
});

/** Deliveries with their webhooks (ids as an array: by primary key): what a try sends, and where. */
export const FIND_DELIVERIES = defineStatement({
  name: 'webhooks_find_deliveries',
  params: { ids: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    webhook_id: pg.text,
    status: pg.textOf<DeliveryStatus>(),
    attempt_count: pg.int4,
    body: pg.text,
    url: pg.text,
    ...SECRET_COLUMNS,
    mode: pg.textOf<ProcessingMode>(),
    webhook_active: pg.bool,
  },
  text: (p) => `
    SELECT d.id::text, d.webhook_id::text, d.status::text, d.attempt_count, d.body, w.url,
           w.auth_token, w.signing_secret, w.previous_signing_secret,
           w.secrets_key_id, w.secrets_iv, w.secrets_ciphertext, w.secrets_auth_tag,
           coalesce(w.previous_secret_expires_on > now(), false) AS previous_signs,
           w.mode::text, w.active AS webhook_active
      FROM webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.id = ANY(${p.ids})`,
});

/**
 * Records tries of pending deliveries and their outcomes, in one statement (`tries` holds at most
 * one try per delivery): each try's row (once: a repeated job records nothing), its
 * delivery's status, count and next try, and each webhook's health, from its judged tries together:
 * `failing_since` cleared when one of them was delivered, else set by their failure (kept while tries
 * keep failing); the webhook turned off with a try's `disable_reason` (its endpoint answered 410
 * Gone), or when its tries all failed and find it failing for longer than `disableAfterSeconds`. A
 * webhook row is written only when one of these changes it. Returns the deliveries whose try this
 * call recorded. The deliveries are read by primary key only (`current`, fenced like
 * CREATE_DELIVERIES' lookups), never through the status index.
 */
export const RECORD_DELIVERY_ATTEMPTS = defineStatement({
  name: 'webhooks_record_attempts',
  params: {
    tries: pg.json<readonly DeliveryAttemptRow[]>(),
    disableAfterSeconds: pg.int4,
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH tries AS MATERIALIZED (
      SELECT *
        FROM json_to_recordset(${p.tries})
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
                                AND w.failing_since < now() - make_interval(secs => ${p.disableAfterSeconds})
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
    SELECT id::text FROM delivery`,
});

/**
 * Pending deliveries whose try is overdue by `seconds` (their first try: since creation): their job
 * was lost (a Redis without persistence, a flushed queue). The sweep queues their next try again.
 */
export const FIND_STALE_DELIVERIES = defineStatement({
  name: 'webhooks_find_stale_deliveries',
  params: { seconds: pg.int4, limit: pg.int4 },
  columns: { id: pg.text, attempt_count: pg.int4 },
  text: (p) => `
    SELECT id::text, attempt_count
      FROM webhook_deliveries
     WHERE status = 'pending'
       AND coalesce(next_attempt_on, created_on) < now() - make_interval(secs => ${p.seconds})
     ORDER BY coalesce(next_attempt_on, created_on)
     LIMIT ${p.limit}`,
});
