import { defineStatement, pg } from '../sql/statement';

/**
 * Failover of a pending charge from its processor account to its route's fallback (decision 0056).
 * Every authorization call sent to the account is counted before it is sent, and counted again
 * when the account provably executed nothing of it; the charge moves to its fallback only in the
 * statement that makes the two counts equal, so never while a call of another worker may still be
 * executing there, nor after a call whose outcome nobody learnt (a timeout, a crash mid-call).
 * Neither statement touches updated_on: the stale-pending sweep keeps its clock.
 */

/**
 * One more call of the charge is about to be sent to its account. No row: the charge is no longer
 * pending, has no fallback, or failed over already; then nothing may be sent to the account.
 */
export const START_PROCESSOR_CALL = defineStatement({
  name: 'processor_failover_start_call',
  params: { chargeId: pg.uuid },
  columns: { started: pg.int4 },
  text: (p) => `
    UPDATE charges
       SET processor_calls_started = processor_calls_started + 1
     WHERE id = ${p.chargeId} AND status::text = 'pending'
       AND fallback_processor_account_id IS NOT NULL AND processor_failed_over_on IS NULL
    RETURNING processor_calls_started AS started`,
});

/**
 * A call the account provably did not execute; the charge fails over when it was the last one
 * started, every earlier one having been counted so too. `failed_over` false: some call of it may
 * have been executed (or is still running), and it stays on its account. No row: no longer pending
 * or failed over already.
 */
export const RECORD_UNEXECUTED_PROCESSOR_CALL = defineStatement({
  name: 'processor_failover_record_unexecuted_call',
  params: { chargeId: pg.uuid },
  columns: { failed_over: pg.bool },
  text: (p) => `
    UPDATE charges
       SET processor_calls_unexecuted = processor_calls_unexecuted + 1,
           processor_failed_over_on = CASE
             WHEN processor_calls_unexecuted + 1 = processor_calls_started THEN now() END
     WHERE id = ${p.chargeId} AND status::text = 'pending'
       AND fallback_processor_account_id IS NOT NULL AND processor_failed_over_on IS NULL
    RETURNING processor_failed_over_on IS NOT NULL AS failed_over`,
});
