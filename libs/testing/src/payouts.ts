// Ledger facts and transfer states for the payout suites.
import { randomUUID } from 'node:crypto';
import type { PostingRequest } from '@kessai/db';
import { salePosting } from '@kessai/domain';
import { eventually } from './eventually';
import type { SeededMerchant, TestEnvironment } from './environment';

/** A sale of a seeded merchant's store in test mode, without a fee, matured an hour ago. */
export function maturedSale(seeded: SeededMerchant, gross: bigint): PostingRequest {
  return {
    posting: salePosting({
      mode: 'test',
      merchantId: seeded.merchant.id,
      storeId: seeded.store.id,
      currency: 'JPY',
      chargeId: randomUUID(),
      grossAmount: gross,
      feeAmount: 0n,
      feeRatePpm: null,
      feeFlatAmount: null,
      availableOn: new Date(Date.now() - 3_600_000),
    }),
    createdBy: 'test',
    causeEventId: null,
  };
}

/** The transfer `id` once the bank's notice settled it as `status`. */
export function settledTransfer(env: TestEnvironment, id: string, status: 'paid' | 'failed') {
  return eventually(
    async () => {
      const row = await env.prisma.transfer.findUniqueOrThrow({ where: { id } });
      return row.status === status ? row : null;
    },
    { timeoutMs: 20_000, what: `transfer ${id} ${status}` },
  );
}
