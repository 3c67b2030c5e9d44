import { defineStatement, pg } from '../sql/statement';

/**
 * Claims (credential, key): the unique index decides between concurrent claimers, and an expired
 * record is taken over in the same statement. No row when someone else holds it.
 */
export const CLAIM_IDEMPOTENCY_KEY = defineStatement({
  name: 'idempotency_records_claim',
  params: {
    credentialId: pg.text,
    key: pg.text,
    method: pg.text,
    path: pg.text,
    requestHash: pg.text,
    expiresOn: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    INSERT INTO idempotency_records
      (credential_id, key, method, path, request_hash, state, expires_on, updated_on)
    VALUES (${p.credentialId}, ${p.key}, ${p.method}, ${p.path}, ${p.requestHash}, 'in_flight', ${p.expiresOn},
            now())
    ON CONFLICT (credential_id, key) DO UPDATE SET
      method = EXCLUDED.method, path = EXCLUDED.path, request_hash = EXCLUDED.request_hash,
      state = 'in_flight', response_status = NULL, response_body = NULL, response_headers = NULL,
      expires_on = EXCLUDED.expires_on, created_on = now(), updated_on = now()
    WHERE idempotency_records.expires_on <= now()
    RETURNING id::text AS id`,
});

/** Deletes up to `limit` expired records; one row, how many. */
export const DELETE_EXPIRED_IDEMPOTENCY_RECORDS = defineStatement({
  name: 'idempotency_records_delete_expired',
  params: { limit: pg.int4 },
  columns: { deleted: pg.int4 },
  text: (p) => `
    WITH deleted AS (
      DELETE FROM idempotency_records
       WHERE id IN (SELECT id FROM idempotency_records WHERE expires_on <= now() LIMIT ${p.limit})
      RETURNING 1
    )
    SELECT count(*)::int AS deleted FROM deleted`,
});
