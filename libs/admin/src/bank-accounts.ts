import type { BankAccount, BankAccountsRepository } from '@kessai/db';
import {
  BANK_ACCOUNT_VERIFICATION_OUTCOMES,
  isUuid,
  type BankAccountVerificationOutcome,
} from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * The operator's side of bank accounts (docs/ledger.md, "Bank accounts"): a merchant's accounts of
 * every mode, and the outcome of a live account's verification (a test-mode account is verified at
 * creation). Account numbers show as their last four only, here too.
 */
export async function listBankAccounts(
  repositories: { bankAccounts: BankAccountsRepository },
  merchantId: string,
) {
  return (await repositories.bankAccounts.listForOperator(merchantId)).map(describeBankAccount);
}

export async function verifyBankAccount(
  repositories: { bankAccounts: BankAccountsRepository },
  id: string,
  outcome: string,
) {
  if (!(BANK_ACCOUNT_VERIFICATION_OUTCOMES as readonly string[]).includes(outcome))
    throw new AdminError(`--status must be one of ${BANK_ACCOUNT_VERIFICATION_OUTCOMES.join(', ')}`);
  const account = isUuid(id)
    ? await repositories.bankAccounts.setStatus(id.toLowerCase(), outcome as BankAccountVerificationOutcome)
    : null;
  if (!account)
    throw new AdminError(`no live bank account ${id} (test-mode accounts are verified at creation)`);
  return describeBankAccount(account);
}

function describeBankAccount(account: BankAccount) {
  return {
    id: account.id,
    merchant_id: account.merchantId,
    mode: account.mode,
    holder_name: account.holderName,
    bank_name: account.bankName,
    branch_name: account.branchName,
    country: account.country,
    currency: account.currency,
    last_four: account.lastFour,
    status: account.status,
    primary: account.primary,
    created_on: account.createdOn.toISOString(),
    deleted_on: account.deletedOn?.toISOString() ?? null,
  };
}
