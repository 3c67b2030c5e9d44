// charge-service's sweep of card tokens whose CVV authorization has been pending too long (its job
// lost; docs/transaction-tokens.md, "CVV authorization"): the pending ones only, through their
// partial index, those pending longer than TOKEN_CVV_AUTHORIZE_STALE_SECONDS
// (token-check-sweep-plan.ts).
import { tokenCheckSweepPlanSuite } from './token-check-sweep-plan';

tokenCheckSweepPlanSuite({
  key: 'cvv_authorize',
  done: 'current',
  statement: 'token_cvv_authorize_find_stale',
  index: 'transaction_tokens_cvv_authorize_pending_idx',
});
