import type { ChargeStatus, PaymentType, ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg, type ParamRefs } from '../sql/statement';
import { CHARGE_COLUMNS, CHARGE_SELECT } from './charges.sql';

/**
 * The filters of a charges list (GET /charges, the console's payments and their CSV export), each
 * null when not given. Planned again at every call (`replan`): a filter left out then folds away,
 * and the plan is the one of the filters given (the card's last four through
 * charges_merchant_id_card_last_four_created_on_id_idx, metadata through charges_metadata_idx, a
 * range through the merchant's created_on index).
 */
const FILTERS = {
  merchantId: pg.uuid,
  storeId: pg.nullable(pg.uuid),
  status: pg.nullable(pg.enum<ChargeStatus>('charge_status')),
  mode: pg.nullable(pg.enum<ProcessingMode>('processing_mode')),
  transactionTokenId: pg.nullable(pg.uuid),
  subscriptionId: pg.nullable(pg.uuid),
  scheduledPaymentId: pg.nullable(pg.uuid),
  currency: pg.nullable(pg.text),
  amountFrom: pg.nullable(pg.int8),
  amountTo: pg.nullable(pg.int8),
  from: pg.nullable(pg.timestamptz),
  to: pg.nullable(pg.timestamptz),
  /** `{key: value}`: a charge whose metadata holds it (`@>`) */
  metadata: pg.nullable(pg.jsonb<Record<string, unknown>>()),
  /** `{key: value as a number}` when the value is numeric: either matches */
  metadataNumber: pg.nullable(pg.jsonb<Record<string, unknown>>()),
  cardLastFour: pg.nullable(pg.text),
  paymentType: pg.nullable(pg.enum<PaymentType>('payment_type')),
  /** compared case-insensitively */
  email: pg.nullable(pg.text),
} as const;

/** The rows of charges `c` (joined with their token `t`) that the filters keep. */
const filtered = (p: ParamRefs<typeof FILTERS>) => `FROM charges c
      JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE c.merchant_id = ${p.merchantId}
       AND (${p.storeId} IS NULL OR c.store_id = ${p.storeId})
       AND (${p.status} IS NULL OR c.status = ${p.status})
       AND (${p.mode} IS NULL OR c.mode = ${p.mode})
       AND (${p.transactionTokenId} IS NULL OR c.transaction_token_id = ${p.transactionTokenId})
       AND (${p.subscriptionId} IS NULL OR c.subscription_id = ${p.subscriptionId})
       AND (${p.scheduledPaymentId} IS NULL OR c.scheduled_payment_id = ${p.scheduledPaymentId})
       AND (${p.currency} IS NULL OR c.requested_currency = ${p.currency})
       AND (${p.amountFrom} IS NULL OR c.requested_amount >= ${p.amountFrom})
       AND (${p.amountTo} IS NULL OR c.requested_amount < ${p.amountTo})
       AND (${p.from} IS NULL OR c.created_on >= ${p.from})
       AND (${p.to} IS NULL OR c.created_on < ${p.to})
       AND (${p.metadata} IS NULL OR c.metadata @> ${p.metadata} OR c.metadata @> ${p.metadataNumber})
       AND (${p.cardLastFour} IS NULL OR c.card_last_four = ${p.cardLastFour})
       AND (${p.paymentType} IS NULL OR t.payment_type = ${p.paymentType})
       AND (${p.email} IS NULL OR lower(t.email) = lower(${p.email}))`;

/** A list's row: the charge, its store's and merchant's names, its token's email and payment type. */
const LIST_COLUMNS = {
  ...CHARGE_COLUMNS,
  store_name: pg.text,
  merchant_name: pg.text,
  token_email: pg.nullable(pg.text),
  token_payment_type: pg.textOf<PaymentType>(),
} as const;

/**
 * One keyset page of a charges list in `order` (newest first for desc): the rows after the cursor
 * row (`afterCreatedOn`, `afterId`, both null on a first page) that the filters keep, `limit` of
 * them.
 */
const listPage = (order: 'desc' | 'asc') =>
  defineStatement({
    name: `charges_list_page_${order}`,
    params: {
      ...FILTERS,
      afterCreatedOn: pg.nullable(pg.timestamptz),
      afterId: pg.nullable(pg.uuid),
      limit: pg.int4,
    },
    columns: LIST_COLUMNS,
    replan: true,
    text: (p) => `
    SELECT ${CHARGE_SELECT}, store_name, merchant_name, token_email, token_payment_type
      FROM (
        SELECT c.*, t.email AS token_email, t.payment_type::text AS token_payment_type
      ${filtered(p)}
           AND (${p.afterCreatedOn} IS NULL
                OR (c.created_on, c.id) ${order === 'desc' ? '<' : '>'} (${p.afterCreatedOn}, ${p.afterId}))
         ORDER BY c.created_on ${order}, c.id ${order}
         LIMIT ${p.limit}
      ) page
      JOIN LATERAL (
        SELECT s.name AS store_name, m.name AS merchant_name
          FROM stores s JOIN merchants m ON m.id = s.merchant_id
         WHERE s.id = page.store_id
      ) owner ON true
     ORDER BY created_on ${order}, id ${order}`,
  });

export const LIST_CHARGES = { desc: listPage('desc'), asc: listPage('asc') } as const;

/** The cursor row of a list: the charge `id` if the filters keep it (else no row: an unknown cursor). */
export const FIND_CHARGE_LIST_CURSOR = defineStatement({
  name: 'charges_list_cursor',
  params: { ...FILTERS, id: pg.uuid },
  columns: { id: pg.text, created_on: pg.timestamptz },
  replan: true,
  text: (p) => `
    SELECT c.id::text AS id, c.created_on
      ${filtered(p)}
       AND c.id = ${p.id}`,
});

/** How many charges the filters keep (a list's total_hits). */
export const COUNT_CHARGES = defineStatement({
  name: 'charges_list_count',
  params: FILTERS,
  columns: { n: pg.int8 },
  replan: true,
  text: (p) => `
    SELECT count(*) AS n
      ${filtered(p)}`,
});
