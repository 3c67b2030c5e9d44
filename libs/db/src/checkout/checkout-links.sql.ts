import { UNCOMPLETED_ENDED_SUBSCRIPTION_STATUSES, UNSUCCESSFUL_CHARGE_STATUSES } from '@kessai/domain';
import { defineStatement, pg, sqlList } from '../sql/statement';

/** A link's payment that failed: its charge ended without money, its subscription without completing. */
const FAILED_CHARGE = sqlList(UNSUCCESSFUL_CHARGE_STATUSES);
const FAILED_SUBSCRIPTION = sqlList(UNCOMPLETED_ENDED_SUBSCRIPTION_STATUSES);

/**
 * A checkout link's one payment (docs/hosted-checkout.md, "One payment per link"): the link page
 * claims the link for the charge or subscription it is about to create, by id, in one conditional
 * UPDATE. The row lock makes concurrent claims take turns; the later one re-reads the claim the
 * earlier wrote and finds it taken. A claim may be taken over only when its payment failed, or when
 * nothing was ever created under it and it is older than `staleSeconds` (the creating process died).
 */
export const CLAIM_CHECKOUT_LINK_PAYMENT = defineStatement({
  name: 'checkout_link_payment_claim',
  params: { linkId: pg.uuid, kind: pg.text, paymentId: pg.uuid, staleSeconds: pg.int4 },
  columns: { id: pg.text },
  text: (p) => `
    UPDATE checkout_links l
       SET payment_kind = ${p.kind}, payment_id = ${p.paymentId}, payment_claimed_on = now(), updated_on = now()
     WHERE l.id = ${p.linkId}
       AND (l.payment_id IS NULL
            OR (l.payment_kind = 'charge' AND EXISTS (
                  SELECT 1 FROM charges c
                   WHERE c.id = l.payment_id AND c.status IN ${FAILED_CHARGE}))
            OR (l.payment_kind = 'subscription' AND EXISTS (
                  SELECT 1 FROM subscriptions s
                   WHERE s.id = l.payment_id AND s.status IN ${FAILED_SUBSCRIPTION}))
            OR (l.payment_claimed_on < now() - make_interval(secs => ${p.staleSeconds})
                AND NOT EXISTS (SELECT 1 FROM charges c WHERE c.id = l.payment_id)
                AND NOT EXISTS (SELECT 1 FROM subscriptions s WHERE s.id = l.payment_id)))
    RETURNING l.id::text AS id`,
});

/** Gives a claim back when its payment was refused before anything was created. */
export const RELEASE_CHECKOUT_LINK_PAYMENT = defineStatement({
  name: 'checkout_link_payment_release',
  params: { linkId: pg.uuid, paymentId: pg.uuid },
  columns: { id: pg.text },
  text: (p) => `
    UPDATE checkout_links
       SET payment_kind = NULL, payment_id = NULL, payment_claimed_on = NULL, updated_on = now()
     WHERE id = ${p.linkId} AND payment_id = ${p.paymentId}
    RETURNING id::text AS id`,
});
