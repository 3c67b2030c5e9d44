import type {
  ProcessorAccountsRepository,
  ProcessorRoute,
  ProcessorRouteKey,
  StoresRepository,
} from '@kessai/db';
import { isKnownCurrency, isUuid } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * The operator's routing per store (docs/processors.md, "Routing"; decision 0055): which of the
 * merchant's processor accounts takes the store's charges of a mode, payment type and currency (a
 * code, or `*` for any). A charge keeps the account it was created with: a route set or cleared
 * later moves new charges only. Without a route a charge goes to its mode's default processor.
 */

export const ROUTE_PAYMENT_TYPES = ['card', 'konbini', 'bank_transfer', 'online'] as const;
const ANY_CURRENCY = '*';

type Repositories = { processorAccounts: ProcessorAccountsRepository; stores: StoresRepository };

export interface RouteInput {
  storeId: string;
  mode: 'test' | 'live';
  paymentType: string;
  /** an ISO 4217 code, or `*` (any); `*` when not given */
  currency?: string;
}

export async function setProcessorRoute(repositories: Repositories, input: RouteInput, accountId: string) {
  const { key, merchantId } = await routeKey(repositories, input);
  const account = isUuid(accountId)
    ? await repositories.processorAccounts.find(accountId.toLowerCase())
    : null;
  if (!account || account.merchantId !== merchantId)
    throw new AdminError(`no processor account ${accountId} of the store's merchant`);
  if (account.mode !== key.mode)
    throw new AdminError(`the account is a ${account.mode} account, not ${key.mode}`);
  if (account.status !== 'active') throw new AdminError('the account is disabled');
  return describeProcessorRoute(await repositories.processorAccounts.setRoute(key, account.id));
}

export async function clearProcessorRoute(repositories: Repositories, input: RouteInput) {
  const { key } = await routeKey(repositories, input);
  if (!(await repositories.processorAccounts.clearRoute(key)))
    throw new AdminError('the store has no such route');
  return {
    store_id: key.storeId,
    mode: key.mode,
    payment_type: key.paymentType,
    currency: key.currency,
    cleared: true,
  };
}

export async function listProcessorRoutes(repositories: Repositories, storeId: string) {
  const store = isUuid(storeId) ? await repositories.stores.findById(storeId.toLowerCase()) : null;
  if (!store) throw new AdminError(`no store ${storeId}`);
  return (await repositories.processorAccounts.listRoutes(store.id)).map(describeProcessorRoute);
}

/**
 * A charge's processing as only the operator sees it: the processor account it was routed to (none:
 * its mode's default processor) and the provider's id of its payment. The merchant's API never
 * answers either.
 */
export async function showChargeProcessing(
  repositories: { processorAccounts: ProcessorAccountsRepository },
  chargeId: string,
) {
  const charge = isUuid(chargeId)
    ? await repositories.processorAccounts.findChargeProcessing(chargeId.toLowerCase())
    : null;
  if (!charge) throw new AdminError(`no charge ${chargeId}`);
  return {
    id: charge.id,
    merchant_id: charge.merchantId,
    store_id: charge.storeId,
    mode: charge.mode,
    status: charge.status,
    processor_account: charge.processorAccount
      ? {
          id: charge.processorAccount.id,
          provider: charge.processorAccount.provider,
          name: charge.processorAccount.name,
          status: charge.processorAccount.status,
        }
      : null,
    processor_reference: charge.processorReference,
  };
}

function describeProcessorRoute(route: ProcessorRoute) {
  return {
    store_id: route.storeId,
    mode: route.mode,
    payment_type: route.paymentType,
    currency: route.currency,
    processor_account_id: route.processorAccountId,
    created_on: route.createdOn.toISOString(),
    updated_on: route.updatedOn.toISOString(),
  };
}

async function routeKey(
  repositories: Repositories,
  input: RouteInput,
): Promise<{ key: ProcessorRouteKey; merchantId: string }> {
  const store = isUuid(input.storeId)
    ? await repositories.stores.findById(input.storeId.toLowerCase())
    : null;
  if (!store) throw new AdminError(`no store ${input.storeId}`);
  if (!(ROUTE_PAYMENT_TYPES as readonly string[]).includes(input.paymentType))
    throw new AdminError(`--payment-type must be one of ${ROUTE_PAYMENT_TYPES.join(', ')}`);
  const currency = (input.currency ?? ANY_CURRENCY).toUpperCase();
  if (currency !== ANY_CURRENCY && !isKnownCurrency(currency))
    throw new AdminError('--currency must be an ISO 4217 code or *');
  const paymentType = input.paymentType as ProcessorRouteKey['paymentType'];
  return {
    key: { storeId: store.id, mode: input.mode, paymentType, currency },
    merchantId: store.merchantId,
  };
}
