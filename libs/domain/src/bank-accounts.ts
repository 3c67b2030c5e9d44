import { BusinessRuleError, ConflictError } from './errors';

/**
 * Bank accounts (docs/ledger.md, "Bank accounts"; decision 0032): the SDK's BankAccountStatus and
 * BankAccountType, and the rules of one merchant's accounts in one mode — one primary per currency
 * while the currency has an account, one account per number at one bank. The rules decide from
 * the accounts held (read under the merchant's bank-account lock); libs/db writes what they say,
 * and the database's partial unique indexes refuse whatever breaks them anyway.
 */

export const BANK_ACCOUNT_STATUSES = ['new', 'unable_to_verify', 'verified', 'errored'] as const;
export type BankAccountStatus = (typeof BANK_ACCOUNT_STATUSES)[number];

/** What the operator may set (bank-account:verify): the outcomes of a verification. */
export const BANK_ACCOUNT_VERIFICATION_OUTCOMES = ['verified', 'unable_to_verify', 'errored'] as const;
export type BankAccountVerificationOutcome = (typeof BANK_ACCOUNT_VERIFICATION_OUTCOMES)[number];

export const BANK_ACCOUNT_TYPES = ['checking', 'savings'] as const;
export type BankAccountType = (typeof BANK_ACCOUNT_TYPES)[number];

/** An account as the rules see it: one of the merchant's accounts in the mode, not deleted. */
export interface HeldBankAccount {
  id: string;
  currency: string;
  primary: boolean;
  fingerprint: string;
}

/** What a write does to primaries: whether the account is primary, and which one stops being. */
export interface PrimaryPlan {
  primary: boolean;
  /** the currency's primary until now, demoted in the same transaction; null when none is */
  demote: string | null;
}

/**
 * A new account's status: a test-mode account is verified at once (nothing is paid from test
 * books to a real bank); a live one waits for the operator (`bank-account:verify`).
 */
export function initialBankAccountStatus(mode: 'test' | 'live'): BankAccountStatus {
  return mode === 'test' ? 'verified' : 'new';
}

const exists = () =>
  new ConflictError('BANK_ACCOUNT_EXISTS', [{ field: 'account_number', reason: 'BANK_ACCOUNT_EXISTS' }]);
const mustHavePrimary = (field: string | null) =>
  new BusinessRuleError('MUST_HAVE_A_PRIMARY_BANK_ACCOUNT', [
    { field, reason: 'MUST_HAVE_A_PRIMARY_BANK_ACCOUNT' },
  ]);

/**
 * A new account: refused when the same number at the same bank is held already
 * (BANK_ACCOUNT_EXISTS). The first account of a currency is its primary whatever was asked; a later
 * one is primary when asked (`primary: true`), and the previous primary stops being.
 */
export function planNewBankAccount(
  held: readonly HeldBankAccount[],
  account: { currency: string; fingerprint: string; primary?: boolean },
): PrimaryPlan {
  if (held.some((other) => other.fingerprint === account.fingerprint)) throw exists();
  const current = held.find((other) => other.currency === account.currency && other.primary);
  if (!current) return { primary: true, demote: null };
  return account.primary === true ? { primary: true, demote: current.id } : { primary: false, demote: null };
}

/**
 * A change of an account (`account` as held): a new number or bank that another held account has
 * is BANK_ACCOUNT_EXISTS; `primary: false` on the primary is MUST_HAVE_A_PRIMARY_BANK_ACCOUNT (make
 * another one primary instead); `primary: true` makes it the currency's primary.
 */
export function planBankAccountChange(
  held: readonly HeldBankAccount[],
  account: HeldBankAccount,
  change: { fingerprint?: string; primary?: boolean },
): PrimaryPlan {
  if (
    change.fingerprint !== undefined &&
    held.some((other) => other.id !== account.id && other.fingerprint === change.fingerprint)
  )
    throw exists();
  if (change.primary === false && account.primary) throw mustHavePrimary('primary');
  if (change.primary === true && !account.primary) {
    const current = held.find((other) => other.currency === account.currency && other.primary);
    return { primary: true, demote: current?.id ?? null };
  }
  return { primary: account.primary, demote: null };
}

/**
 * A deletion: the primary goes only as the currency's last account (another must be made primary
 * first, MUST_HAVE_A_PRIMARY_BANK_ACCOUNT), so a currency with accounts always has its primary.
 */
export function checkBankAccountDeletion(held: readonly HeldBankAccount[], account: HeldBankAccount): void {
  if (account.primary && held.some((other) => other.id !== account.id && other.currency === account.currency))
    throw mustHavePrimary(null);
}
