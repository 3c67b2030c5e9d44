// The inputs of bank account management, as a front end parsed them (the gateway:
// bank-account.schemas.ts), with the API's field names (the SDK's BankAccountCreateParams). The
// rules between an account and the merchant's others are libs/domain's bank-accounts.ts.

import type { BankAccountType } from '@kessai/domain';

/** A bank account to create: `account_number` digits only, `country` and `currency` upper case. */
export interface BankAccountInput {
  account_number: string;
  country: string;
  currency: string;
  holder_name: string;
  bank_name: string;
  branch_name?: string | null;
  bank_address?: string | null;
  routing_number?: string | null;
  swift_code?: string | null;
  ifsc_code?: string | null;
  routing_code?: string | null;
  account_type: BankAccountType;
  primary?: boolean;
}

/** A bank account's changes (PATCH): any field but `currency` (a payout's currency is its account's). */
export type BankAccountChangesInput = Partial<Omit<BankAccountInput, 'currency'>>;
