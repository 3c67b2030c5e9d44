// charge-service's sweep of card tokens whose 3-D Secure has been pending too long (its job lost;
// docs/transaction-tokens.md, "3-D Secure"): the pending ones only, through their partial index,
// those pending longer than TOKEN_THREE_DS_STALE_SECONDS (token-check-sweep-plan.ts).
import { tokenCheckSweepPlanSuite } from './token-check-sweep-plan';

tokenCheckSweepPlanSuite({
  key: 'three_ds',
  done: 'successful',
  statement: 'token_three_ds_find_stale',
  index: 'transaction_tokens_three_ds_pending_idx',
});
