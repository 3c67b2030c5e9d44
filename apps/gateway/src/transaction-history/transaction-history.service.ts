import { Injectable } from '@nestjs/common';
import { StoresRepository, TransactionHistoryRepository, type AccessScope } from '@kessai/db';
import { NotFoundError, isUuid } from '@kessai/domain';
import { parsePageRequest, presentPage } from '../http/pagination';
import type { Principal } from '../auth/principal';
import { parseInput } from '../http/validation';
import { listTransactionHistorySchema } from './transaction-history.schemas';
import { presentTransaction } from './transaction.presenter';

/** The transaction history (docs/transaction-history.md): charges and refunds as one ledger. */
@Injectable()
export class TransactionHistoryService {
  constructor(
    private readonly history: TransactionHistoryRepository,
    private readonly stores: StoresRepository,
  ) {}

  /**
   * `storeId` from the path, or null for GET /transaction_history (a store token's own store, a
   * merchant token's every store). Another merchant's store, or another store than a store token's,
   * is 404 as an unknown one.
   */
  async list(principal: Principal, storeId: string | null, query: Record<string, unknown>) {
    const page = parsePageRequest(query);
    const filters = parseInput(listTransactionHistorySchema, query);
    let scope: AccessScope = { merchantId: principal.merchantId, storeId: principal.storeId };
    if (storeId !== null) {
      if (!isUuid(storeId) || !(await this.stores.findVisible(principal, storeId))) {
        throw new NotFoundError('store');
      }
      scope = { merchantId: principal.merchantId, storeId };
    }
    const rows = await this.history.list(scope, filters, page);
    return presentPage(rows, page, presentTransaction);
  }
}
