import { bankTransferStatusUpdatedSql } from '../outbox/event-sql';
import { correlationOf, outboxInsertFrom } from '../outbox/outbox-writer';
import { defineStatement, pg } from './statement';

/**
 * Bank-transfer and konbini charges (docs/bank-transfer-and-konbini.md): the money received for
 * them, and their payment deadline.
 */

/** One deposit as RECORD_CHARGE_DEPOSITS reads it from its jsonb input. */
export interface ChargeDepositInput {
  processor_deposit_id: string;
  /** minor units, bigint as text */
  amount: string;
  received_on: string;
  matched: boolean;
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
        AS r(processor_deposit_id text, amount bigint, received_on timestamptz, matched boolean)
    ),
    charge AS (
      SELECT c.id, c.merchant_id, c.store_id, c.requested_currency, t.payment_type
        FROM charges c JOIN transaction_tokens t ON t.id = c.transaction_token_id
       WHERE c.id = ${p.chargeId}
    ),
    inserted AS (
      INSERT INTO charge_deposits (charge_id, processor_deposit_id, amount, currency, matched, received_on)
      SELECT charge.id, i.processor_deposit_id, i.amount, charge.requested_currency, i.matched, i.received_on
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
 * An extension of a charge's payment deadline: the expiry row and charges.expires_on move together,
 * only while the charge is pending or awaiting, its deadline not passed (the expiry sweep compares
 * with the same column, so a charge it may be expiring cannot be extended), and the row as it was
 * read (extension_count and expiration_date): of two extensions side by side, one wins and the
 * other finds nothing and reads again. No row when nothing moved.
 */
export const EXTEND_CHARGE_EXPIRY = defineStatement({
  name: 'deferred_payments_extend_expiry',
  params: {
    chargeId: pg.uuid,
    readExtensionCount: pg.int4,
    readExpirationDate: pg.timestamptz,
    expirationDate: pg.timestamptz,
  },
  columns: { id: pg.text },
  text: (p) => `
    WITH moved AS (
      UPDATE charge_expiries e
         SET expiration_date = ${p.expirationDate}, extension_count = e.extension_count + 1, updated_on = now()
        FROM charges c
       WHERE e.charge_id = ${p.chargeId} AND c.id = e.charge_id
         AND c.status IN ('pending', 'awaiting') AND c.expires_on > now()
         AND e.extension_count = ${p.readExtensionCount} AND e.expiration_date = ${p.readExpirationDate}
      RETURNING e.id, e.charge_id, e.expiration_date
    ),
    charge AS (
      UPDATE charges c SET expires_on = moved.expiration_date, updated_on = now()
        FROM moved WHERE c.id = moved.charge_id
    )
    SELECT id::text AS id FROM moved`,
});
