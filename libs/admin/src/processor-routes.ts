import type {
  ChargeProcessingAccount,
  ProcessorAccountsRepository,
  ProcessorRoute,
  ProcessorRouteKey,
  StoresRepository,
  TokenCheckOfToken,
} from '@kessai/db';
import { isKnownCurrency, isUuid } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * The operator's routing per store (docs/connectors.md, "Routing"; decision 0055): which of the
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

/**
 * Routes the store's new charges of the key to `accountId`, and those that account provably did
 * not execute to `fallbackId` (decision 0056; null: no failover).
 */
export async function setProcessorRoute(
  repositories: Repositories,
  input: RouteInput,
  accountId: string,
  fallbackId: string | null = null,
) {
  const { key, merchantId } = await routeKey(repositories, input);
  const account = await routableAccount(repositories, accountId, merchantId, key.mode);
  const fallback =
    fallbackId === null ? null : await routableAccount(repositories, fallbackId, merchantId, key.mode);
  if (fallback?.id === account.id) throw new AdminError('the fallback must be another account');
  return describeProcessorRoute(
    await repositories.processorAccounts.setRoute(key, account.id, fallback?.id ?? null),
  );
}

/** An active account of the merchant and of the route's mode. */
async function routableAccount(
  repositories: Repositories,
  accountId: string,
  merchantId: string,
  mode: string,
) {
  const account = isUuid(accountId)
    ? await repositories.processorAccounts.find(accountId.toLowerCase())
    : null;
  if (!account || account.merchantId !== merchantId)
    throw new AdminError(`no processor account ${accountId} of the store's merchant`);
  if (account.mode !== mode) throw new AdminError(`the account is a ${account.mode} account, not ${mode}`);
  if (account.status !== 'active') throw new AdminError(`the account ${account.id} is disabled`);
  return account;
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
 * A charge's processing as only the operator sees it: the processor account that takes it (none:
 * its mode's default processor), which is the one it was routed to unless it failed over to its
 * route's fallback (decision 0056), and the provider's id of its payment. The merchant's API never
 * answers any of it.
 */
export async function showChargeProcessing(
  repositories: { processorAccounts: ProcessorAccountsRepository },
  chargeId: string,
) {
  const charge = isUuid(chargeId)
    ? await repositories.processorAccounts.findChargeProcessing(chargeId.toLowerCase())
    : null;
  if (!charge) throw new AdminError(`no charge ${chargeId}`);
  const failedOver = charge.processorFailedOverOn !== null;
  return {
    id: charge.id,
    merchant_id: charge.merchantId,
    store_id: charge.storeId,
    mode: charge.mode,
    status: charge.status,
    processor_account: describeAccount(
      failedOver ? charge.fallbackProcessorAccount : charge.processorAccount,
    ),
    routed_processor_account: describeAccount(charge.processorAccount),
    fallback_processor_account: describeAccount(charge.fallbackProcessorAccount),
    failed_over_on: charge.processorFailedOverOn?.toISOString() ?? null,
    processor_calls_started: charge.processorCallsStarted,
    processor_calls_unexecuted: charge.processorCallsUnexecuted,
    processor_reference: charge.processorReference,
  };
}

/**
 * A card token's own checks (its 3-D Secure, its CVV authorization) as only the operator sees them
 * (decision 0079): for each, its status and attempt, the processor account its attempt's hold went
 * to (none: the mode's default processor) and the provider's payment id.
 */
export async function showTokenProcessing(
  repositories: { processorAccounts: ProcessorAccountsRepository },
  tokenId: string,
) {
  const token = isUuid(tokenId)
    ? await repositories.processorAccounts.findTokenCheckProcessing(tokenId.toLowerCase())
    : null;
  if (!token) throw new AdminError(`no transaction token ${tokenId}`);
  const describeCheck = (check: TokenCheckOfToken | null) =>
    check && {
      enabled: check.enabled,
      status: check.status,
      attempt: check.attempt,
      processor_account: describeAccount(check.processorAccount),
      processor_reference: check.processorReference,
    };
  return {
    id: token.id,
    merchant_id: token.merchantId,
    store_id: token.storeId,
    mode: token.mode,
    payment_type: token.paymentType,
    three_ds: describeCheck(token.threeDs),
    cvv_authorize: describeCheck(token.cvvAuthorize),
  };
}

function describeAccount(account: ChargeProcessingAccount | null) {
  return account
    ? { id: account.id, provider: account.provider, name: account.name, status: account.status }
    : null;
}

function describeProcessorRoute(route: ProcessorRoute) {
  return {
    store_id: route.storeId,
    mode: route.mode,
    payment_type: route.paymentType,
    currency: route.currency,
    processor_account_id: route.processorAccountId,
    fallback_processor_account_id: route.fallbackProcessorAccountId,
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
