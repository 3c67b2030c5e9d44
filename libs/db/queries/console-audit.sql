-- Generated from libs/db/src/audit/console-audit.sql.ts by npm run sql:generate: do not edit.

-- console_audit_insert
-- params: $1 merchantId uuid, $2 userId uuid, $3 sessionId uuid, $4 action text, $5 targetType text, $6 targetId uuid, $7 mode processing_mode, $8 detail jsonb, $9 ip text, $10 userAgent text
-- columns: id text
INSERT INTO console_audit_events (merchant_id, user_id, session_id, action, target_type, target_id,
                                  mode, detail, ip, user_agent)
VALUES ($1::uuid, $2::uuid, $3::uuid, $4::text, $5::text, $6::uuid,
        $7::processing_mode, $8::jsonb, $9::text, $10::text)
RETURNING id::text AS id;
