-- Generated from libs/db/src/idempotency/idempotency-records.sql.ts by npm run sql:generate: do not edit.

-- idempotency_records_claim
-- params: $1 credentialId text, $2 key text, $3 method text, $4 path text, $5 requestHash text, $6 expiresOn timestamptz
-- columns: id text
INSERT INTO idempotency_records
  (credential_id, key, method, path, request_hash, state, expires_on, updated_on)
VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, 'in_flight', $6::timestamptz,
        now())
ON CONFLICT (credential_id, key) DO UPDATE SET
  method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
  state = 'in_flight', response_status = NULL, response_body = NULL, response_headers = NULL,
  expires_on = EXCLUDED.expires_on, created_on = now(), updated_on = now()
WHERE idempotency_records.expires_on <= now()
RETURNING id::text AS id;

-- idempotency_records_delete_expired
-- params: $1 limit int4
-- columns: deleted int4
WITH deleted AS (
  DELETE FROM idempotency_records
   WHERE id IN (SELECT id FROM idempotency_records WHERE expires_on <= now() LIMIT $1::int4)
  RETURNING 1
)
SELECT count(*)::int AS deleted FROM deleted;
