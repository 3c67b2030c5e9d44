import type { BankAccount } from '@kessai/db';
import { optionalField } from '@kessai/presenters';

/**
 * The BankAccount resource (the SDK's BankAccountItem). `account_number` is masked: its last four
 * only, behind a fixed run of asterisks that says nothing of its length; the number itself is never
 * answered after it was sent.
 */
export function presentBankAccount(account: BankAccount) {
  return {
    id: account.id,
    holder_name: account.holderName,
    bank_name: account.bankName,
    ...optionalField('branch_name', account.branchName),
    country: account.country,
    ...optionalField('bank_address', account.bankAddress),
    currency: account.currency,
    ...optionalField('routing_number', account.routingNumber),
    ...optionalField('swift_code', account.swiftCode),
    ...optionalField('ifsc_code', account.ifscCode),
    ...optionalField('routing_code', account.routingCode),
    last_four: account.lastFour,
    status: account.status,
    created_on: account.createdOn.toISOString(),
    primary: account.primary,
    account_number: `****${account.lastFour}`,
    account_type: account.accountType,
    // Kessai's own: the books it is paid from (a test account takes test payouts only)
    mode: account.mode,
  };
}
