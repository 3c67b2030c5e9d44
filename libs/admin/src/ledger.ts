import { randomUUID } from 'node:crypto';
import type { LedgerRepository, StoresRepository } from '@kessai/db';
import { adjustmentPosting, isKnownCurrency } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * The operator's view of the ledger (docs/ledger.md): the check of every invariant of the books, and
 * a manual adjustment of what a store is owed, with its reason and who made it.
 */
export async function verifyLedger(repositories: { ledger: LedgerRepository }) {
  const { entries, transactions, ...checks } = await repositories.ledger.verify();
  const failed = Object.entries(checks).filter(([, count]) => count !== 0);
  return {
    ok: failed.length === 0,
    entries,
    transactions,
    checks: Object.fromEntries(Object.entries(checks).map(([name, count]) => [snake(name), count])),
  };
}

export interface AdjustmentInput {
  storeId: string;
  mode: 'test' | 'live';
  /** minor units; positive: the store is owed more */
  amount: bigint;
  currency: string;
  reason: string;
  /** the operator's name, recorded with the adjustment */
  by: string;
  /** the adjustment's id, to make a retried command idempotent (a new one when absent) */
  id?: string;
}

export async function adjustLedger(
  repositories: { ledger: LedgerRepository; stores: StoresRepository },
  input: AdjustmentInput,
) {
  if (input.amount === 0n) throw new AdminError('--amount must not be 0');
  if (!isKnownCurrency(input.currency)) throw new AdminError(`unknown currency ${input.currency}`);
  if (input.reason.trim() === '') throw new AdminError('--reason is required');
  if (input.by.trim() === '') throw new AdminError('--by is required');
  const store = await repositories.stores.findById(input.storeId);
  if (!store) throw new AdminError(`no store ${input.storeId}`);
  const adjustmentId = input.id ?? randomUUID();
  const result = await repositories.ledger.post([
    {
      posting: adjustmentPosting({
        adjustmentId,
        mode: input.mode,
        merchantId: store.merchantId,
        storeId: store.id,
        currency: input.currency,
        amount: input.amount,
        note: input.reason.trim(),
      }),
      createdBy: `operator:${input.by.trim()}`,
      causeEventId: null,
    },
  ]);
  if (result.conflicts.length > 0)
    throw new AdminError(`adjustment ${adjustmentId} was made before with other amounts: nothing changed`);
  return { id: adjustmentId, posted: result.written.length === 1, repeated: result.repeated === 1 };
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
