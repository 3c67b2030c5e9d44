import type { CaptureStatus, ChargeStatus } from '@kessai/domain';
import type {
  CaptureStatus as ChargeCaptureStatus,
  ChargeStatus as SchemaChargeStatus,
  MatchAmount,
  OperationStatus,
  PaymentType,
  ProcessingMode,
} from '../generated/prisma/enums';
import { chargeStatusSql } from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from '../sql/statement';
import { FEE_TERMS_COLUMNS } from './fee-terms';

/**
 * The processor's outcomes of charges (charge-service's process_charge and reconcile_charge): the
 * charges to authorize or to look up again, read with what that needs, and their outcomes recorded.
 */

/**
 * The domain's machines name the schema's statuses (the type check fails when a migration and the
 * domain part ways): every charge status, and the capture statuses within operation_status.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const DOMAIN_STATUSES_MATCH_THE_SCHEMA: [
  Same<ChargeStatus, SchemaChargeStatus>,
  CaptureStatus extends OperationStatus ? true : false,
] = [true, true];

/** The pending ones of the charges, with their tokens' payment data and vault rows (card tokens). */
export const FIND_PENDING_CHARGES = defineStatement({
  name: 'charge_outcomes_find_pending',
  params: { ids: pg.array(pg.uuid) },
  columns: {
    id: pg.text,
    mode: pg.textOf<ProcessingMode>(),
    amount: pg.int8,
    currency: pg.bpchar,
    capture: pg.bool,
    descriptor: pg.nullable(pg.text),
    /** the request's three_ds object {mode, redirect_endpoint, redirect_id} */
    three_ds: pg.nullable(pg.jsonb<{ mode?: string; redirect_endpoint?: string | null }>()),
    redirect_endpoint: pg.nullable(pg.text),
    /** the card token's own 3-D Secure is enabled and successful (docs/transaction-tokens.md) */
    token_three_ds_authenticated: pg.bool,
    token_id: pg.text,
    payment_type: pg.textOf<PaymentType>(),
    cardholder: pg.nullable(pg.text),
    exp_month: pg.nullable(pg.int4),
    exp_year: pg.nullable(pg.int4),
    brand: pg.nullable(pg.text),
    call_method: pg.nullable(pg.text),
    scanned_qr: pg.nullable(pg.text),
    /** apple_pay tokens: the device's encrypted payment data, Apple's JSON (decision 0067) */
    apple_pay_payment_data: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    /** paidy tokens: the consumer's Paidy token and the shipping address (decision 0068) */
    paidy_token: pg.nullable(pg.text),
    paidy_shipping_address: pg.nullable(pg.jsonb<Record<string, unknown>>()),
    /** konbini tokens */
    convenience_store: pg.nullable(pg.text),
    customer_name: pg.nullable(pg.text),
    phone_number: pg.nullable(pg.text),
    /** the token's email: processors that send the payment instructions themselves need it (KOMOJU) */
    email: pg.nullable(pg.text),
    /** bank transfer and konbini: the payment deadline */
    expires_on: pg.nullable(pg.timestamptz),
    key_id: pg.nullable(pg.text),
    iv: pg.nullable(pg.bytea),
    ciphertext: pg.nullable(pg.bytea),
    auth_tag: pg.nullable(pg.bytea),
    /**
     * the processor account its calls go to: its store's route's account (decision 0055), or its
     * fallback once it failed over (decision 0056); null: the mode's default
     */
    processor_account_id: pg.nullable(pg.text),
    /** the account it may still fail over to (decision 0056); null: none, or it failed over already */
    fallback_processor_account_id: pg.nullable(pg.text),
    ...FEE_TERMS_COLUMNS,
  },
  text: (p) => `
    SELECT c.id::text AS id, c.mode::text AS mode, c.requested_amount AS amount,
           c.requested_currency AS currency, c.capture, c.descriptor, c.three_ds,
           c.redirect->>'endpoint' AS redirect_endpoint,
           COALESCE((t.data->'three_ds'->>'enabled')::boolean
                    AND t.data->'three_ds'->>'status' = 'successful', false) AS token_three_ds_authenticated,
           t.id::text AS token_id, t.payment_type::text AS payment_type,
           t.data->'card'->>'cardholder' AS cardholder,
           (t.data->'card'->>'exp_month')::int AS exp_month,
           (t.data->'card'->>'exp_year')::int AS exp_year,
           t.data->>'brand' AS brand, t.data->>'call_method' AS call_method,
           t.data->>'scanned_qr' AS scanned_qr,
           CASE WHEN t.payment_type = 'apple_pay' THEN t.data->'payment_data' END AS apple_pay_payment_data,
           t.data->>'paidy_token' AS paidy_token,
           CASE WHEN t.payment_type = 'paidy' THEN t.data->'shipping_address' END AS paidy_shipping_address,
           t.data->>'convenience_store' AS convenience_store, t.data->>'customer_name' AS customer_name,
           NULLIF(concat_ws(' ', t.data->'phone_number'->>'country_code',
                            t.data->'phone_number'->>'local_number'), '') AS phone_number,
           t.email, c.expires_on, v.key_id, v.iv, v.ciphertext, v.auth_tag,
           (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
                 ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
           (CASE WHEN c.processor_failed_over_on IS NULL THEN c.fallback_processor_account_id
             END)::text AS fallback_processor_account_id,
           c.fee_rate_ppm, c.fee_flat_amount
      FROM charges c
      JOIN transaction_tokens t ON t.id = c.transaction_token_id
      LEFT JOIN card_vault v ON v.transaction_token_id = t.id
     -- status as text: the (status, updated_on) index cannot serve it, so the rows are reached by
     -- primary key even when statistics taken before a burst call 'pending' rare (decision 0002;
     -- test/charge-statements-plan.e2e-spec.ts)
     WHERE c.id = ANY(${p.ids}) AND c.status::text = 'pending'`,
});

/** The account a bank-transfer charge is paid into, as the processor gave it out (wire form). */
export interface VirtualBankAccount {
  bank_code: string;
  bank_name: string;
  branch_code: string;
  branch_name: string;
  account_id: string;
  account_number: string;
  account_holder_name: string;
}

/** One charge's outcome as RECORD_CHARGE_OUTCOMES reads it from its jsonb input. */
export interface ChargeOutcomeInput {
  id: string;
  /** where the charge moves, and the event that announces it: the charge machine's decision */
  status: ChargeStatus;
  event_type: string;
  error_code: number | null;
  error_message: string | null;
  error_detail: string | null;
  processor_reference: string | null;
  /** bigint as text */
  charged_amount: string | null;
  /** bigint as text; set with charged_amount */
  fee_amount: string | null;
  capture_status: ChargeCaptureStatus | null;
  issuer_token: unknown;
  three_ds_issuer_token: unknown;
  expires_on: string | null;
  /** a bank transfer's virtual account, written into the charge's token's data as well */
  virtual_bank_account: VirtualBankAccount | null;
  cause_event_id: string | null;
}

/**
 * Moves each charge of the input (in id order) from one of `from` to its outcome and appends its
 * event, carrying on the cause event's correlation; returns the ids of the charges that moved.
 * Columns of the outcome left null keep their value. A moved charge's virtual bank account is
 * written into its transaction token's `data.virtual_bank_account` (the token is the charge's
 * one-time bank-transfer token; the charge's row is locked before the token's, as no other writer
 * locks them the other way round).
 */
export const RECORD_CHARGE_OUTCOMES = defineStatement({
  name: 'charge_outcomes_record',
  params: {
    outcomes: pg.jsonb<readonly ChargeOutcomeInput[]>(),
    ids: pg.array(pg.uuid),
    from: pg.array(pg.enum<ChargeStatus>('charge_status')),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH outcome AS (
      SELECT * FROM jsonb_to_recordset(${p.outcomes}) AS o(
        id uuid, status charge_status, event_type text, error_code int, error_message text,
        error_detail text, processor_reference text, charged_amount bigint, fee_amount bigint,
        capture_status capture_status, issuer_token jsonb, three_ds_issuer_token jsonb,
        expires_on timestamptz, virtual_bank_account jsonb, cause_event_id uuid)
    ), changed AS (
      UPDATE charges c
         SET status = o.status,
             error_code = o.error_code,
             error_message = o.error_message,
             error_detail = o.error_detail,
             processor_reference = COALESCE(o.processor_reference, c.processor_reference),
             charged_amount = COALESCE(o.charged_amount, c.charged_amount),
             charged_currency = CASE WHEN o.charged_amount IS NULL
                                     THEN c.charged_currency ELSE c.requested_currency END,
             fee_amount = COALESCE(o.fee_amount, c.fee_amount),
             capture_status = COALESCE(o.capture_status, c.capture_status),
             issuer_token = COALESCE(o.issuer_token, c.issuer_token),
             three_ds_issuer_token = COALESCE(o.three_ds_issuer_token, c.three_ds_issuer_token),
             expires_on = COALESCE(o.expires_on, c.expires_on),
             updated_on = now()
        FROM outcome o
       -- the ids again as an array, and the status as text (no index serves it): the planner then
       -- reaches the rows by primary key, never through the status index, whose entries of pending
       -- charges (and of their old versions, between vacuums) it would read every one of when its
       -- statistics call them rare (test/charge-statements-plan.e2e-spec.ts)
       WHERE c.id = ANY(${p.ids})
         AND c.id = o.id AND c.status::text = ANY(${p.from}::text[])
      RETURNING c.id, c.merchant_id, c.store_id, c.status, c.transaction_token_id,
                o.event_type, o.virtual_bank_account, o.cause_event_id
    ), token_account AS (
      UPDATE transaction_tokens t
         SET data = jsonb_set(t.data, '{virtual_bank_account}', changed.virtual_bank_account),
             updated_on = now()
        FROM changed
       WHERE changed.virtual_bank_account IS NOT NULL AND t.id = changed.transaction_token_id
    ), event AS (
      ${outboxInsertFrom('changed', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: chargeStatusSql({ perRow: 'event_type' }),
        correlationId: correlationOf('changed.cause_event_id'),
      })}
    )
    SELECT id::text AS id FROM changed`,
});

/** A charge in one of `statuses` as reconciliation needs it. */
export const FIND_CHARGE_TO_RECONCILE = defineStatement({
  name: 'charge_outcomes_find_to_reconcile',
  params: { chargeId: pg.uuid, statuses: pg.array(pg.enum<ChargeStatus>('charge_status')) },
  columns: {
    id: pg.text,
    status: pg.textOf<ChargeStatus>(),
    mode: pg.textOf<ProcessingMode>(),
    payment_type: pg.textOf<PaymentType>(),
    token_id: pg.text,
    processor_reference: pg.nullable(pg.text),
    expires_on: pg.nullable(pg.timestamptz),
    cancel_pending: pg.bool,
    amount: pg.int8,
    match_amount: pg.nullable(pg.textOf<MatchAmount>()),
    /** the account that took it (decisions 0055, 0056); null: its mode's default */
    processor_account_id: pg.nullable(pg.text),
    ...FEE_TERMS_COLUMNS,
  },
  text: (p) => `
    SELECT c.id::text AS id, c.status::text AS status, c.mode::text AS mode,
           t.payment_type::text AS payment_type, t.id::text AS token_id, c.processor_reference,
           c.expires_on, c.pending_operation IS NOT DISTINCT FROM 'cancel' AS cancel_pending,
           c.requested_amount AS amount, c.match_amount::text AS match_amount,
           (CASE WHEN c.processor_failed_over_on IS NULL THEN c.processor_account_id
                 ELSE c.fallback_processor_account_id END)::text AS processor_account_id,
           c.fee_rate_ppm, c.fee_flat_amount
      FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE c.id = ${p.chargeId} AND c.status = ANY(${p.statuses})`,
});
