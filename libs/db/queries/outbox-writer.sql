-- Generated from libs/db/src/outbox/outbox-writer.ts by npm run sql:generate: do not edit.

-- outbox_insert_event
-- params: $1 merchantId uuid, $2 storeId uuid, $3 aggregateType text, $4 aggregateId uuid, $5 eventType text, $6 payload jsonb, $7 correlationId text
-- columns: id text
  INSERT INTO outbox_events
       (merchant_id, store_id, aggregate_type, aggregate_id, event_type, payload, correlation_id)
SELECT $1::uuid, $2::uuid, $3::text, $4::uuid,
       $5::text, $6::jsonb, $7::text
  FROM (SELECT 1) AS one
  RETURNING id::text AS id;
