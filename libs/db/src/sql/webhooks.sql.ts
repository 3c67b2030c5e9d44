import type { DeliveryStatus, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg } from './statement';

/**
 * webhook-service's statements (docs/webhooks.md): an event's matching webhooks, its delivery rows
 * (unique per webhook and event), one delivery with what sending it needs, and a try's record.
 */

/** An outbox event as dispatch reads it. */
export const FIND_WEBHOOK_EVENT = defineStatement({
  name: 'webhooks_find_event',
  params: { id: pg.uuid },
  columns: {
    id: pg.text,
    event_type: pg.text,
    merchant_id: pg.text,
    store_id: pg.nullable(pg.text),
    aggregate_id: pg.text,
    payload: pg.jsonb<Record<string, unknown>>(),
    created_on: pg.timestamptz,
  },
  text: (p) => `
    SELECT id::text, event_type, merchant_id::text, store_id::text, aggregate_id::text, payload,
           created_on
      FROM outbox_events
     WHERE id = ${p.id}`,
});

/**
 * The events of a batch (ids as an array: reached by primary key) that some active webhook is
 * subscribed to — its store's, or its merchant's own — and only those: a batch of events no webhook
 * wants costs this one statement.
 */
export const FIND_SUBSCRIBED_EVENTS = defineStatement({
  name: 'webhooks_find_subscribed_events',
  params: { ids: pg.array(pg.uuid) },
  columns: FIND_WEBHOOK_EVENT.columns,
  text: (p) => `
    SELECT e.id::text, e.event_type, e.merchant_id::text, e.store_id::text, e.aggregate_id::text,
           e.payload, e.created_on
      FROM outbox_events e
     WHERE e.id = ANY(${p.ids})
       AND EXISTS (SELECT 1 FROM webhooks w
                    WHERE w.merchant_id = e.merchant_id
                      AND (w.store_id = e.store_id OR w.store_id IS NULL)
                      AND w.active
                      AND e.event_type = ANY (w.triggers))
     ORDER BY e.sequence`,
});

/**
 * The active webhooks an event goes to: the event's store's, and the merchant's own (store_id null),
 * each only when subscribed to the event.
 */
export const FIND_SUBSCRIBED_WEBHOOKS = defineStatement({
  name: 'webhooks_find_subscribed',
  params: { merchantId: pg.uuid, storeId: pg.nullable(pg.uuid), event: pg.text },
  columns: { id: pg.text },
  text: (p) => `
    SELECT id::text
      FROM webhooks
     WHERE merchant_id = ${p.merchantId}
       AND (store_id = ${p.storeId} OR store_id IS NULL)
       AND active
       AND ${p.event} = ANY (triggers)
     ORDER BY id`,
});

/**
 * The deliveries of one event, one per webhook: a pair that has its row already (a dispatch run
 * again) keeps it, with its id and body. Returns every pending delivery of the event not tried yet,
 * new or not, for their first try to be queued (again: the job id is the same).
 */
export const CREATE_DELIVERIES = defineStatement({
  name: 'webhooks_create_deliveries',
  params: {
    eventId: pg.uuid,
    event: pg.text,
    ids: pg.array(pg.uuid),
    webhookIds: pg.array(pg.uuid),
    bodies: pg.array(pg.text),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH created AS (
      INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, body)
      SELECT d.id, d.webhook_id, ${p.eventId}, ${p.event}, d.body
        FROM unnest(${p.ids}, ${p.webhookIds}, ${p.bodies}) AS d (id, webhook_id, body)
      ON CONFLICT (webhook_id, event_id) DO NOTHING
      RETURNING id
    )
    SELECT id::text FROM created
    UNION
    SELECT id::text FROM webhook_deliveries
     WHERE event_id = ${p.eventId} AND status = 'pending' AND attempt_count = 0`,
});

/** A delivery with its webhook: what one try sends, and where. */
export const FIND_DELIVERY = defineStatement({
  name: 'webhooks_find_delivery',
  params: { id: pg.uuid },
  columns: {
    id: pg.text,
    webhook_id: pg.text,
    status: pg.textOf<DeliveryStatus>(),
    attempt_count: pg.int4,
    body: pg.text,
    url: pg.text,
    auth_token: pg.nullable(pg.text),
    signing_secret: pg.text,
    previous_signing_secret: pg.nullable(pg.text),
    mode: pg.textOf<ProcessingMode>(),
    webhook_active: pg.bool,
  },
  text: (p) => `
    SELECT d.id::text, d.webhook_id::text, d.status::text, d.attempt_count, d.body, w.url,
           w.auth_token, w.signing_secret,
           CASE WHEN w.previous_secret_expires_on > now() THEN w.previous_signing_secret END
             AS previous_signing_secret,
           w.mode::text, w.active AS webhook_active
      FROM webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.id = ${p.id}`,
});

/**
 * Records try `number` of a pending delivery and its outcome, in one statement: the try's row
 * (once: a repeated job records nothing), the delivery's status, count and next try, and the
 * webhook's health: `failing_since` set by a failed try (kept while tries keep failing) and cleared
 * by a delivered one; the webhook turned off with `disableReason` (its endpoint answered 410 Gone),
 * or when a failed try finds it failing for longer than `disableAfterSeconds`. The webhook row is
 * written only when one of these changes it. Returns the delivery when this call recorded the try.
 */
export const RECORD_DELIVERY_ATTEMPT = defineStatement({
  name: 'webhooks_record_attempt',
  params: {
    deliveryId: pg.uuid,
    number: pg.int4,
    statusCode: pg.nullable(pg.int4),
    errorMessage: pg.nullable(pg.text),
    responseSnippet: pg.nullable(pg.text),
    durationMs: pg.int4,
    status: pg.enum<DeliveryStatus>('delivery_status'),
    nextAttemptOn: pg.nullable(pg.timestamptz),
    disableReason: pg.nullable(pg.text),
    disableAfterSeconds: pg.int4,
    /** false for a try that sent nothing (its webhook inactive): the webhook's health stays as it is */
    judged: pg.bool,
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH attempt AS (
      INSERT INTO webhook_attempts (delivery_id, number, status_code, error_message, response_snippet,
                                    duration_ms)
      SELECT id, ${p.number}, ${p.statusCode}, ${p.errorMessage}, ${p.responseSnippet}, ${p.durationMs}
        FROM webhook_deliveries
       WHERE id = ${p.deliveryId} AND status = 'pending' AND attempt_count < ${p.number}
      ON CONFLICT (delivery_id, number) DO NOTHING
      RETURNING delivery_id
    ),
    delivery AS (
      UPDATE webhook_deliveries d
         SET status = ${p.status}, attempt_count = ${p.number}, next_attempt_on = ${p.nextAttemptOn},
             delivered_on = CASE WHEN ${p.status} = 'delivered' THEN now() END, updated_on = now()
        FROM attempt
       WHERE d.id = attempt.delivery_id
      RETURNING d.id, d.webhook_id
    ),
    judged AS (
      SELECT w.id,
             ${p.status} = 'delivered' AS succeeded,
             coalesce(${p.disableReason},
                      CASE WHEN ${p.status} <> 'delivered'
                                AND w.failing_since < now() - make_interval(secs => ${p.disableAfterSeconds})
                           THEN 'every try failed since '
                                || to_char(w.failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                      END) AS disable_reason
        FROM webhooks w JOIN delivery ON w.id = delivery.webhook_id
       WHERE ${p.judged}
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
 * A new signing secret for a webhook of the scope; the current one becomes the previous one, which
 * signs deliveries too until `previousExpiresOn`. Returns the webhook's id when it is the scope's.
 */
export const ROTATE_WEBHOOK_SECRET = defineStatement({
  name: 'webhooks_rotate_secret',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.nullable(pg.uuid),
    secret: pg.text,
    previousExpiresOn: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    UPDATE webhooks
       SET previous_signing_secret = signing_secret, previous_secret_expires_on = ${p.previousExpiresOn},
           signing_secret = ${p.secret}, updated_on = now()
     WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND store_id IS NOT DISTINCT FROM ${p.storeId}
    RETURNING id::text`,
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
