/**
 * The payout rule (docs/ledger.md, "Payouts"): what one payout run of a merchant, mode and currency
 * decides from what it found owed. Plain TypeScript; libs/db writes what it answers, and the
 * database's keys make a second run of the same payout day a no-op.
 */

/** A ledger transaction not covered yet by a transfer, as the run read it. */
export interface UncoveredLedger {
  id: string;
  storeId: string;
  /** what it owes the store (a sale's gross less its fee; a refund negative; an adjustment signed) */
  net: bigint;
}

export type PayoutDecision =
  | {
      outcome: 'transfer';
      amount: bigint;
      bankAccountId: string;
      /** what the transfer pays of each store (negative: a store's debt set against the others) */
      stores: { storeId: string; amount: bigint }[];
      /** the ledger transactions it covers */
      ledgerIds: string[];
    }
  | { outcome: 'nothing_to_pay' | 'below_minimum' | 'no_bank_account'; amount: bigint };

export interface PayoutInput {
  currency: string;
  uncovered: readonly UncoveredLedger[];
  /** the merchant's min_transfer_payout: it binds its own currency only */
  minimum: { amount: number; currency: string };
  /** the currency's primary verified bank account, if any */
  bankAccountId: string | null;
}

/**
 * A run pays the sum of what it found owed, netted across the merchant's stores, when that is
 * positive, at least min_transfer_payout (of its currency; any positive amount in the others), and
 * the currency has a primary verified bank account. Otherwise nothing is covered and everything is
 * carried forward to the next payout day: a negative balance is never paid out.
 */
export function decidePayout(input: PayoutInput): PayoutDecision {
  const byStore = new Map<string, bigint>();
  for (const row of input.uncovered) byStore.set(row.storeId, (byStore.get(row.storeId) ?? 0n) + row.net);
  const amount = [...byStore.values()].reduce((sum, v) => sum + v, 0n);
  if (amount <= 0n) return { outcome: 'nothing_to_pay', amount };
  if (input.minimum.currency === input.currency && amount < BigInt(input.minimum.amount))
    return { outcome: 'below_minimum', amount };
  if (input.bankAccountId === null) return { outcome: 'no_bank_account', amount };
  return {
    outcome: 'transfer',
    amount,
    bankAccountId: input.bankAccountId,
    stores: [...byStore.entries()]
      .filter(([, v]) => v !== 0n)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([storeId, v]) => ({ storeId, amount: v })),
    ledgerIds: input.uncovered.map((row) => row.id).sort(),
  };
}

/**
 * Transfer statuses (the SDK's TransferStatus) and the changes allowed: created → approved →
 * processing → paid | failed; created or approved → canceled.
 */
export const TRANSFER_STATUSES = ['created', 'approved', 'processing', 'paid', 'failed', 'canceled'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

const NEXT: Record<TransferStatus, readonly TransferStatus[]> = {
  created: ['approved', 'canceled'],
  approved: ['processing', 'canceled'],
  processing: ['paid', 'failed'],
  paid: [],
  failed: [],
  canceled: [],
};

export function canChangeTransfer(from: TransferStatus, to: TransferStatus): boolean {
  return NEXT[from].includes(to);
}

/** Whether a transfer's status ends it (paid, failed, canceled): nothing changes it after. */
export function transferFinal(status: TransferStatus): boolean {
  return NEXT[status].length === 0;
}

/** The statuses that end a transfer, announced by transfer_finalized (the others by transfer_updated). */
export const FINAL_TRANSFER_STATUSES = TRANSFER_STATUSES.filter(transferFinal);

/** Whether a transfer's money is back in the balances (its ledgers uncovered again). */
export function transferReturned(status: TransferStatus): boolean {
  return status === 'failed' || status === 'canceled';
}

/**
 * The approval rule: a test-mode transfer is approved at once; a live one waits for an operator
 * (`transfer:approve`), who checks it against the bank account and the merchant's standing first.
 */
export function approvedAtCreation(mode: string): boolean {
  return mode === 'test';
}
