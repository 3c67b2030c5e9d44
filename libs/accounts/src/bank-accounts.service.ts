import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  BankAccountsRepository,
  type BankAccount,
  type BankAccountChanges,
  type BankAccountOwner,
} from '@kessai/db';
import {
  checkBankAccountDeletion,
  initialBankAccountStatus,
  isUuid,
  NotFoundError,
  PermissionError,
  planBankAccountChange,
  planNewBankAccount,
  ValidationError,
  type PageRequest,
} from '@kessai/domain';
import { BankAccountCipher } from '@kessai/vault';
import type { BankAccountChangesInput, BankAccountInput } from './bank-account-inputs';

/** Who may manage bank accounts: merchant credentials only, in their mode. */
export interface BankAccountActor {
  merchantId: string;
  storeId: string | null;
  mode: 'test' | 'live';
}

/**
 * Bank accounts (the SDK's bankAccounts.*; docs/ledger.md, "Bank accounts"; decision 0032): where
 * a merchant's payouts go, one set per mode. The account number is encrypted at rest
 * (BankAccountCipher, bound to the account's id) and recognised by its fingerprint; answers are
 * rows, which carry its last four only. A test-mode account is verified at once, a live one waits
 * for the operator (`verify`). The primary rules are libs/domain's, decided under the owner's lock.
 */
@Injectable()
export class BankAccountsService {
  constructor(
    private readonly accounts: BankAccountsRepository,
    private readonly cipher: BankAccountCipher,
  ) {}

  /** Whose accounts a caller addresses: its merchant's in its mode; a store credential gets 403. */
  ownerOf(actor: BankAccountActor): BankAccountOwner {
    if (actor.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return { merchantId: actor.merchantId, mode: actor.mode };
  }

  create(owner: BankAccountOwner, input: BankAccountInput): Promise<BankAccount> {
    const id = randomUUID();
    const sealed = this.cipher.encrypt(input.account_number, identityOf(input), id);
    return this.accounts.create(
      owner,
      {
        id,
        merchantId: owner.merchantId,
        mode: owner.mode,
        holderName: input.holder_name,
        bankName: input.bank_name,
        branchName: input.branch_name ?? null,
        bankAddress: input.bank_address ?? null,
        country: input.country,
        currency: input.currency,
        routingNumber: input.routing_number ?? null,
        swiftCode: input.swift_code ?? null,
        ifscCode: input.ifsc_code ?? null,
        routingCode: input.routing_code ?? null,
        accountType: input.account_type,
        ...sealed,
        status: initialBankAccountStatus(owner.mode),
      },
      (held) =>
        planNewBankAccount(held, {
          currency: input.currency,
          fingerprint: sealed.fingerprint,
          primary: input.primary,
        }),
    );
  }

  list(owner: BankAccountOwner, page: PageRequest, primary?: boolean): Promise<BankAccount[]> {
    return this.accounts.list(owner, page, primary);
  }

  /** An account of the owner; a malformed id is the same 404 as an unknown one. */
  async find(owner: BankAccountOwner, id: string): Promise<BankAccount> {
    const account = isUuid(id) ? await this.accounts.find(owner, id.toLowerCase()) : null;
    if (!account) throw new NotFoundError('bank_account');
    return account;
  }

  /**
   * The primary account (GET /bank_accounts/primary): of `currency` when given (Kessai's own query
   * parameter), else the owner's only one. With primaries in several currencies and no `currency`,
   * 400 VALIDATION_ERROR (currency REQUIRED_VALUE); with none, 404 PRIMARY_BANK_ACCOUNT_NOT_FOUND.
   */
  async findPrimary(owner: BankAccountOwner, currency: string | null): Promise<BankAccount> {
    const primaries = await this.accounts.findPrimaries(owner, currency);
    if (primaries.length === 0) throw new NotFoundError('bank_account', 'PRIMARY_BANK_ACCOUNT_NOT_FOUND');
    if (primaries.length > 1) throw ValidationError.field('currency', 'REQUIRED_VALUE');
    return primaries[0];
  }

  /**
   * A change. A new number, country, bank or branch is encrypted and fingerprinted again, and the
   * account is verified again (at once in test mode, by the operator in live mode).
   */
  async update(owner: BankAccountOwner, id: string, input: BankAccountChangesInput): Promise<BankAccount> {
    const current = await this.find(owner, id);
    const changes: BankAccountChanges = {
      ...(input.holder_name !== undefined ? { holderName: input.holder_name } : {}),
      ...(input.bank_name !== undefined ? { bankName: input.bank_name } : {}),
      ...(input.branch_name !== undefined ? { branchName: input.branch_name } : {}),
      ...(input.bank_address !== undefined ? { bankAddress: input.bank_address } : {}),
      ...(input.country !== undefined ? { country: input.country } : {}),
      ...(input.routing_number !== undefined ? { routingNumber: input.routing_number } : {}),
      ...(input.swift_code !== undefined ? { swiftCode: input.swift_code } : {}),
      ...(input.ifsc_code !== undefined ? { ifscCode: input.ifsc_code } : {}),
      ...(input.routing_code !== undefined ? { routingCode: input.routing_code } : {}),
      ...(input.account_type !== undefined ? { accountType: input.account_type } : {}),
    };
    const identityChanged =
      input.account_number !== undefined ||
      input.country !== undefined ||
      input.bank_name !== undefined ||
      input.branch_name !== undefined;
    let fingerprint: string | undefined;
    if (identityChanged) {
      const identity = {
        country: changes.country ?? current.country,
        bankName: changes.bankName ?? current.bankName,
        branchName: changes.branchName !== undefined ? changes.branchName : current.branchName,
      };
      const accountNumber = input.account_number ?? this.cipher.decrypt(current, current.id);
      fingerprint = this.cipher.fingerprint(accountNumber, identity);
      if (fingerprint !== current.fingerprint) {
        Object.assign(changes, this.cipher.encrypt(accountNumber, identity, current.id), {
          status: initialBankAccountStatus(owner.mode),
        });
      }
    }
    const updated = await this.accounts.update(owner, current.id, changes, (held, account) =>
      planBankAccountChange(held, account, { fingerprint, primary: input.primary }),
    );
    if (!updated) throw new NotFoundError('bank_account');
    return updated;
  }

  async delete(owner: BankAccountOwner, id: string): Promise<void> {
    const deleted = isUuid(id)
      ? await this.accounts.delete(owner, id.toLowerCase(), checkBankAccountDeletion)
      : false;
    if (!deleted) throw new NotFoundError('bank_account');
  }
}

function identityOf(input: Pick<BankAccountInput, 'country' | 'bank_name' | 'branch_name'>) {
  return { country: input.country, bankName: input.bank_name, branchName: input.branch_name ?? null };
}
