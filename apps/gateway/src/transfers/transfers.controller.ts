import { Controller, Get, Param, Query } from '@nestjs/common';
import { TransfersService } from '@kessai/accounts';
import {
  presentLedger,
  presentTransfer,
  presentTransferListItem,
  presentTransferStatusChange,
} from '@kessai/presenters';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { parsePageRequest, presentPage } from '../http/pagination';
import { parseInput } from '../http/validation';
import { listLedgersSchema, listTransfersSchema } from './transfer.schemas';

/**
 * Transfers (api-reference §5.11; docs/ledger.md, "Payouts"), the SDK's transfers.list/get/
 * statusChanges and ledgers.list: a merchant's payouts, in its credential's mode, merchant
 * credentials only. The use cases are libs/accounts' TransfersService.
 */
@Controller('transfers')
export class TransfersController {
  constructor(private readonly transfers: TransfersService) {}

  @Get()
  async list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    const owner = this.transfers.ownerOf(principal);
    const page = parsePageRequest(query);
    const filters = parseInput(listTransfersSchema, query);
    const { rows, totalHits } = await this.transfers.list(owner, page, filters);
    return presentPage(rows, page, presentTransferListItem, totalHits);
  }

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentTransfer(await this.transfers.find(this.transfers.ownerOf(principal), id));
  }

  @Get(':id/status_changes')
  async statusChanges(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
  ) {
    const owner = this.transfers.ownerOf(principal);
    const page = parsePageRequest(query);
    return presentPage(
      await this.transfers.statusChanges(owner, id, page),
      page,
      presentTransferStatusChange,
    );
  }

  @Get(':transferId/ledgers')
  async ledgers(
    @CurrentPrincipal() principal: Principal,
    @Param('transferId') transferId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const owner = this.transfers.ownerOf(principal);
    const page = parsePageRequest(query);
    const filters = parseInput(listLedgersSchema, query);
    return presentPage(await this.transfers.ledgers(owner, transferId, page, filters), page, presentLedger);
  }
}

/** The SDK's ledgers.get: one ledger of the merchant's, whether a transfer pays it yet or not. */
@Controller('ledgers')
export class LedgersController {
  constructor(private readonly transfers: TransfersService) {}

  @Get(':id')
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return presentLedger(await this.transfers.findLedger(this.transfers.ownerOf(principal), id));
  }
}
