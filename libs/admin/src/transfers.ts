import type { PayoutsRepository, Transfer, TransfersRepository } from '@kessai/db';
import { isUuid, TRANSFER_STATUSES, type TransferStatus } from '@kessai/domain';
import { AdminError } from './admin.service';

interface Repositories {
  payouts: PayoutsRepository;
  transfers: TransfersRepository;
}

type OperatorTransfer = Transfer & {
  bankAccount: { status: string; deletedOn: Date | null; lastFour: string };
};

/**
 * The operator's side of transfers (docs/ledger.md, "Approving and canceling"): the list, the
 * approval of a live transfer (the approval rule), and a cancel, which gives the money back to the
 * merchant's available balance (its ledgers are paid on the next payout day).
 */
export async function listTransfers(
  repositories: Repositories,
  filters: { merchantId?: string; mode?: 'test' | 'live'; status?: string; limit: number },
) {
  if (filters.status !== undefined && !(TRANSFER_STATUSES as readonly string[]).includes(filters.status))
    throw new AdminError(`--status must be one of ${TRANSFER_STATUSES.join(', ')}`);
  if (filters.merchantId !== undefined && !isUuid(filters.merchantId))
    throw new AdminError('--merchant must be a merchant id');
  const rows = await repositories.transfers.listForOperator({
    ...filters,
    status: filters.status as TransferStatus | undefined,
  });
  return rows.map(describeTransfer);
}

/**
 * The approval rule: only a live transfer waits for an operator (a test one is approved at
 * creation), only while `created`, and only to a bank account still verified and not deleted; the
 * operator's name is recorded with the change.
 */
export async function approveTransfer(repositories: Repositories, id: string, by: string) {
  const transfer = await operatorTransfer(repositories, id);
  if (transfer.mode !== 'live')
    throw new AdminError(`transfer ${transfer.id} is a ${transfer.mode} transfer: approved at creation`);
  if (transfer.bankAccount.status !== 'verified' || transfer.bankAccount.deletedOn !== null)
    throw new AdminError(
      `transfer ${transfer.id}: its bank account is ${transfer.bankAccount.deletedOn ? 'deleted' : transfer.bankAccount.status}; cancel it (its money is paid on the next payout day)`,
    );
  return change(repositories, transfer, 'approved', `approved by ${by}`, by);
}

/** A transfer not yet sent to the bank (created or approved) canceled: its money available again. */
export async function cancelTransfer(repositories: Repositories, id: string, by: string, reason: string) {
  const transfer = await operatorTransfer(repositories, id);
  return change(repositories, transfer, 'canceled', reason, by);
}

async function operatorTransfer(repositories: Repositories, id: string): Promise<OperatorTransfer> {
  const transfer = isUuid(id) ? await repositories.transfers.findForOperator(id.toLowerCase()) : null;
  if (!transfer) throw new AdminError(`no transfer ${id}`);
  return transfer;
}

async function change(
  repositories: Repositories,
  transfer: OperatorTransfer,
  to: TransferStatus,
  reason: string,
  by: string,
) {
  const result = await repositories.payouts.changeStatus(transfer.id, { to, reason, by: `operator:${by}` });
  if (result.outcome === 'refused' || result.outcome === 'already')
    throw new AdminError(`transfer ${transfer.id} is ${result.status}: it cannot be ${to}`);
  if (result.outcome === 'not_found') throw new AdminError(`no transfer ${transfer.id}`);
  return describeTransfer((await repositories.transfers.findForOperator(transfer.id))!);
}

function describeTransfer(transfer: OperatorTransfer) {
  return {
    id: transfer.id,
    merchant_id: transfer.merchantId,
    mode: transfer.mode,
    currency: transfer.currency,
    amount: Number(transfer.amount),
    status: transfer.status,
    payout_day: transfer.payoutDay.toISOString().slice(0, 10),
    bank_account_id: transfer.bankAccountId,
    bank_account: { last_four: transfer.bankAccount.lastFour, status: transfer.bankAccount.status },
    error_code: transfer.errorCode,
    created_on: transfer.createdOn.toISOString(),
  };
}
