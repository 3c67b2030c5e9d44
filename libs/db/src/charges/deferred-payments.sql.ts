import { CHARGE_UPDATED } from '@kessai/contracts';
import { bankTransferStatusUpdatedSql, chargeStatusSql } from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { AWAITING_PAYMENT_CHARGE_STATUSES, DEFERRED_PAYMENT_TYPES, type ChargeStatus } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { defineStatement, pg, sqlList } from '../sql/statement';

/**
 * Bank-transfer and konbini charges (docs/bank-transfer-and-konbini.md): the money received for
 * them, and their payment deadline.
 */

/** A charge that still waits for its money: its deadline may move. */
const AWAITING_PAYMENT = sqlList(AWAITING_PAYMENT_CHARGE_STATUSES);
const DEFERRED_PAYMENT_TYPE = sqlList(DEFERRED_PAYMENT_TYPES);

/** One deposit as RECORD_CHARGE_DEPOSITS reads it from its jsonb input. */
export interface ChargeDepositInput {
  processor_deposit_id: string;
  /** minor units, bigint as text */
  amount: string;
  received_on: string;
  matched: boolean;
  /** the charge had ended (successful, failed, canceled…) when the money was recorded */
  received_after_end: boolean;
}

/**
 * The deposits the processor reports for a charge, each recorded once (unique per charge and
 * processor deposit: a notice handled twice, or two reconciliations side by side, add nothing),
 * with bank_transfer_status_updated for each new one of a bank-transfer charge, in the same
 * statement. Returns the deposits it inserted.
 */
export const RECORD_CHARGE_DEPOSITS = defineStatement({
  name: 'deferred_payments_record_deposits',
  params: {
    chargeId: pg.uuid,
    deposits: pg.jsonb<readonly ChargeDepositInput[]>(),
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${p.deposits})
        AS r(processor_deposit_id text, amount bigint, received_on timestamptz, matched boolean,
             received_after_end boolean)
    ),
    charge AS (
      SELECT c.id, c.merchant_id, c.store_id, c.requested_currency, t.payment_type
        FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
       WHERE c.id = ${p.chargeId}
    ),
    inserted AS (
      INSERT INTO charge_deposits
             (charge_id, processor_deposit_id, amount, currency, matched, received_after_end, received_on)
      SELECT charge.id, i.processor_deposit_id, i.amount, charge.requested_currency, i.matched,
             i.received_after_end, i.received_on
        FROM input i CROSS JOIN charge
          ON CONFLICT (charge_id, processor_deposit_id) DO NOTHING
      RETURNING id, charge_id, amount, currency, matched
    ),
    announced AS (
      SELECT inserted.*, charge.merchant_id, charge.store_id
        FROM inserted JOIN charge ON charge.id = inserted.charge_id
       WHERE charge.payment_type = 'bank_transfer'
    ),
    event AS (
      ${outboxInsertFrom('announced', {
        aggregateType: 'charge',
        aggregateId: 'charge_id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: bankTransferStatusUpdatedSql(),
        correlationId: correlationOf(p.causeEventId),
      })}
    )
    SELECT id::text AS id FROM inserted`,
});

/**
 * An extension of a charge's payment deadline (POST …/expiry): charges.expires_on and the expiry
 * row move together, only while the charge is pending or awaiting, its deadline not passed (the
 * expiry sweep compares with the same column, so a charge it may be expiring cannot be extended),
 * and only from the deadline as it was read (every extension moves it forward, so an unchanged
 * deadline means no extension came between): of two extensions side by side, one wins and the
 * other finds nothing and reads again. No row when nothing moved. The charge row is written first,
 * as AUTO_EXTEND_CHARGE_EXPIRY does, so the two never wait on each other's locks in turn.
 */
export const EXTEND_CHARGE_EXPIRY = defineStatement({
  name: 'deferred_payments_extend_expiry',
  params: {
    chargeId: pg.uuid,
    readExpirationDate: pg.timestamptz,
    expirationDate: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH charge AS (
      UPDATE charges c SET expires_on = ${p.expirationDate}, updated_on = now()
       WHERE c.id = ${p.chargeId} AND c.status IN ${AWAITING_PAYMENT}
         AND c.expires_on = ${p.readExpirationDate} AND c.expires_on > now()
      RETURNING c.id
    ),
    moved AS (
      UPDATE charge_expiries e
         SET expiration_date = ${p.expirationDate}, extension_count = e.extension_count + 1, updated_on = now()
        FROM charge WHERE e.charge_id = charge.id
      RETURNING e.id
    )
    SELECT id::text AS id FROM moved`,
});

/**
 * An automatic extension at the deadline (bank_transfer_configuration.automatic_extension_enabled):
 * as EXTEND_CHARGE_EXPIRY, but only once the deadline has passed, for an awaiting charge no cancel
 * is taking, from the deadline as read: of the sweeps of any number of replicas, one moves it and
 * writes charge_updated (the charge awaits again, until the new deadline); the others find nothing.
 */
export const AUTO_EXTEND_CHARGE_EXPIRY = defineStatement({
  name: 'deferred_payments_auto_extend_expiry',
  params: {
    chargeId: pg.uuid,
    readExpirationDate: pg.timestamptz,
    expirationDate: pg.timestamptz,
    causeEventId: pg.nullable(pg.uuid),
  },
  columns: { id: pg.text, extension_count: pg.int4 },
  text: (p) => `
    WITH charge AS (
      UPDATE charges c SET expires_on = ${p.expirationDate}, updated_on = now()
       WHERE c.id = ${p.chargeId} AND c.status = 'awaiting' AND c.pending_operation IS NULL
         AND c.expires_on = ${p.readExpirationDate} AND c.expires_on <= now()
      RETURNING c.id, c.merchant_id, c.store_id, c.status
    ),
    moved AS (
      UPDATE charge_expiries e
         SET expiration_date = ${p.expirationDate}, extension_count = e.extension_count + 1, updated_on = now()
        FROM charge WHERE e.charge_id = charge.id
      RETURNING e.id, e.extension_count
    ),
    event AS (
      ${outboxInsertFrom('charge', {
        aggregateType: 'charge',
        aggregateId: 'id',
        merchantId: 'merchant_id',
        storeId: 'store_id',
        event: chargeStatusSql(CHARGE_UPDATED),
        correlationId: correlationOf(p.causeEventId),
      })}
    )
    SELECT id::text AS id, extension_count FROM moved`,
});

/**
 * A charge's payment deadline with the configuration layers that rule its extension (the
 * merchant's and the store's, merged by the caller), for an automatic extension. No row for a
 * charge without a deadline.
 */
export const FIND_EXPIRY_WITH_CONFIGURATION = defineStatement({
  name: 'deferred_payments_find_expiry_with_configuration',
  params: { chargeId: pg.uuid },
  columns: {
    expiration_date: pg.timestamptz,
    extension_count: pg.int4,
    merchant_configuration: pg.jsonb<unknown>(),
    store_configuration: pg.jsonb<unknown>(),
  },
  text: (p) => `
    SELECT e.expiration_date, e.extension_count,
           m.configuration AS merchant_configuration, s.configuration AS store_configuration
      FROM charge_expiries e
      JOIN charges c ON c.id = e.charge_id
      JOIN stores s ON s.id = c.store_id
      JOIN merchants m ON m.id = c.merchant_id
     WHERE e.charge_id = ${p.chargeId}`,
});

/**
 * A bank-transfer or konbini charge that has ended (neither pending nor awaiting), for the money
 * that may still arrive for it; no row otherwise.
 */
export const FIND_ENDED_DEFERRED_CHARGE = defineStatement({
  name: 'deferred_payments_find_ended_charge',
  params: { chargeId: pg.uuid },
  columns: { id: pg.text, mode: pg.textOf<ProcessingMode>(), status: pg.textOf<ChargeStatus>() },
  text: (p) => `
    SELECT c.id::text AS id, c.mode::text AS mode, c.status::text AS status
      FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
     WHERE c.id = ${p.chargeId} AND t.payment_type IN ${DEFERRED_PAYMENT_TYPE}
       AND c.status NOT IN ${AWAITING_PAYMENT}`,
});

/**
 * A deposit the processor reports for a payment that is no charge of ours, recorded once per
 * processor deposit (a repeated notice adds nothing). Returns the row when it is new.
 */
export const RECORD_UNASSIGNED_DEPOSIT = defineStatement({
  name: 'deferred_payments_record_unassigned_deposit',
  params: {
    processorDepositId: pg.text,
    processorReference: pg.text,
    reference: pg.text,
    amount: pg.int8,
    currency: pg.bpchar,
    receivedOn: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    INSERT INTO unassigned_deposits
           (processor_deposit_id, processor_reference, reference, amount, currency, received_on)
    VALUES (${p.processorDepositId}, ${p.processorReference}, ${p.reference}, ${p.amount},
            ${p.currency}, ${p.receivedOn})
        ON CONFLICT (processor_deposit_id) DO NOTHING
    RETURNING id::text AS id`,
});
