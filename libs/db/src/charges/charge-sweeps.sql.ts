import { CAPTURABLE_CHARGE_STATUS } from '@kessai/domain';
import { defineStatement, pg, sqlLiteral } from '../sql/statement';

/**
 * charge-service's sweep (ChargeSweeper): the charges nobody is moving, found by time — captures
 * due at capture_at, awaiting charges past their deadline, pending charges and captures left stale.
 */

/** Capturable charges whose capture_at has come and that have no capture yet. */
export const FIND_DUE_CAPTURES = defineStatement({
  name: 'charge_outcomes_find_due_captures',
  params: { limit: pg.int4 },
  columns: { id: pg.text, amount: pg.int8, currency: pg.bpchar },
  text: (p) => `
    SELECT c.id::text AS id, c.requested_amount AS amount, c.requested_currency AS currency
      FROM charges c
     WHERE c.status = ${sqlLiteral(CAPTURABLE_CHARGE_STATUS)} AND c.capture_at <= now()
       AND c.pending_operation IS NULL
       AND NOT EXISTS (SELECT 1 FROM captures k WHERE k.charge_id = c.id)
     LIMIT ${p.limit}`,
});

/** Awaiting charges nobody completed in time, with the deadline they passed. */
export const FIND_EXPIRED_AWAITING = defineStatement({
  name: 'charge_outcomes_find_expired_awaiting',
  params: { limit: pg.int4 },
  columns: { id: pg.text, expires_on: pg.timestamptz },
  text: (p) => `
    SELECT id::text AS id, expires_on FROM charges
     WHERE status = 'awaiting' AND expires_on <= now()
     LIMIT ${p.limit}`,
});

/** Pending charges untouched for `seconds`: their job was lost or keeps failing. */
export const FIND_STALE_PENDING = findStale('charge_outcomes_find_stale_pending', 'charges', 'id');

/** Charges whose capture has been pending for `seconds`. */
export const FIND_STALE_CAPTURES = findStale('charge_outcomes_find_stale_captures', 'captures', 'charge_id');

/**
 * The rows of `table` (charges, captures) pending and untouched for `seconds` — one rule of staleness
 * for both — by `column`, the charge's id.
 */
function findStale<const C extends string>(name: string, table: 'charges' | 'captures', column: C) {
  return defineStatement({
    name,
    params: { seconds: pg.int4, limit: pg.int4 },
    columns: { [column]: pg.text } as Record<C, typeof pg.text>,
    text: (p) => `
    SELECT ${column}::text AS ${column} FROM ${table}
     WHERE status = 'pending' AND updated_on < now() - make_interval(secs => ${p.seconds})
     LIMIT ${p.limit}`,
  });
}
