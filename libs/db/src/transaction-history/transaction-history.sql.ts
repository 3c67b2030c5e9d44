import type { CursorDirection } from '@kessai/domain';
import type { Prisma } from '../generated/prisma/client';
import type { PaymentType, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg, type ParamRefs, type ParamsOf, type RowOf } from '../sql/statement';

/**
 * The transaction history (docs/transaction-history.md): charges and refunds as one ledger, in the
 * list order (created_on, id) of every list, with `type` last (it only breaks a tie between a charge
 * and a refund of the same id, which random v4 ids never make).
 *
 * Each branch takes its own first `take` rows through its (merchant_id|store_id, created_on DESC,
 * id DESC) index — scope equality, then the keyset bounds as row comparisons, read in index order
 * and stopped at `take` — and only the merged `take` rows are joined to their merchant and token
 * (primary-key lookups). Status and mode are parameters that may be null, so that the text never
 * varies: one statement per scope and direction. The two keyset bounds (the cursor and the date
 * range folded together by the repository) are never null — an open side is ±infinity — so both are
 * index conditions. The statements are `replan`: planned with their values at every call. A generic
 * plan (what a named prepared statement settles on) cannot see that `$n IS NULL OR …` passes every
 * row, underestimates the rows in range, and reads them all through a bitmap scan and sorts them —
 * the whole history of a merchant for each page (seen with force_generic_plan on PostgreSQL 15;
 * test/transaction-history.e2e-spec.ts checks the plan each call gets).
 */

const HISTORY_PARAMS = {
  /** the caller's merchant; every row is the merchant's whatever the scope */
  merchantId: pg.uuid,
  includeCharges: pg.bool,
  includeRefunds: pg.bool,
  /** a ChargeStatus or RefundStatus, compared as text (a refund is never `authorized`) */
  status: pg.nullable(pg.text),
  mode: pg.nullable(pg.enum<ProcessingMode>('processing_mode')),
  /**
   * Rows strictly between (lowerOn, lowerId) and (upperOn, upperId) in (created_on, id) order: the
   * cursor and the date range folded into two bounds (ISO instants, or ±infinity when open)
   */
  lowerOn: pg.text,
  lowerId: pg.uuid,
  upperOn: pg.text,
  upperId: pg.uuid,
  /** the page's limit + 1 */
  take: pg.int4,
};

const HISTORY_COLUMNS = {
  type: pg.textOf<'charge' | 'refund'>(),
  resource_id: pg.uuid,
  charge_id: pg.uuid,
  store_id: pg.uuid,
  status: pg.text,
  amount: pg.int8,
  currency: pg.bpchar,
  metadata: pg.jsonb<Prisma.JsonValue>(),
  mode: pg.enum<ProcessingMode>('processing_mode'),
  created_on: pg.timestamptz,
  merchant_name: pg.text,
  payment_type: pg.nullable(pg.enum<PaymentType>('payment_type')),
  email: pg.nullable(pg.text),
  cardholder_name: pg.nullable(pg.text),
};

/** the store-scoped statements' parameters: the merchant's, and the store listed */
const STORE_HISTORY_PARAMS = { ...HISTORY_PARAMS, storeId: pg.uuid };

function historyText(direction: CursorDirection, p: ParamRefs<typeof HISTORY_PARAMS> & { storeId?: string }) {
  const order = direction === 'desc' ? 'DESC' : 'ASC';
  // the scope's column leads the index the branch reads
  const inScope = (alias: string) =>
    p.storeId === undefined
      ? `${alias}.merchant_id = ${p.merchantId}`
      : `${alias}.store_id = ${p.storeId} AND ${alias}.merchant_id = ${p.merchantId}`;
  const filters = (alias: string) => `
         AND (${p.status} IS NULL OR ${alias}.status::text = ${p.status})
         AND (${p.mode} IS NULL OR ${alias}.mode = ${p.mode})
         AND (${alias}.created_on, ${alias}.id) > (${p.lowerOn}::timestamptz, ${p.lowerId})
         AND (${alias}.created_on, ${alias}.id) < (${p.upperOn}::timestamptz, ${p.upperId})
       ORDER BY ${alias}.created_on ${order}, ${alias}.id ${order}
       LIMIT ${p.take}`;
  return `
    WITH ledger AS (
      (SELECT 'charge'::text AS type, c.id AS resource_id, c.id AS charge_id, c.store_id,
              c.status::text AS status,
              COALESCE(c.charged_amount, c.requested_amount) AS amount,
              COALESCE(c.charged_currency, c.requested_currency) AS currency,
              c.metadata, c.mode, c.created_on, c.transaction_token_id
         FROM charges c
        WHERE ${p.includeCharges} AND ${inScope('c')}${filters('c')})
      UNION ALL
      (SELECT 'refund'::text, r.id, r.charge_id, r.store_id, r.status::text, r.amount, r.currency,
              r.metadata, r.mode, r.created_on, NULL::uuid
         FROM refunds r
        WHERE ${p.includeRefunds} AND ${inScope('r')}${filters('r')})
      ORDER BY created_on ${order}, resource_id ${order}, type ${order}
      LIMIT ${p.take}
    )
    SELECT l.type, l.resource_id, l.charge_id, l.store_id, l.status, l.amount, l.currency, l.metadata,
           l.mode, l.created_on, m.name AS merchant_name, t.payment_type, t.email,
           t.data -> 'card' ->> 'cardholder' AS cardholder_name
      FROM ledger l
      JOIN merchants m ON m.id = ${p.merchantId}
      LEFT JOIN charges rc ON l.type = 'refund' AND rc.id = l.charge_id
      LEFT JOIN transaction_tokens t ON t.id = COALESCE(l.transaction_token_id, rc.transaction_token_id)
     ORDER BY l.created_on ${order}, l.resource_id ${order}, l.type ${order}`;
}

const merchantHistory = (direction: CursorDirection) =>
  defineStatement({
    name: `transaction_history_merchant_${direction}`,
    params: HISTORY_PARAMS,
    columns: HISTORY_COLUMNS,
    text: (p) => historyText(direction, p),
    replan: true,
  });

const storeHistory = (direction: CursorDirection) =>
  defineStatement({
    name: `transaction_history_store_${direction}`,
    params: STORE_HISTORY_PARAMS,
    columns: HISTORY_COLUMNS,
    text: (p) => historyText(direction, p),
    replan: true,
  });

/** One statement per scope and direction (the text of each is fixed). */
export const LIST_TRANSACTION_HISTORY = {
  merchant: { desc: merchantHistory('desc'), asc: merchantHistory('asc') },
  store: { desc: storeHistory('desc'), asc: storeHistory('asc') },
} as const;

export type TransactionHistoryParams = ParamsOf<typeof HISTORY_PARAMS>;
export type TransactionHistoryRow = RowOf<typeof HISTORY_COLUMNS>;

/**
 * Where a cursor (a resource id) stands in the ledger: the charge or refund of that id the scope may
 * list (`storeId` null: any store of the merchant). Primary-key lookups; at most one row per table.
 */
export const FIND_TRANSACTION_HISTORY_CURSOR = defineStatement({
  name: 'transaction_history_find_cursor',
  params: { merchantId: pg.uuid, storeId: pg.nullable(pg.uuid), id: pg.uuid },
  columns: { type: pg.textOf<'charge' | 'refund'>(), created_on: pg.timestamptz },
  text: (p) => `
    SELECT 'charge'::text AS type, created_on FROM charges
     WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND (${p.storeId} IS NULL OR store_id = ${p.storeId})
    UNION ALL
    SELECT 'refund'::text, created_on FROM refunds
     WHERE id = ${p.id} AND merchant_id = ${p.merchantId} AND (${p.storeId} IS NULL OR store_id = ${p.storeId})`,
});
