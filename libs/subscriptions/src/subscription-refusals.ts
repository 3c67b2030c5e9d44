import type { SubscriptionStatus } from '@kessai/db';
import { BusinessRuleError, NotFoundError, ValidationError } from '@kessai/domain';

/**
 * Why a subscription in `status` refused a change: 404 when it is not there, the reference's codes
 * for a canceled (CANNOT_CHANGE_CANCELED_SUBSCRIPTION) and a completed one
 * (SUBSCRIPTION_ALREADY_ENDED), and `{status, NOT_ALLOWED}` for a transition its status does not
 * allow (suspending a suspended subscription, unsuspending a current one, …).
 */
export function subscriptionRefusal(status: SubscriptionStatus | null): Error {
  if (status === null) return new NotFoundError('subscription');
  if (status === 'canceled') {
    return new BusinessRuleError('CANNOT_CHANGE_CANCELED_SUBSCRIPTION', [
      { field: 'status', reason: 'CANNOT_CHANGE_CANCELED_SUBSCRIPTION' },
    ]);
  }
  if (status === 'completed') {
    return new BusinessRuleError('SUBSCRIPTION_ALREADY_ENDED', [
      { field: 'status', reason: 'SUBSCRIPTION_ALREADY_ENDED' },
    ]);
  }
  return ValidationError.field('status', 'NOT_ALLOWED');
}

/** A change that needs the open payment pending, while its charge is in flight. */
export function paymentInFlight(): BusinessRuleError {
  return new BusinessRuleError('SUBSCRIPTION_PROCESSING', [
    { field: 'next_payment', reason: 'SUBSCRIPTION_PROCESSING' },
  ]);
}
