import { UNSUCCESSFUL_CHARGE_STATUSES } from '@kessai/domain';
import type { LedgerAccountKind, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg, sqlList } from '../sql/statement';

/**
 * A merchant's overview (docs/console.md, "Overview"): its charges and refunds per local day of a
 * range, and its stores' balances. Each statement is one grouped read of one merchant's rows in one
 * mode: the charges and refunds through their (merchant_id, created_on, id) index, bounded by the
 * range (never another merchant's rows), the balances through ledger_accounts' (merchant_id,
 * store_id) index (the accounts' materialized balances, never their entries).
 */

/** `from` (first day) and `to` (last day, included) as instants bounding created_on in `timeZone`. */
const createdWithin = (
  alias: string,
  p: { from: string; to: string; timeZone: string },
) => `${alias}.created_on >= (${p.from}::timestamp AT TIME ZONE ${p.timeZone})
       AND ${alias}.created_on < ((${p.to} + 1)::timestamp AT TIME ZONE ${p.timeZone})`;

/**
 * The merchant's charges created in the range, per local day and currency: the successful ones
 * (count and charged amount: the volume) and the unsuccessful ones (failed, error, canceled: with
 * the successful, the success rate's denominator). Charges still in flight (pending, awaiting,
 * authorized) count in neither. Planned with its values (`replan`): a range's width decides how
 * much of the index it reads.
 */
export const OVERVIEW_CHARGE_DAYS = defineStatement({
  name: 'overview_charge_days',
  params: {
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    from: pg.date,
    to: pg.date,
    timeZone: pg.text,
  },
  columns: {
    day: pg.text,
    currency: pg.bpchar,
    successful: pg.int8,
    amount: pg.int8,
    unsuccessful: pg.int8,
  },
  replan: true,
  text: (p) => `
    SELECT to_char(c.created_on AT TIME ZONE ${p.timeZone}, 'YYYY-MM-DD') AS day,
           coalesce(c.charged_currency, c.requested_currency) AS currency,
           count(*) FILTER (WHERE c.status = 'successful')::int8 AS successful,
           coalesce(sum(coalesce(c.charged_amount, c.requested_amount))
                      FILTER (WHERE c.status = 'successful'), 0)::int8 AS amount,
           count(*) FILTER (WHERE c.status IN ${sqlList(UNSUCCESSFUL_CHARGE_STATUSES)})::int8 AS unsuccessful
      FROM charges c
     WHERE c.merchant_id = ${p.merchantId}
       AND ${createdWithin('c', p)}
       AND c.mode = ${p.mode}
       AND c.status IN ${sqlList(['successful', ...UNSUCCESSFUL_CHARGE_STATUSES])}
     GROUP BY 1, 2
     ORDER BY 1, 2`,
});

/** The merchant's successful refunds created in the range, per local day and currency. */
export const OVERVIEW_REFUND_DAYS = defineStatement({
  name: 'overview_refund_days',
  params: {
    merchantId: pg.uuid,
    mode: pg.enum<ProcessingMode>('processing_mode'),
    from: pg.date,
    to: pg.date,
    timeZone: pg.text,
  },
  columns: { day: pg.text, currency: pg.bpchar, count: pg.int8, amount: pg.int8 },
  replan: true,
  text: (p) => `
    SELECT to_char(r.created_on AT TIME ZONE ${p.timeZone}, 'YYYY-MM-DD') AS day,
           r.currency,
           count(*)::int8 AS count,
           sum(r.amount)::int8 AS amount
      FROM refunds r
     WHERE r.merchant_id = ${p.merchantId}
       AND ${createdWithin('r', p)}
       AND r.mode = ${p.mode}
       AND r.status = 'successful'
     GROUP BY 1, 2
     ORDER BY 1, 2`,
});

/**
 * The balances of the merchant's stores in a mode: each store's pending and available account per
 * currency, as the accounts' rows hold them (kept by the entries' trigger; docs/ledger.md). A
 * balance is signed as the ledger signs it: negative is owed to the store.
 */
export const OVERVIEW_STORE_BALANCES = defineStatement({
  name: 'overview_store_balances',
  params: { merchantId: pg.uuid, mode: pg.enum<ProcessingMode>('processing_mode') },
  columns: {
    store_id: pg.text,
    store_name: pg.text,
    currency: pg.bpchar,
    kind: pg.textOf<LedgerAccountKind>(),
    balance: pg.int8,
  },
  text: (p) => `
    SELECT a.store_id::text AS store_id, s.name AS store_name, a.currency, a.kind::text AS kind, a.balance
      FROM ledger_accounts a
      JOIN stores s ON s.id = a.store_id
     WHERE a.merchant_id = ${p.merchantId}
       AND a.mode = ${p.mode}
       AND a.kind IN ('store_pending', 'store_available')
     ORDER BY s.name, a.store_id, a.currency, a.kind`,
});
