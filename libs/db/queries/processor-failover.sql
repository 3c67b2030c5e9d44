-- Generated from libs/db/src/charges/processor-failover.sql.ts by npm run sql:generate: do not edit.

-- processor_failover_start_call
-- params: $1 chargeId uuid
-- columns: started int4
UPDATE charges
   SET processor_calls_started = processor_calls_started + 1
 WHERE id = $1::uuid AND status::text = 'pending'
   AND fallback_processor_account_id IS NOT NULL AND processor_failed_over_on IS NULL
RETURNING processor_calls_started AS started;

-- processor_failover_record_unexecuted_call
-- params: $1 chargeId uuid
-- columns: failed_over bool
UPDATE charges
   SET processor_calls_unexecuted = processor_calls_unexecuted + 1,
       processor_failed_over_on = CASE
         WHEN processor_calls_unexecuted + 1 = processor_calls_started THEN now() END
 WHERE id = $1::uuid AND status::text = 'pending'
   AND fallback_processor_account_id IS NOT NULL AND processor_failed_over_on IS NULL
RETURNING processor_failed_over_on IS NOT NULL AS failed_over;
