import { CHARGE_ENTRY, type ChargeStatus, type CursorDirection } from '@kessai/domain';
import type { JsonValue } from '../generated/prisma/internal/prismaNamespace';
import type {
  CaptureStatus,
  ChargeOperation,
  MatchAmount,
  PaymentType,
  ProcessingMode,
  TokenType,
} from '../generated/prisma/enums';
import { chargeRequestedSql, chargeStatusSql, processorNoticeReceivedSql } from '../outbox/event-sql';
import { eventSqlWhen, outboxInsertFrom } from '../outbox/outbox-writer';
import {
  defineStatement,
  pg,
  sqlLiteral,
  type ParamRefs,
  type ParamsOf,
  type PgTypes,
  type RowOf,
} from '../sql/statement';

/** What `kessai_refuse` raises (SQLSTATE KS001) with, when the create statement must not stand. */
export const REFUSED_TOKEN = 'token_not_claimable';
export const REFUSED_QUOTA = 'quota_exhausted';
export const REFUSED_CARD_LIMIT = 'card_limit_exceeded';

/** The statuses of a charge that never took, and will never take, the card's money. */
const NO_MONEY_STATUSES = ['failed', 'error', 'canceled'] as const satisfies readonly ChargeStatus[];

/** The SQL expression of the card limit's advisory lock key: one card (its vault fingerprint) at one store. */
export const cardLimitLockKeySql = (storeId: string, fingerprint: string): string =>
  `hashtextextended('card-limit:' || ${storeId}::text || ':' || ${fingerprint}, 0)`;

/**
 * The card limit, written once for every statement that inserts a charge under it (CREATE_CHARGE,
 * the subscription engine's START_PAYMENTS; decisions 0070, 0076): whether a charge of `amount` on
 * the token `tokenId` at `storeId` in `currency` stays within `limitAmount`, counting what the same
 * card (its card_vault fingerprint, whichever token) was charged at the store in that currency by
 * charges created after `since` that have not failed, errored or been canceled. True when
 * `limitAmount` is NULL (no limit applies). Each argument is an SQL expression. The caller holds the
 * card's lock (cardLimitLockKeySql) and runs the statement after taking it, so that its snapshot
 * sees every charge of the card inserted before.
 */
export const cardLimitOkSql = (a: {
  tokenId: string;
  storeId: string;
  currency: string;
  since: string;
  amount: string;
  limitAmount: string;
}): string => `
      CASE WHEN ${a.limitAmount} IS NULL THEN true
           ELSE (SELECT coalesce(sum(c.requested_amount), 0)
                   FROM card_vault mine
                   JOIN card_vault same ON same.fingerprint = mine.fingerprint
                   JOIN charges c ON c.transaction_token_id = same.transaction_token_id
                  WHERE mine.transaction_token_id = ${a.tokenId}
                    AND c.store_id = ${a.storeId}
                    AND c.requested_currency = ${a.currency}
                    AND c.created_on > ${a.since}
                    AND c.status NOT IN (${NO_MONEY_STATUSES.map((s) => sqlLiteral(s)).join(', ')})
                ) + ${a.amount} <= ${a.limitAmount}
      END`;

/**
 * One charge of CREATE_CHARGES, as it reads it from its jsonb input (jsonb_to_recordset: the keys
 * are the column names below, amounts and instants as text).
 */
export interface ChargeCreateInput {
  id: string;
  merchant_id: string;
  store_id: string;
  transaction_token_id: string;
  transaction_token_type: TokenType;
  mode: ProcessingMode;
  /** bigint as text: JSON has no exact integers past 2^53 */
  requested_amount: string;
  requested_currency: string;
  capture: boolean;
  capture_at: string | null;
  descriptor: string | null;
  only_direct_currency: boolean;
  fee_rate_ppm: number;
  /** bigint as text */
  fee_flat_amount: string;
  /** bank transfer and konbini: the payment deadline (ISO 8601), else null */
  expires_on: string | null;
  match_amount: MatchAmount | null;
  three_ds: unknown;
  redirect: unknown;
  metadata: unknown;
  correlation_id: string | null;
  now: string;
  /** the daily quota the charge takes a unit of, or nulls */
  quota_resource: string | null;
  quota_scope_key: string | null;
  quota_day: string | null;
}

const accepted = CHARGE_ENTRY.accepted;
const duplicate = CHARGE_ENTRY.duplicate;

/**
 * The rules of POST /charges, written once and used by both create statements below. Each reads
 * `input`, a CTE of one row per charge: ChargeCreateInput's columns, plus `duplicate` (refused by
 * the 311 rule), `status` and the error columns the charge is inserted with.
 * - A token is claimed by a conditional UPDATE, only while active and, for one_time, unused, which it
 *   deactivates: two charges of one one_time token cannot both claim it. A duplicate claims nothing.
 * - A quota unit is taken by an upsert of the day's row, never past the maximum; a duplicate takes
 *   none.
 * - The charge is inserted with its event: charge_requested for a pending charge, charge_finished
 *   for a duplicate (failed at once); a charge with a payment deadline (bank transfer, konbini)
 *   with its charge_expiries row too.
 * - A card limit (CREATE_CHARGE only): what the same card (its card_vault fingerprint) was charged
 *   at the store in the limit's currency since the window opened, by charges that have not failed
 *   or been canceled, plus this charge, must not pass the limit; a duplicate is not checked.
 * - When a claim, a card limit or a quota is refused, `kessai_refuse` raises (the token's refusal
 *   first, then the card limit's), which undoes the whole statement; the caller gets the refusal as
 *   an outcome.
 * The two statements differ only in how many charges they carry, hence in how they reach the token
 * and quota rows (one by primary key, or many locked in order and grouped by quota).
 */
const rules = {
  /** what claiming the token `t` sets, at `now` */
  claimSet: (now: string) =>
    `used_count = t.used_count + 1, last_used_on = ${now}, active = (t.type <> 'one_time'), updated_on = ${now}`,
  /** whether the token `t` may be claimed */
  claimable: `t.active AND (t.type <> 'one_time' OR t.used_count = 0)`,
  /** the tail of `INSERT INTO daily_quota_usage (resource, scope_key, day, count) SELECT …` taking `count` units */
  quotaUpsert: (max: string) => `
      ON CONFLICT (resource, scope_key, day)
      DO UPDATE SET count = daily_quota_usage.count + excluded.count, updated_on = now()
      WHERE daily_quota_usage.count + excluded.count <= ${max}`,
  /**
   * After `outcome` (claimed, limit_ok, quota_ok, ok): the refusal, the charges and their events, the answer.
   * The inserts read the guard, so that it runs whatever the plan: a refusal raised nowhere would
   * answer "no charge" as if it were a success.
   */
  guardInsertAndAnswer: `
    -- a refused claim, card limit or quota raises here, undoing the claims, the quotas and the inserts
    guard AS (
      SELECT CASE WHEN ok THEN true
                  ELSE kessai_refuse(CASE WHEN NOT claimed THEN ${sqlLiteral(REFUSED_TOKEN)}
                                          WHEN NOT limit_ok THEN ${sqlLiteral(REFUSED_CARD_LIMIT)}
                                          ELSE ${sqlLiteral(REFUSED_QUOTA)} END)
             END AS ok
        FROM outcome
    ),
    inserted AS (
      INSERT INTO charges (
        id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
        requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
        fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
        metadata, expires_on, match_amount)
      SELECT id, merchant_id, store_id, transaction_token_id, transaction_token_type, mode, status,
             requested_amount, requested_currency, capture, capture_at, descriptor, only_direct_currency,
             fee_rate_ppm, fee_flat_amount, error_code, error_message, error_detail, three_ds, redirect,
             metadata, expires_on, match_amount
        FROM input
       WHERE (SELECT ok FROM guard)
      RETURNING id, created_on, status
    ),
    expiry AS (
      INSERT INTO charge_expiries (charge_id, expiration_date, created_on, updated_on)
      SELECT id, expires_on, now, now
        FROM input
       WHERE expires_on IS NOT NULL AND NOT duplicate AND (SELECT ok FROM guard)
    ),
    event AS (
      ${outboxInsertFrom('input', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: eventSqlWhen('duplicate', chargeStatusSql(duplicate.event), chargeRequestedSql()),
        correlationId: 'correlation_id',
        where: '(SELECT ok FROM guard)',
      })}
    )
    SELECT id::text AS id, created_on, status::text AS status FROM inserted`,
};

/** What both statements return: each inserted charge (pending, or failed for a duplicate). */
const CREATED_COLUMNS = { id: pg.text, created_on: pg.timestamptz, status: pg.textOf<ChargeStatus>() };

/**
 * One charge, its values as scalar parameters (a duplicate-checked token, a token's second use
 * among the requests in flight, a refused batch's charges one by one, a request alone). Its
 * duplicate rule, when it has one (`duplicateWindowSeconds`): a charge of the same token, amount
 * and currency created within the window, and not itself refused by the rule, makes this one a
 * duplicate; a token that cannot be charged any more is refused as such, never as a duplicate. The
 * caller holds the token's advisory lock, since a statement alone cannot see what a concurrent one
 * inserts. Its card limit, when it has one (`cardLimitAmount`, in the charge's currency, over the
 * charges created after `cardLimitSince`): the caller holds the card's advisory lock
 * (LOCK_CARD_LIMIT) for the same reason. The token is reached by its primary key; the quota takes
 * one unit.
 */
export const CREATE_CHARGE = defineStatement({
  name: 'charges_create',
  params: {
    id: pg.uuid,
    merchantId: pg.uuid,
    storeId: pg.uuid,
    transactionTokenId: pg.uuid,
    transactionTokenType: pg.enum<TokenType>('token_type'),
    mode: pg.enum<ProcessingMode>('processing_mode'),
    requestedAmount: pg.int8,
    requestedCurrency: pg.text,
    capture: pg.bool,
    captureAt: pg.nullable(pg.timestamptz),
    descriptor: pg.nullable(pg.text),
    onlyDirectCurrency: pg.bool,
    feeRatePpm: pg.int4,
    feeFlatAmount: pg.int8,
    expiresOn: pg.nullable(pg.timestamptz),
    matchAmount: pg.nullable(pg.enum<MatchAmount>('match_amount')),
    threeDs: pg.nullable(pg.jsonb<unknown>()),
    redirect: pg.nullable(pg.jsonb<unknown>()),
    metadata: pg.jsonb<unknown>(),
    correlationId: pg.nullable(pg.text),
    now: pg.timestamptz,
    quotaResource: pg.nullable(pg.text),
    quotaScopeKey: pg.nullable(pg.text),
    quotaDay: pg.nullable(pg.date),
    quotaMax: pg.int4,
    duplicateWindowSeconds: pg.nullable(pg.int4),
    duplicateErrorCode: pg.nullable(pg.int4),
    duplicateErrorMessage: pg.nullable(pg.text),
    duplicateErrorDetail: pg.nullable(pg.text),
    cardLimitAmount: pg.nullable(pg.int8),
    cardLimitSince: pg.nullable(pg.timestamptz),
  },
  columns: CREATED_COLUMNS,
  text: (p) => `
    WITH dup AS (
      SELECT ${p.duplicateWindowSeconds} IS NOT NULL
             AND EXISTS (
               SELECT 1 FROM charges
                WHERE transaction_token_id = ${p.transactionTokenId}
                  AND requested_amount = ${p.requestedAmount}
                  AND requested_currency = ${p.requestedCurrency}
                  AND created_on > now() - make_interval(secs => ${p.duplicateWindowSeconds})
                  AND error_code IS DISTINCT FROM ${p.duplicateErrorCode})
             AND EXISTS (SELECT 1 FROM transaction_tokens WHERE id = ${p.transactionTokenId} AND active)
               AS duplicate
    ),
    input AS (
      SELECT ${p.id} AS id, ${p.merchantId} AS merchant_id, ${p.storeId} AS store_id,
             ${p.transactionTokenId} AS transaction_token_id,
             ${p.transactionTokenType} AS transaction_token_type, ${p.mode} AS mode,
             ${p.requestedAmount} AS requested_amount, ${p.requestedCurrency} AS requested_currency,
             ${p.capture} AS capture, ${p.captureAt} AS capture_at, ${p.descriptor} AS descriptor,
             ${p.onlyDirectCurrency} AS only_direct_currency, ${p.feeRatePpm} AS fee_rate_ppm,
             ${p.feeFlatAmount} AS fee_flat_amount, ${p.expiresOn} AS expires_on,
             ${p.matchAmount} AS match_amount, ${p.threeDs} AS three_ds,
             ${p.redirect} AS redirect, ${p.metadata} AS metadata, ${p.correlationId} AS correlation_id,
             ${p.now} AS now, ${p.quotaResource} AS quota_resource, ${p.quotaScopeKey} AS quota_scope_key,
             ${p.quotaDay} AS quota_day, duplicate,
             (CASE WHEN duplicate THEN ${sqlLiteral(duplicate.status)}
                   ELSE ${sqlLiteral(accepted.status)} END)::charge_status AS status,
             CASE WHEN duplicate THEN ${p.duplicateErrorCode} END AS error_code,
             CASE WHEN duplicate THEN ${p.duplicateErrorMessage} END AS error_message,
             CASE WHEN duplicate THEN ${p.duplicateErrorDetail} END AS error_detail
        FROM dup
    ),
    claimed AS (
      UPDATE transaction_tokens t
         SET ${rules.claimSet(p.now)}
       WHERE t.id = ${p.transactionTokenId}
         AND NOT (SELECT duplicate FROM dup)
         AND ${rules.claimable}
      RETURNING t.id
    ),
    quota AS (
      INSERT INTO daily_quota_usage (resource, scope_key, day, count)
      SELECT ${p.quotaResource}, ${p.quotaScopeKey}, ${p.quotaDay}, 1
       WHERE ${p.quotaResource} IS NOT NULL AND 1 <= ${p.quotaMax} AND NOT (SELECT duplicate FROM dup)
      ${rules.quotaUpsert(p.quotaMax)}
      RETURNING 1
    ),
    card_limit AS (
      SELECT (SELECT duplicate FROM dup)
             OR ${cardLimitOkSql({
               tokenId: p.transactionTokenId,
               storeId: p.storeId,
               currency: p.requestedCurrency,
               since: p.cardLimitSince,
               amount: p.requestedAmount,
               limitAmount: p.cardLimitAmount,
             })} AS ok
    ),
    outcome AS (
      SELECT claimed, limit_ok, quota_ok, claimed AND limit_ok AND quota_ok AS ok
        FROM (SELECT duplicate OR EXISTS (SELECT 1 FROM claimed) AS claimed,
                     (SELECT ok FROM card_limit) AS limit_ok,
                     duplicate OR ${p.quotaResource} IS NULL OR EXISTS (SELECT 1 FROM quota) AS quota_ok
                FROM dup) o
    ),
    ${rules.guardInsertAndAnswer}`,
});

/**
 * The card limit's lock of one card at one store (its token's card_vault fingerprint), held to the
 * end of the caller's transaction: two charges of one card, through one token or two, check the
 * limit one after the other, each seeing what the other inserted. No row (and no lock) for a token
 * without a card in the vault.
 */
export const LOCK_CARD_LIMIT = defineStatement({
  name: 'charges_lock_card_limit',
  params: { storeId: pg.uuid, transactionTokenId: pg.uuid },
  columns: { locked: pg.bool },
  text: (p) => `
    SELECT true AS locked
      FROM (SELECT fingerprint FROM card_vault WHERE transaction_token_id = ${p.transactionTokenId}) card,
           LATERAL pg_advisory_xact_lock(${cardLimitLockKeySql(p.storeId, 'card.fingerprint')})`,
});

/**
 * The locks a single charge's creation needs (decision 0076), tried rather than waited for: the
 * token's duplicate-rule lock (`duplicateKey`, hashed as ADVISORY_XACT_LOCK hashes it) when given,
 * then, when `cardLimit`, the card's lock at the store (LOCK_CARD_LIMIT's; none for a token without
 * a card in the vault), in that order, held to the end of the transaction. `locked` is false when
 * either is held by another transaction: the caller ends its transaction, giving its connection
 * back, and tries again later, so that a charge waiting for a busy card holds no connection.
 */
export const TRY_LOCK_CHARGE_CREATION = defineStatement({
  name: 'charges_try_lock_creation',
  params: {
    duplicateKey: pg.nullable(pg.text),
    cardLimit: pg.bool,
    storeId: pg.uuid,
    transactionTokenId: pg.uuid,
  },
  columns: { locked: pg.bool },
  text: (p) => `
    SELECT CASE WHEN ${p.duplicateKey} IS NOT NULL
                 AND NOT pg_try_advisory_xact_lock(hashtextextended(${p.duplicateKey}, 0)) THEN false
                WHEN NOT ${p.cardLimit} THEN true
                ELSE coalesce((SELECT pg_try_advisory_xact_lock(${cardLimitLockKeySql(p.storeId, 'cv.fingerprint')})
                                 FROM card_vault cv
                                WHERE cv.transaction_token_id = ${p.transactionTokenId}), true)
           END AS locked`,
});

/**
 * LOCK_CARD_LIMIT for several charges in one transaction (the subscription engine's claimed
 * payments under a card limit): every card of the (store, token) pairs, each once, in the order of
 * their keys, so that two transactions locking the same cards never wait on each other in a circle.
 */
export const LOCK_CARD_LIMITS = defineStatement({
  name: 'charges_lock_card_limits',
  params: { storeIds: pg.array(pg.uuid), transactionTokenIds: pg.array(pg.uuid) },
  columns: { locked: pg.bool },
  text: (p) => `
    SELECT true AS locked
      FROM (SELECT DISTINCT ${cardLimitLockKeySql('pair.store_id', 'cv.fingerprint')} AS key
              FROM unnest(${p.storeIds}, ${p.transactionTokenIds}) AS pair(store_id, token_id)
              JOIN card_vault cv ON cv.transaction_token_id = pair.token_id
             ORDER BY key) card,
           LATERAL pg_advisory_xact_lock(card.key)`,
});

/**
 * Several charges at once, all or nothing (concurrent POST /charges: no duplicate rule, distinct
 * tokens, one quota maximum), read from one jsonb array (jsonb_to_recordset: the keys are
 * ChargeCreateInput's). The tokens are locked in id order first, so that statements sharing tokens
 * cannot deadlock, and named as an array, which the planner always reaches through the primary key;
 * each quota (scope, day) is taken once by its number of charges, after the claims.
 */
export const CREATE_CHARGES = defineStatement({
  name: 'charges_create_many',
  params: { input: pg.jsonb<readonly ChargeCreateInput[]>(), tokenIds: pg.array(pg.uuid), quotaMax: pg.int4 },
  columns: CREATED_COLUMNS,
  text: (p) => `
    WITH input AS MATERIALIZED (
      SELECT r.*, false AS duplicate, ${sqlLiteral(accepted.status)}::charge_status AS status,
             NULL::int AS error_code, NULL::text AS error_message, NULL::text AS error_detail
        FROM jsonb_to_recordset(${p.input}) AS r(
          id uuid, merchant_id uuid, store_id uuid, transaction_token_id uuid,
          transaction_token_type token_type, mode processing_mode, requested_amount bigint,
          requested_currency text, capture boolean, capture_at timestamptz, descriptor text,
          only_direct_currency boolean, fee_rate_ppm int, fee_flat_amount bigint,
          expires_on timestamptz, match_amount match_amount, three_ds jsonb,
          redirect jsonb, metadata jsonb,
          correlation_id text, now timestamptz, quota_resource text, quota_scope_key text,
          quota_day date)
    ),
    locked AS MATERIALIZED (
      SELECT t.id FROM transaction_tokens t
       WHERE t.id = ANY(${p.tokenIds})
       ORDER BY t.id
         FOR UPDATE
    ),
    claimed AS (
      UPDATE transaction_tokens t
         SET ${rules.claimSet('i.now')}
        FROM input i
       WHERE t.id = ANY(${p.tokenIds})
         AND t.id = i.transaction_token_id
         AND t.id IN (SELECT id FROM locked)
         AND ${rules.claimable}
      RETURNING t.id
    ),
    all_claimed AS MATERIALIZED (
      SELECT count(*) = (SELECT count(*) FROM input) AS ok FROM claimed
    ),
    wanted AS (
      SELECT quota_resource AS resource, quota_scope_key AS scope_key, quota_day AS day, count(*)::int AS n
        FROM input
       WHERE quota_resource IS NOT NULL
       GROUP BY 1, 2, 3
    ),
    -- taken after the claims (it reads all_claimed), each (scope, day) once, in key order
    quota AS (
      INSERT INTO daily_quota_usage (resource, scope_key, day, count)
      SELECT resource, scope_key, day, n FROM wanted
       WHERE n <= ${p.quotaMax} AND (SELECT ok FROM all_claimed)
       ORDER BY resource, scope_key, day
      ${rules.quotaUpsert(p.quotaMax)}
      RETURNING 1
    ),
    -- no card limit here: a charge with one is created alone (CREATE_CHARGE)
    outcome AS MATERIALIZED (
      SELECT claimed, true AS limit_ok, quota_ok, claimed AND quota_ok AS ok
        FROM (SELECT (SELECT ok FROM all_claimed) AS claimed,
                     (SELECT count(*) FROM quota) = (SELECT count(*) FROM wanted) AS quota_ok) o
    ),
    ${rules.guardInsertAndAnswer}`,
});

/**
 * A processor notice about a charge as its processor_notice_received command; no row when no
 * charge has this id (or, `awaitingOnly`, none awaiting: a hosted processor's card events and the
 * customer's return from 3-D Secure matter only to a charge awaiting its authentication). The
 * payload names the notice, never its content beyond event and status.
 */
export const RECORD_PROCESSOR_NOTICE = defineStatement({
  name: 'charges_record_processor_notice',
  params: {
    chargeId: pg.uuid,
    noticeId: pg.text,
    event: pg.text,
    status: pg.text,
    awaitingOnly: pg.bool,
    correlationId: pg.nullable(pg.text),
  },
  columns: { id: pg.text },
  text: (p) => `
    ${outboxInsertFrom('charges', {
      aggregateType: 'charge',
      aggregateId: 'id',
      merchantId: 'merchant_id',
      storeId: 'store_id',
      event: processorNoticeReceivedSql({ noticeId: p.noticeId, event: p.event, status: p.status }),
      correlationId: p.correlationId,
      where: `id = ${p.chargeId} AND (NOT ${p.awaitingOnly} OR status = 'awaiting')`,
    })}
    RETURNING id::text AS id`,
});

/**
 * Charges by id (an array: by primary key), every column, as Prisma's `Charge` holds them
 * (ChargesRepository.findMany): webhook-service reads a dispatched batch's charges with it, where
 * Prisma's per-row cost was a tenth of the process.
 */
/** Every column of a charge, as libs/db's plain reads return it (a row of Prisma's `Charge`). */
export const CHARGE_COLUMNS = {
  id: pg.text,
  merchant_id: pg.text,
  store_id: pg.text,
  transaction_token_id: pg.text,
  transaction_token_type: pg.textOf<TokenType>(),
  subscription_id: pg.nullable(pg.text),
  scheduled_payment_id: pg.nullable(pg.text),
  payment_attempt: pg.nullable(pg.int4),
  mode: pg.textOf<ProcessingMode>(),
  status: pg.textOf<ChargeStatus>(),
  requested_amount: pg.int8,
  requested_currency: pg.bpchar,
  charged_amount: pg.nullable(pg.int8),
  charged_currency: pg.nullable(pg.bpchar),
  fee_rate_ppm: pg.nullable(pg.int4),
  fee_flat_amount: pg.nullable(pg.int8),
  fee_amount: pg.nullable(pg.int8),
  capture: pg.bool,
  capture_at: pg.nullable(pg.timestamptz),
  capture_status: pg.nullable(pg.textOf<CaptureStatus>()),
  pending_operation: pg.nullable(pg.textOf<ChargeOperation>()),
  refund_reserved_amount: pg.int8,
  refunded_amount: pg.int8,
  descriptor: pg.nullable(pg.text),
  only_direct_currency: pg.bool,
  error_code: pg.nullable(pg.int4),
  error_message: pg.nullable(pg.text),
  error_detail: pg.nullable(pg.text),
  processor_reference: pg.nullable(pg.text),
  three_ds: pg.nullable(pg.jsonb<JsonValue>()),
  redirect: pg.nullable(pg.jsonb<JsonValue>()),
  issuer_token: pg.nullable(pg.jsonb<JsonValue>()),
  three_ds_issuer_token: pg.nullable(pg.jsonb<JsonValue>()),
  expires_on: pg.nullable(pg.timestamptz),
  match_amount: pg.nullable(pg.textOf<MatchAmount>()),
  ledger_id: pg.nullable(pg.text),
  processor_account_id: pg.nullable(pg.text),
  metadata: pg.jsonb<JsonValue>(),
  card_last_four: pg.nullable(pg.text),
  created_on: pg.timestamptz,
  updated_on: pg.timestamptz,
} as const;

/**
 * A charge's ledger_id: the id of its sale in the ledger, read by the ledger's key (one probe of
 * ledger_transactions_kind_source_type_source_id_key), null until the charge is posted and on a
 * charge that took no money (decision 0080: the posting no longer updates the charge's row).
 */
const ledgerIdOf = (row: string) =>
  `(SELECT lt.id FROM ledger_transactions lt
     WHERE lt.kind = 'sale' AND lt.source_type = 'charge' AND lt.source_id = ${row}.id)::text AS ledger_id`;

/** The select list of CHARGE_COLUMNS, of the charges row `row`. */
const chargeSelect = (row: string) => `${row}.id::text, ${row}.merchant_id::text, ${row}.store_id::text,
           ${row}.transaction_token_id::text, ${row}.transaction_token_type::text,
           ${row}.subscription_id::text, ${row}.scheduled_payment_id::text, ${row}.payment_attempt,
           ${row}.mode::text, ${row}.status::text, ${row}.requested_amount, ${row}.requested_currency,
           ${row}.charged_amount, ${row}.charged_currency, ${row}.fee_rate_ppm, ${row}.fee_flat_amount,
           ${row}.fee_amount, ${row}.capture, ${row}.capture_at, ${row}.capture_status::text,
           ${row}.pending_operation::text, ${row}.refund_reserved_amount, ${row}.refunded_amount,
           ${row}.descriptor, ${row}.only_direct_currency, ${row}.error_code, ${row}.error_message,
           ${row}.error_detail, ${row}.processor_reference, ${row}.three_ds, ${row}.redirect,
           ${row}.issuer_token, ${row}.three_ds_issuer_token, ${row}.expires_on,
           ${row}.match_amount::text, ${ledgerIdOf(row)},
           (CASE WHEN ${row}.processor_failed_over_on IS NULL THEN ${row}.processor_account_id
                 ELSE ${row}.fallback_processor_account_id END)::text AS processor_account_id,
           ${row}.metadata, ${row}.card_last_four, ${row}.created_on, ${row}.updated_on`;

/** The select list of CHARGE_COLUMNS, for a statement that reads `charges` under its own name. */
export const CHARGE_SELECT = chargeSelect('charges');

/** CHARGE_SELECT of the charges row `c`, for a statement that joins other tables to it. */
const CHARGE_SELECT_OF_C = chargeSelect('c');

/** The ledger_id of each charge of `ids` (posted or not), as CHARGE_SELECT reads it. */
export const FIND_CHARGE_LEDGER_IDS = defineStatement({
  name: 'charges_find_ledger_ids',
  params: { ids: pg.array(pg.uuid) },
  columns: { id: pg.text, ledger_id: pg.nullable(pg.text) },
  text: (p) => `
    SELECT c.id::text AS id, ${ledgerIdOf('c')} FROM charges c WHERE c.id = ANY(${p.ids})`,
});

export const FIND_CHARGES = defineStatement({
  name: 'charges_find_by_ids',
  params: { ids: pg.array(pg.uuid) },
  columns: CHARGE_COLUMNS,
  text: (p) => `
    SELECT ${CHARGE_SELECT}
      FROM charges
     WHERE id = ANY(${p.ids})`,
});

/**
 * A charge by id within a scope (the merchant's, or one store's when storeId is given): GET of a
 * charge and every read of its child resources, where Prisma's query compiler was most of the
 * gateway's CPU per read (bench:reads). Nothing for a missing or foreign charge alike.
 */
export const FIND_CHARGE_IN_SCOPE = defineStatement({
  name: 'charges_find_in_scope',
  params: { id: pg.uuid, merchantId: pg.uuid, storeId: pg.nullable(pg.uuid) },
  columns: CHARGE_COLUMNS,
  text: (p) => `
    SELECT ${CHARGE_SELECT}
      FROM charges
     WHERE id = ${p.id}
       AND merchant_id = ${p.merchantId}
       AND (${p.storeId}::uuid IS NULL OR store_id = ${p.storeId})`,
});

/**
 * Where a list's cursor (a charge id) stands in the (created_on, id) order: the charge of that id
 * the scope may list (`storeId` null: any store of the merchant). A primary-key lookup.
 */
export const FIND_CHARGE_CURSOR = defineStatement({
  name: 'charges_find_cursor',
  params: { id: pg.uuid, merchantId: pg.uuid, storeId: pg.nullable(pg.uuid) },
  columns: { created_on: pg.timestamptz },
  text: (p) => `
    SELECT created_on
      FROM charges
     WHERE id = ${p.id}
       AND merchant_id = ${p.merchantId}
       AND (${p.storeId}::uuid IS NULL OR store_id = ${p.storeId})`,
});

/** A page of a charge list: the scope's merchant, the keyset bounds, the size, whether to count. */
const LIST_PARAMS = {
  merchantId: pg.uuid,
  /**
   * Rows strictly between (lowerOn, lowerId) and (upperOn, upperId) in (created_on, id) order: the
   * cursor and the created_on range folded into two bounds (ISO instants, or ±infinity when open)
   */
  lowerOn: pg.text,
  lowerId: pg.uuid,
  upperOn: pg.text,
  upperId: pg.uuid,
  /** the page's limit + 1 */
  take: pg.int4,
  /** a first page (total_hits): the matching rows are counted too */
  countAll: pg.bool,
};

/** The optional filters of a charge list (ChargeFilters), each null when not asked for. */
const LIST_FILTER_PARAMS = {
  status: pg.nullable(pg.enum<ChargeStatus>('charge_status')),
  mode: pg.nullable(pg.enum<ProcessingMode>('processing_mode')),
  transactionTokenId: pg.nullable(pg.uuid),
  subscriptionId: pg.nullable(pg.uuid),
  scheduledPaymentId: pg.nullable(pg.uuid),
  currency: pg.nullable(pg.bpchar),
  /** requested_amount ≥ */
  amountFrom: pg.nullable(pg.int8),
  /** requested_amount < */
  amountTo: pg.nullable(pg.int8),
  /**
   * one metadata entry as `{key: value}`, and `{key: value as a number}` when the value is numeric:
   * a charge whose metadata holds either (`@>`, through the GIN index charges_metadata_idx)
   */
  metadata: pg.nullable(pg.jsonb<Record<string, unknown>>()),
  metadataNumber: pg.nullable(pg.jsonb<Record<string, unknown>>()),
  /** of the charge's transaction token */
  paymentType: pg.nullable(pg.enum<PaymentType>('payment_type')),
  /** of the charge's transaction token, case-insensitively */
  email: pg.nullable(pg.text),
  /** of the card of the charge's transaction token */
  cardLastFour: pg.nullable(pg.text),
};

/** A listed charge: every column, its store's and merchant's names, its token's email and type. */
const CHARGE_LIST_COLUMNS = {
  ...CHARGE_COLUMNS,
  store_name: pg.text,
  merchant_name: pg.text,
  token_email: pg.nullable(pg.text),
  token_payment_type: pg.textOf<PaymentType>(),
  /** on a first page asked to count (countAll): every matching row, else null */
  total_hits: pg.nullable(pg.int8),
} as const;

type ListRefs = ParamRefs<typeof LIST_PARAMS> &
  Partial<ParamRefs<typeof LIST_FILTER_PARAMS>> & { storeId?: string };

/**
 * A charge list's page (ChargesRepository.list): the charges of the scope — the merchant's, or one
 * store's — within the bounds, narrowed by the filters when the statement has them, in (created_on,
 * id) order read from the scope's (merchant_id|store_id, created_on DESC, id DESC) index and stopped
 * at `take`; only those rows are joined to their store, merchant and token (primary-key lookups;
 * one store's and merchant's names once per page when the page is one store's).
 * On a first page (countAll) the matching rows are counted too, by the same conditions in the same
 * statement (an InitPlan, run once), hence the same snapshot: total_hits never disagrees with the
 * page. No CTE holds the page: a page that is not full is every matching row, so its count reads
 * no more than the page did, and the plain read of rows in index order needs no sort after it.
 */
function listText(direction: CursorDirection, p: ListRefs): string {
  const order = direction === 'desc' ? 'DESC' : 'ASC';
  const scope = (c: string) =>
    p.storeId === undefined
      ? `${c}.merchant_id = ${p.merchantId}`
      : `${c}.store_id = ${p.storeId} AND ${c}.merchant_id = ${p.merchantId}`;
  const filters = (c: string) =>
    p.status === undefined
      ? ''
      : `
       AND (${p.status} IS NULL OR ${c}.status = ${p.status})
       AND (${p.mode} IS NULL OR ${c}.mode = ${p.mode})
       AND (${p.transactionTokenId} IS NULL OR ${c}.transaction_token_id = ${p.transactionTokenId})
       AND (${p.subscriptionId} IS NULL OR ${c}.subscription_id = ${p.subscriptionId})
       AND (${p.scheduledPaymentId} IS NULL OR ${c}.scheduled_payment_id = ${p.scheduledPaymentId})
       AND (${p.currency} IS NULL OR ${c}.requested_currency = ${p.currency})
       AND (${p.amountFrom} IS NULL OR ${c}.requested_amount >= ${p.amountFrom})
       AND (${p.amountTo} IS NULL OR ${c}.requested_amount < ${p.amountTo})
       AND (${p.metadata} IS NULL OR ${c}.metadata @> ${p.metadata} OR ${c}.metadata @> ${p.metadataNumber})
       AND (${p.cardLastFour} IS NULL OR ${c}.card_last_four = ${p.cardLastFour})
       AND (${p.paymentType} IS NULL AND ${p.email} IS NULL
            OR EXISTS (SELECT FROM transaction_tokens ft
                        WHERE ft.id = ${c}.transaction_token_id
                          AND (${p.paymentType} IS NULL OR ft.payment_type = ${p.paymentType})
                          AND (${p.email} IS NULL OR lower(ft.email) = lower(${p.email}))))`;
  // one store's page has one store and merchant: their names read once (InitPlans), not per row
  const names =
    p.storeId === undefined
      ? 's.name AS store_name, m.name AS merchant_name'
      : `(SELECT name FROM stores WHERE id = ${p.storeId}) AS store_name,
           (SELECT m.name FROM stores s JOIN merchants m ON m.id = s.merchant_id
             WHERE s.id = ${p.storeId}) AS merchant_name`;
  const storesJoin =
    p.storeId === undefined
      ? `
      JOIN stores s ON s.id = c.store_id
      JOIN merchants m ON m.id = s.merchant_id`
      : '';
  const conditions = (c: string) => `${scope(c)}
       AND (${c}.created_on, ${c}.id) > (${p.lowerOn}::timestamptz, ${p.lowerId})
       AND (${c}.created_on, ${c}.id) < (${p.upperOn}::timestamptz, ${p.upperId})${filters(c)}`;
  // the page's rows are read in index order and joined one by one until the LIMIT (nested loops);
  // the count is an InitPlan, run once and only when asked
  return `
    SELECT ${CHARGE_SELECT_OF_C}, ${names},
           t.email AS token_email, t.payment_type::text AS token_payment_type,
           CASE WHEN ${p.countAll} THEN (SELECT count(*) FROM charges n WHERE ${conditions('n')}) END AS total_hits
      FROM charges c${storesJoin}
      JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE ${conditions('c')}
     ORDER BY c.created_on ${order}, c.id ${order}
     LIMIT ${p.take}`;
}

const listStatement = <const P extends PgTypes>(
  name: string,
  params: P,
  direction: CursorDirection,
  replan: boolean,
) =>
  defineStatement({
    name: `${name}_${direction}`,
    params,
    columns: CHARGE_LIST_COLUMNS,
    text: (p) => listText(direction, p as unknown as ListRefs),
    replan,
  });

const MERCHANT_LIST_PARAMS = LIST_PARAMS;
const STORE_LIST_PARAMS = { ...LIST_PARAMS, storeId: pg.uuid };
const FILTERED_MERCHANT_LIST_PARAMS = { ...LIST_PARAMS, ...LIST_FILTER_PARAMS };
const FILTERED_STORE_LIST_PARAMS = { ...STORE_LIST_PARAMS, ...LIST_FILTER_PARAMS };

/**
 * The statements of a charge list, one per scope, direction and kind (the text of each is fixed).
 * `plain`: no filter but the scope and the created_on range — a merchant's polling, a console's
 * first look — prepared once per connection: its only conditions are the index's, so its generic
 * plan is the index scan in order. `filtered`: every filter, each a parameter that may be null, and
 * `replan` (planned with its values at every call): a generic plan cannot see that `$n IS NULL OR …`
 * passes every row, underestimates the rows in range and would read them all through a bitmap scan
 * and sort them (as the transaction history's statements found).
 */
export const LIST_CHARGES = {
  plain: {
    merchant: {
      desc: listStatement('charges_list_merchant', MERCHANT_LIST_PARAMS, 'desc', false),
      asc: listStatement('charges_list_merchant', MERCHANT_LIST_PARAMS, 'asc', false),
    },
    store: {
      desc: listStatement('charges_list_store', STORE_LIST_PARAMS, 'desc', false),
      asc: listStatement('charges_list_store', STORE_LIST_PARAMS, 'asc', false),
    },
  },
  filtered: {
    merchant: {
      desc: listStatement('charges_list_merchant_filtered', FILTERED_MERCHANT_LIST_PARAMS, 'desc', true),
      asc: listStatement('charges_list_merchant_filtered', FILTERED_MERCHANT_LIST_PARAMS, 'asc', true),
    },
    store: {
      desc: listStatement('charges_list_store_filtered', FILTERED_STORE_LIST_PARAMS, 'desc', true),
      asc: listStatement('charges_list_store_filtered', FILTERED_STORE_LIST_PARAMS, 'asc', true),
    },
  },
} as const;

export type ChargeListParams = ParamsOf<typeof LIST_PARAMS>;
export type ChargeListFilterParams = ParamsOf<typeof LIST_FILTER_PARAMS>;
export type ChargeListRow = RowOf<typeof CHARGE_LIST_COLUMNS>;
