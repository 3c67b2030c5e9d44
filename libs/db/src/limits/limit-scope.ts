import type { AccessScope } from '../scope';

/**
 * The key a scope's limits are counted under. A store's resources count against that store; the
 * merchant's own resources (store_id null) count against the merchant, apart from its stores'.
 */
export function limitScopeKey(scope: AccessScope): string {
  return scope.storeId ? `store:${scope.storeId}` : `merchant:${scope.merchantId}`;
}
