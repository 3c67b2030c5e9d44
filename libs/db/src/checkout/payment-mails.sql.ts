import { defineStatement, pg } from '../sql/statement';

/**
 * The payment instructions mails of the link page's bank-transfer and konbini charges
 * (docs/hosted-checkout.md, "Bank transfer and konbini"; decision 0034): one row per charge, written
 * by the gateway before the charge, sent by charge-service's mailer.
 */

/** A charge's mail, once: a second write for the same charge (a retried request) adds nothing. */
export const RECORD_PAYMENT_MAIL = defineStatement({
  name: 'checkout_payment_mail_record',
  params: { chargeId: pg.uuid, linkId: pg.uuid, lang: pg.text },
  columns: { charge_id: pg.text },
  text: (p) => `
    INSERT INTO checkout_payment_mails (charge_id, checkout_link_id, lang)
    VALUES (${p.chargeId}, ${p.linkId}, ${p.lang})
    ON CONFLICT (charge_id) DO NOTHING
    RETURNING charge_id::text AS charge_id`,
});

/** The mail of a charge that was refused before it was written: nothing will be sent for it. */
export const FORGET_PAYMENT_MAIL = defineStatement({
  name: 'checkout_payment_mail_forget',
  params: { chargeId: pg.uuid },
  columns: { charge_id: pg.text },
  text: (p) => `
    DELETE FROM checkout_payment_mails WHERE charge_id = ${p.chargeId} AND status = 'pending'
    RETURNING charge_id::text AS charge_id`,
});

/**
 * Claims up to `limit` pending mails whose charge charge-service has processed (no longer
 * `pending`: it awaits with its instructions, or ended) and that no process holds: each is held for
 * `claimSeconds` (a process that dies while sending lets another take it after that), its attempts
 * counted. SKIP LOCKED: replicas claiming at once take different mails. Answers what the mail needs.
 */
export const CLAIM_DUE_PAYMENT_MAILS = defineStatement({
  name: 'checkout_payment_mails_claim_due',
  params: { limit: pg.int4, claimSeconds: pg.int4 },
  columns: {
    charge_id: pg.text,
    lang: pg.text,
    attempts: pg.int4,
    merchant_id: pg.text,
    store_id: pg.text,
    status: pg.text,
    payment_type: pg.text,
    email: pg.nullable(pg.text),
    amount: pg.int8,
    currency: pg.bpchar,
    expires_on: pg.nullable(pg.timestamptz),
    issuer_token: pg.nullable(pg.jsonb<Record<string, unknown>>()),
  },
  text: (p) => `
    WITH due AS (
      SELECT m.charge_id
        FROM checkout_payment_mails m
        JOIN charges c ON c.id = m.charge_id
       WHERE m.status = 'pending'
         AND (m.claimed_until IS NULL OR m.claimed_until < now())
         AND c.status <> 'pending'
       ORDER BY m.created_on
       LIMIT ${p.limit}
         FOR UPDATE OF m SKIP LOCKED)
    UPDATE checkout_payment_mails m
       SET claimed_until = now() + make_interval(secs => ${p.claimSeconds}),
           attempts = m.attempts + 1, updated_on = now()
      FROM due, charges c, transaction_tokens t
     WHERE m.charge_id = due.charge_id AND c.id = m.charge_id AND t.id = c.transaction_token_id
    RETURNING m.charge_id::text AS charge_id, m.lang, m.attempts, c.merchant_id::text AS merchant_id,
              c.store_id::text AS store_id, c.status::text AS status, t.payment_type::text AS payment_type,
              t.email, c.requested_amount AS amount, c.requested_currency AS currency, c.expires_on,
              c.issuer_token`,
});

/**
 * A claimed mail's end: `sent` (the SMTP server took it), `skipped` (nothing to send: the charge
 * ended before its instructions, or its token has no email) or `failed` (its attempts used up).
 * Only a pending mail changes.
 */
export const FINISH_PAYMENT_MAIL = defineStatement({
  name: 'checkout_payment_mail_finish',
  params: { chargeId: pg.uuid, status: pg.text },
  columns: { charge_id: pg.text },
  text: (p) => `
    UPDATE checkout_payment_mails
       SET status = ${p.status}, sent_on = CASE WHEN ${p.status} = 'sent' THEN now() END,
           claimed_until = NULL, last_error = NULL, updated_on = now()
     WHERE charge_id = ${p.chargeId} AND status = 'pending'
    RETURNING charge_id::text AS charge_id`,
});

/**
 * A send that failed: the mail stays pending, taken again after `retrySeconds` (the caller's
 * backoff), with the failure's reason (never the address or the content).
 */
export const POSTPONE_PAYMENT_MAIL = defineStatement({
  name: 'checkout_payment_mail_postpone',
  params: { chargeId: pg.uuid, retrySeconds: pg.int4, error: pg.text },
  columns: { charge_id: pg.text },
  text: (p) => `
    UPDATE checkout_payment_mails
       SET claimed_until = now() + make_interval(secs => ${p.retrySeconds}), last_error = ${p.error},
           updated_on = now()
     WHERE charge_id = ${p.chargeId} AND status = 'pending'
    RETURNING charge_id::text AS charge_id`,
});

/**
 * Pending mails of charges that were never created (the gateway's request died between the mail's
 * row and the charge) after `seconds`: skipped, so that the mailer's scan does not read them again.
 * A charge is created within its request, long before.
 */
export const SKIP_ORPHAN_PAYMENT_MAILS = defineStatement({
  name: 'checkout_payment_mails_skip_orphans',
  params: { seconds: pg.int4 },
  columns: { charge_id: pg.text },
  text: (p) => `
    UPDATE checkout_payment_mails m
       SET status = 'skipped', updated_on = now()
     WHERE m.status = 'pending' AND m.created_on < now() - make_interval(secs => ${p.seconds})
       AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = m.charge_id)
    RETURNING m.charge_id::text AS charge_id`,
});
