import { defineStatement, pg } from '../sql/statement';

/** One row of the console's audit log, inserted inside the transaction of the write it records. */
export const INSERT_CONSOLE_AUDIT_EVENT = defineStatement({
  name: 'console_audit_insert',
  params: {
    merchantId: pg.uuid,
    userId: pg.uuid,
    sessionId: pg.uuid,
    action: pg.text,
    targetType: pg.text,
    targetId: pg.uuid,
    mode: pg.enum<'test' | 'live' | 'live_test'>('processing_mode'),
    detail: pg.jsonb<Record<string, unknown>>(),
    ip: pg.text,
    userAgent: pg.nullable(pg.text),
  },
  columns: { id: pg.text },
  text: (p) => `
    INSERT INTO console_audit_events (merchant_id, user_id, session_id, action, target_type, target_id,
                                      mode, detail, ip, user_agent)
    VALUES (${p.merchantId}, ${p.userId}, ${p.sessionId}, ${p.action}, ${p.targetType}, ${p.targetId},
            ${p.mode}, ${p.detail}, ${p.ip}, ${p.userAgent})
    RETURNING id::text AS id`,
});
