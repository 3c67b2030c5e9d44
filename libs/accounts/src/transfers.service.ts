import { Injectable } from '@nestjs/common';
import {
  TransfersRepository,
  type LedgerFilters,
  type LedgerRow,
  type Transfer,
  type TransferFilters,
  type TransferOwner,
  type TransferStatusChange,
  type TransferWithMerchant,
} from '@kessai/db';
import { isUuid, NotFoundError, PermissionError, type PageRequest } from '@kessai/domain';

/** Who may read transfers: merchant credentials only, in their mode (as bank accounts). */
export interface TransferActor {
  merchantId: string;
  storeId: string | null;
  mode: 'test' | 'live';
}

/**
 * Transfers and their ledgers as the merchant reads them (the SDK's transfers.list/get/
 * statusChanges and ledgers.list/get; docs/ledger.md, "Payouts"). A merchant's own, in its
 * credential's mode; a store credential gets 403, another merchant's transfer is 404.
 */
@Injectable()
export class TransfersService {
  constructor(private readonly transfers: TransfersRepository) {}

  ownerOf(actor: TransferActor): TransferOwner {
    if (actor.storeId !== null) throw new PermissionError('INVALID_PERMISSIONS');
    return { merchantId: actor.merchantId, mode: actor.mode };
  }

  list(
    owner: TransferOwner,
    page: PageRequest,
    filters: TransferFilters,
  ): Promise<{ rows: TransferWithMerchant[]; totalHits: number | null }> {
    return this.transfers.list(owner, page, filters);
  }

  async find(owner: TransferOwner, id: string): Promise<Transfer> {
    const transfer = isUuid(id) ? await this.transfers.find(owner, id.toLowerCase()) : null;
    if (!transfer) throw new NotFoundError('transfer');
    return transfer;
  }

  async statusChanges(owner: TransferOwner, id: string, page: PageRequest): Promise<TransferStatusChange[]> {
    const transfer = await this.find(owner, id);
    return this.transfers.statusChanges(transfer.id, page);
  }

  async ledgers(
    owner: TransferOwner,
    transferId: string,
    page: PageRequest,
    filters: LedgerFilters,
  ): Promise<LedgerRow[]> {
    const transfer = await this.find(owner, transferId);
    return this.transfers.ledgersOf(owner, transfer.id, page, filters);
  }

  async findLedger(owner: TransferOwner, id: string): Promise<LedgerRow> {
    const ledger = isUuid(id) ? await this.transfers.findLedger(owner, id.toLowerCase()) : null;
    if (!ledger) throw new NotFoundError('ledger');
    return ledger;
  }
}
