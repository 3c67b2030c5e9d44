import { storedTokenCvvAuthorize, type TransactionToken } from '@kessai/db';
import { BusinessRuleError, NotFoundError, tokenCvvAuthorizeRefusal, type ErrorCodeOf } from '@kessai/domain';

const TOKEN_FIELD = 'transaction_token_id';
/** Recurring charges are card charges: an operator's payment page (online, QR) needs the customer each time. */
const SUBSCRIPTION_PAYMENT_TYPES: readonly string[] = ['card'];

const refuse = (code: ErrorCodeOf<400>, reason: string = code) =>
  new BusinessRuleError(code, [{ field: TOKEN_FIELD, reason }]);

/**
 * The token a subscription charges (POST /subscriptions, PATCH …/token): a `subscription` or
 * `recurring` card token of the subscription's store and mode, active (and confirmed, when it uses
 * confirmation), and with its CVV authorization, when enabled, `current` (decision 0066: the
 * subscription's charges do not wait for it, so its creation does). Another merchant's token is 404 as an unknown one, and so is a sibling store's for
 * a caller scoped to one store (`callerStoreId`): it must not learn that the id exists (issue 27).
 * Anything else is a 400 naming transaction_token_id.
 */
export function checkSubscriptionToken(
  token: TransactionToken | null,
  expected: { storeId: string; mode: string },
  callerStoreId: string | null,
): TransactionToken {
  if (!token) throw new NotFoundError('transaction_token');
  if (callerStoreId !== null && token.storeId !== callerStoreId) throw new NotFoundError('transaction_token');
  if (token.storeId !== expected.storeId) throw refuse('TOKEN_FOR_WRONG_STORE');
  if (token.mode !== expected.mode) throw refuse('PROCESSING_MODE_MISMATCH');
  if (token.type !== 'subscription' && token.type !== 'recurring') throw refuse('NOT_SUBSCRIPTION_TOKEN');
  if (!SUBSCRIPTION_PAYMENT_TYPES.includes(token.paymentType)) throw refuse('PAYMENT_TYPE_NOT_ALLOWED');
  if (!token.active) throw refuse('INVALID_TOKEN', 'NOT_ACTIVE');
  if (token.confirmed === false) throw refuse('TOKEN_MUST_BE_CONFIRMED');
  const cvvRefusal = tokenCvvAuthorizeRefusal(storedTokenCvvAuthorize(token.data));
  if (cvvRefusal !== null) throw refuse(cvvRefusal);
  return token;
}
