import { z } from 'zod';
import { BANK_ACCOUNT_TYPES } from '@kessai/domain';
import { currencySchema, reason } from '../http/request.schemas';

/**
 * Request schemas of the bank account routes (the SDK's BankAccountCreateParams, api-reference
 * §5.11), in wire (snake_case) form, with the SDK's validation reasons (INVALID_FORMAT_*).
 */

const text = (max: number) => z.string().trim().min(1).max(max);
const formatted = (pattern: RegExp, reasonName: string) =>
  z
    .string()
    .trim()
    .refine((value) => pattern.test(value), reason(reasonName))
    .transform((value) => value.toUpperCase());

/** 4 to 17 digits (a Japanese account has 7, a US one up to 17); spaces and hyphens are not kept. */
const accountNumber = z
  .string()
  .transform((value) => value.replace(/[\s-]/g, ''))
  .refine((value) => /^\d{4,17}$/.test(value), reason('INVALID_FORMAT_BANK_ACCOUNT_NUMBER'));

const country = formatted(/^[A-Za-z]{2}$/, 'INVALID_FORMAT_COUNTRY');
/** ABA: nine digits. */
const routingNumber = formatted(/^\d{9}$/, 'INVALID_FORMAT_ROUTING_NUMBER');
/** BIC: bank (4), country (2), location (2), branch (3, optional). */
const swiftCode = formatted(/^[A-Za-z]{6}[A-Za-z0-9]{2}(?:[A-Za-z0-9]{3})?$/, 'INVALID_FORMAT_SWIFT_CODE');
/** India's IFSC: four letters, a zero, six letters or digits (the SDK spells the reason IFCS). */
const ifscCode = formatted(/^[A-Za-z]{4}0[A-Za-z0-9]{6}$/, 'INVALID_FORMAT_IFCS_CODE');
/** A national bank and branch code (e.g. Japan's 4 + 3 digits, a UK sort code). */
const routingCode = formatted(/^[A-Za-z0-9-]{2,20}$/, 'INVALID_FORMAT_ROUTING_CODE');
const accountType = z.enum(BANK_ACCOUNT_TYPES);

const optionalFields = {
  branch_name: text(255).nullish(),
  bank_address: text(1_000).nullish(),
  routing_number: routingNumber.nullish(),
  swift_code: swiftCode.nullish(),
  ifsc_code: ifscCode.nullish(),
  routing_code: routingCode.nullish(),
  primary: z.boolean().optional(),
};

export const createBankAccountSchema = z
  .object({
    account_number: accountNumber,
    country,
    currency: currencySchema,
    holder_name: text(255),
    bank_name: text(255),
    account_type: accountType.default('checking'),
    ...optionalFields,
  })
  .strict();

/** Any field but `currency`, which stays the account's (a payout's currency is its account's). */
export const updateBankAccountSchema = z
  .object({
    account_number: accountNumber.optional(),
    country: country.optional(),
    holder_name: text(255).optional(),
    bank_name: text(255).optional(),
    account_type: accountType.optional(),
    ...optionalFields,
  })
  .strict();

/** `primary=true|false` filters the list; `currency` (Kessai's own) picks the primary of a currency. */
export const listBankAccountsSchema = z
  .object({ primary: z.enum(['true', 'false']).optional() })
  .passthrough()
  .transform((q) => ({ primary: q.primary === undefined ? undefined : q.primary === 'true' }));

export const primaryBankAccountSchema = z
  .object({ currency: currencySchema.optional() })
  .passthrough()
  .transform((q) => ({ currency: q.currency ?? null }));
