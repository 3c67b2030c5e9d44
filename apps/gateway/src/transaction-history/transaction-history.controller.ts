import { Controller, Get, Param, Query } from '@nestjs/common';
import { CurrentPrincipal } from '../auth/decorators';
import type { Principal } from '../auth/principal';
import { TransactionHistoryService } from './transaction-history.service';

/** GET (/stores/{storeId})/transaction_history (api-reference §5.6): needs a secret-bearing app token. */
@Controller()
export class TransactionHistoryController {
  constructor(private readonly history: TransactionHistoryService) {}

  @Get('transaction_history')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>) {
    return this.history.list(principal, null, query);
  }

  @Get('stores/:storeId/transaction_history')
  listForStore(
    @CurrentPrincipal() principal: Principal,
    @Param('storeId') storeId: string,
    @Query() query: Record<string, unknown>,
  ) {
    return this.history.list(principal, storeId, query);
  }
}
