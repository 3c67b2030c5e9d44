/**
 * The ledger's rules (docs/ledger.md): which accounts a business fact moves money between, and by
 * how much. Plain TypeScript; libs/db writes what these functions answer, and the database refuses
 * anything that does not balance.
 *
 * Signs: an entry's amount is positive for a debit and negative for a credit, and the entries of a
 * transaction sum to zero per currency. The store's accounts are what the platform owes the store
 * (credit-normal: a store is owed 970 when its account's balance is −970); the processor's clearing
 * account is what the processor holds for the platform (debit-normal).
 */

export const LEDGER_ACCOUNT_KINDS = [
  'store_pending',
  'store_available',
  'platform_fee_revenue',
  'processor_clearing',
  'platform_adjustments',
  'payouts_in_transit',
] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/** A store's own accounts; the others are the platform's, one per mode and currency. */
export const STORE_ACCOUNT_KINDS = [
  'store_pending',
  'store_available',
] as const satisfies readonly LedgerAccountKind[];
export type StoreAccountKind = (typeof STORE_ACCOUNT_KINDS)[number];
export type PlatformAccountKind = Exclude<LedgerAccountKind, StoreAccountKind>;

export const LEDGER_POSTING_KINDS = [
  'sale',
  'refund',
  'release',
  'adjustment',
  'payout',
  'payout_paid',
  'payout_returned',
] as const;
export type LedgerPostingKind = (typeof LEDGER_POSTING_KINDS)[number];

/** Which account an entry is on: a store's (by store), or the platform's. */
export type LedgerAccountRef =
  { kind: StoreAccountKind; merchantId: string; storeId: string } | { kind: PlatformAccountKind };

export interface LedgerLine {
  account: LedgerAccountRef;
  /** debit positive, credit negative; never zero */
  amount: bigint;
  /** on a store_pending line: when its money becomes available */
  availableOn: Date | null;
}

/** One business fact as the ledger records it: its key, what the merchant reads, and its lines. */
export interface LedgerPosting {
  kind: LedgerPostingKind;
  sourceType: 'charge' | 'refund' | 'adjustment' | 'ledger_maturity' | 'transfer';
  sourceId: string;
  mode: string;
  merchantId: string;
  storeId: string | null;
  currency: string;
  /** the store's side as the merchant reads it (a sale's gross, a refund's amount negative) */
  amount: bigint;
  feeAmount: bigint;
  feeRatePpm: number | null;
  feeFlatAmount: bigint | null;
  availableOn: Date | null;
  note: string | null;
  lines: LedgerLine[];
}

interface Owner {
  mode: string;
  merchantId: string;
  storeId: string;
  currency: string;
}

/** A charge's money taken: captured, or charged at once (a card, a QR, a deposit that paid it). */
export interface SaleFact extends Owner {
  chargeId: string;
  /** what was taken (a partial capture: what was captured) */
  grossAmount: bigint;
  /** the fee the charge's terms give for that amount (at most the gross) */
  feeAmount: bigint;
  feeRatePpm: number | null;
  feeFlatAmount: bigint | null;
  availableOn: Date;
}

/**
 * A sale: the processor holds the gross for us; the store is owed the gross less the fee, from
 * `availableOn`; the platform earned the fee. Two lines on the store's pending account (the gross
 * credited, the fee debited), so that the merchant's ledger shows both.
 */
export function salePosting(fact: SaleFact): LedgerPosting {
  if (fact.grossAmount <= 0n) throw new RangeError(`a sale takes a positive amount, not ${fact.grossAmount}`);
  if (fact.feeAmount < 0n || fact.feeAmount > fact.grossAmount)
    throw new RangeError(`a sale's fee is between 0 and its gross, not ${fact.feeAmount}`);
  const store = storeAccount('store_pending', fact);
  const lines: LedgerLine[] = [
    line({ kind: 'processor_clearing' }, fact.grossAmount),
    line(store, -fact.grossAmount, fact.availableOn),
  ];
  if (fact.feeAmount > 0n)
    lines.push(
      line(store, fact.feeAmount, fact.availableOn),
      line({ kind: 'platform_fee_revenue' }, -fact.feeAmount),
    );
  return {
    kind: 'sale',
    sourceType: 'charge',
    sourceId: fact.chargeId,
    ...ownerOf(fact),
    amount: fact.grossAmount,
    feeAmount: fact.feeAmount,
    feeRatePpm: fact.feeRatePpm,
    feeFlatAmount: fact.feeFlatAmount,
    availableOn: fact.availableOn,
    note: null,
    lines,
  };
}

/** A refund's money given back. */
export interface RefundFact extends Owner {
  refundId: string;
  amount: bigint;
}

/**
 * A refund: the store's available balance pays it (it may go below zero: a negative balance is
 * carried forward, never paid out), and the processor pays the customer. **Fees are not returned**:
 * the platform keeps the fee of the sale (decision 0030), as card networks keep theirs.
 */
export function refundPosting(fact: RefundFact): LedgerPosting {
  if (fact.amount <= 0n) throw new RangeError(`a refund gives back a positive amount, not ${fact.amount}`);
  return {
    kind: 'refund',
    sourceType: 'refund',
    sourceId: fact.refundId,
    ...ownerOf(fact),
    amount: -fact.amount,
    feeAmount: 0n,
    feeRatePpm: null,
    feeFlatAmount: null,
    availableOn: null,
    note: null,
    lines: [
      line(storeAccount('store_available', fact), fact.amount),
      line({ kind: 'processor_clearing' }, -fact.amount),
    ],
  };
}

/** An operator's correction of what a store is owed, with the reason and who made it. */
export interface AdjustmentFact extends Owner {
  adjustmentId: string;
  /** positive: the store is owed more; negative: less */
  amount: bigint;
  note: string;
}

/** An adjustment: the store's available balance against the platform's adjustments account. */
export function adjustmentPosting(fact: AdjustmentFact): LedgerPosting {
  if (fact.amount === 0n) throw new RangeError('an adjustment moves a non-zero amount');
  if (fact.note.trim() === '') throw new RangeError('an adjustment says why');
  return {
    kind: 'adjustment',
    sourceType: 'adjustment',
    sourceId: fact.adjustmentId,
    ...ownerOf(fact),
    amount: fact.amount,
    feeAmount: 0n,
    feeRatePpm: null,
    feeFlatAmount: null,
    availableOn: null,
    note: fact.note,
    lines: [
      line(storeAccount('store_available', fact), -fact.amount),
      line({ kind: 'platform_adjustments' }, fact.amount),
    ],
  };
}

/**
 * A release: what a store's pending account holds for one instant of availability, once it has
 * come, moved to the store's available account. `pendingAmount` is that holding as the pending
 * account's entries sum it (negative while the store is owed money).
 */
export function releaseLines(owner: Owner, pendingAmount: bigint, availableOn: Date): LedgerLine[] {
  if (pendingAmount === 0n) return [];
  return [
    line(storeAccount('store_pending', owner), -pendingAmount, availableOn),
    line(storeAccount('store_available', owner), pendingAmount),
  ];
}

/** A transfer of a merchant's money in one currency: what it takes from each of its stores. */
export interface PayoutFact {
  transferId: string;
  mode: string;
  merchantId: string;
  currency: string;
  /** per store, what the transfer pays of it (negative: the store's debt set against the others) */
  stores: readonly { storeId: string; amount: bigint }[];
}

/** What a payout pays in all: the sum of its stores' amounts. */
export function payoutAmount(fact: Pick<PayoutFact, 'stores'>): bigint {
  return fact.stores.reduce((sum, s) => sum + s.amount, 0n);
}

/**
 * A payout: the merchant's stores' available balances (what it covers of each) to the platform's
 * payouts in transit, until the bank pays it or it fails. Only a positive total is paid: a
 * negative balance is carried forward, never paid out (docs/ledger.md, "Payouts").
 */
export function payoutPosting(fact: PayoutFact): LedgerPosting {
  const total = payoutAmount(fact);
  if (total <= 0n) throw new RangeError(`a payout pays a positive amount, not ${total}`);
  return {
    kind: 'payout',
    ...transferPosting(fact, total),
    lines: [
      ...fact.stores
        .filter((s) => s.amount !== 0n)
        .map((s) =>
          line({ kind: 'store_available', merchantId: fact.merchantId, storeId: s.storeId }, s.amount),
        ),
      line({ kind: 'payouts_in_transit' }, -total),
    ],
  };
}

/** A payout the bank paid: out of transit, out of what the processor holds for the platform. */
export function payoutPaidPosting(fact: PayoutFact): LedgerPosting {
  const total = payoutAmount(fact);
  if (total <= 0n) throw new RangeError(`a payout pays a positive amount, not ${total}`);
  return {
    kind: 'payout_paid',
    ...transferPosting(fact, total),
    lines: [line({ kind: 'payouts_in_transit' }, total), line({ kind: 'processor_clearing' }, -total)],
  };
}

/** A payout that failed or was canceled: the exact reverse of its payout, the money available again. */
export function payoutReturnedPosting(fact: PayoutFact): LedgerPosting {
  const payout = payoutPosting(fact);
  return {
    ...payout,
    kind: 'payout_returned',
    amount: payout.amount,
    lines: payout.lines.map((l) => ({ ...l, amount: -l.amount })),
  };
}

function transferPosting(fact: PayoutFact, total: bigint) {
  return {
    sourceType: 'transfer' as const,
    sourceId: fact.transferId,
    mode: fact.mode,
    merchantId: fact.merchantId,
    storeId: null,
    currency: fact.currency,
    amount: total,
    feeAmount: 0n,
    feeRatePpm: null,
    feeFlatAmount: null,
    availableOn: null,
    note: null,
  };
}

/** What the platform owes the store on an account of the store (its balance, credit-normal). */
export function owedToStore(balance: bigint): bigint {
  return -balance;
}

/** Whether lines balance: their amounts sum to zero (one currency per posting). */
export function isBalanced(lines: readonly LedgerLine[]): boolean {
  return lines.every((l) => l.amount !== 0n) && lines.reduce((sum, l) => sum + l.amount, 0n) === 0n;
}

function storeAccount(kind: StoreAccountKind, owner: Owner): LedgerAccountRef {
  return { kind, merchantId: owner.merchantId, storeId: owner.storeId };
}

function ownerOf(owner: Owner) {
  return { mode: owner.mode, merchantId: owner.merchantId, storeId: owner.storeId, currency: owner.currency };
}

function line(account: LedgerAccountRef, amount: bigint, availableOn: Date | null = null): LedgerLine {
  return { account, amount, availableOn };
}
