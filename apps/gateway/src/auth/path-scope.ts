import type { AccessScope } from '@kessai/db';
import { isUuid, NotFoundError, StoreTokenRequiredError } from '@kessai/domain';
import type { ChargeScope, StoreActor, StoreScope } from '@kessai/payments';
import type { Principal } from './principal';

/**
 * A resource's id from the path, lower-cased. A malformed one cannot name anything the caller may
 * see: it answers 404 as `resource`, like an unknown id, never 400.
 */
export function pathId(raw: string, resource: string): string {
  if (!isUuid(raw)) throw new NotFoundError(resource);
  return raw.toLowerCase();
}

/**
 * The scope a route acts in: the path's store (which a store token must own), or the caller's own
 * scope when the path names none. A malformed or foreign store id answers as a missing `resource`.
 */
export function storeScopeOf(principal: Principal, storeId: string | null, resource: string): AccessScope {
  if (storeId === null) return { merchantId: principal.merchantId, storeId: principal.storeId };
  if (!isUuid(storeId)) throw new NotFoundError(resource);
  if (principal.storeId !== null && principal.storeId !== storeId) throw new NotFoundError(resource);
  return { merchantId: principal.merchantId, storeId };
}

/**
 * The scope of a route under /stores/{storeId}/<resources>/{id}: the path's store, which a store
 * token must own; a malformed store or resource id is the same 404 as an unknown `resource`.
 */
export function inStoreScopeOf(
  principal: Principal,
  storeId: string,
  id: string,
  resource: string,
): StoreScope {
  if (!isUuid(storeId) || !isUuid(id)) throw new NotFoundError(resource);
  if (principal.storeId !== null && principal.storeId !== storeId) throw new NotFoundError(resource);
  return { merchantId: principal.merchantId, storeId };
}

/** The scope of a route under /stores/{storeId}/charges/{chargeId} (inStoreScopeOf). */
export function chargeScopeOf(principal: Principal, storeId: string, chargeId: string): ChargeScope {
  return inStoreScopeOf(principal, storeId, chargeId, 'charge');
}

/** Routes that name no store (POST /charges, batches) act in the app token's (api-reference §1.2). */
export function tokenStoreOf(principal: Principal): StoreActor {
  if (principal.storeId === null) throw new StoreTokenRequiredError();
  return { merchantId: principal.merchantId, storeId: principal.storeId, mode: principal.mode };
}

/**
 * The scope a subscription route reads in: the path's store (which a store token must own), or the
 * caller's own scope for the routes whose store prefix is optional. A malformed or foreign store
 * id, or a malformed subscription id, is the same 404 as an unknown subscription.
 */
export function subscriptionScopeOf(principal: Principal, storeId: string | null, id?: string): AccessScope {
  if (id !== undefined && !isUuid(id)) throw new NotFoundError('subscription');
  return storeScopeOf(principal, storeId, 'subscription');
}
