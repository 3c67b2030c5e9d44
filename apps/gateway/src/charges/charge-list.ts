import type { AccessScope, ChargeFilters } from '@kessai/db';
import { parsePageRequest, presentPage } from '../http/pagination';
import type { ChargesService } from '@kessai/payments';
import { presentChargeListItem } from '@kessai/presenters';
import { parseInput } from '../http/validation';
import { listChargesSchema } from './charge.schemas';

/**
 * A charge list's answer (api-reference §4) for a query: its page and filters parsed, the charges
 * `scope` may see in `storeId` (or the scope's own), narrowed by `of` (a subscription, one of its
 * payments: the query's subscription_id then counts for nothing), presented; total_hits on a first
 * page, as UnivaPay's lists.
 */
export async function listChargesFor(
  charges: ChargesService,
  scope: AccessScope,
  storeId: string | null,
  query: Record<string, unknown>,
  of?: Pick<ChargeFilters, 'subscriptionId' | 'scheduledPaymentId'>,
) {
  const page = parsePageRequest(query);
  const filters = parseInput(listChargesSchema, query);
  const { rows, totalHits } = await charges.list(
    scope,
    storeId,
    {
      status: filters.status,
      mode: filters.mode,
      transactionTokenId: filters.transaction_token_id,
      currency: filters.currency,
      amountFrom: filters.amount_from,
      amountTo: filters.amount_to,
      from: filters.from,
      to: filters.to,
      metadata: filters.metadata,
      ...(of ?? { subscriptionId: filters.subscription_id }),
    },
    page,
  );
  return presentPage(rows, page, presentChargeListItem, totalHits);
}
