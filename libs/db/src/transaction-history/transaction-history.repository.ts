import { Injectable } from '@nestjs/common';
import { unknownCursor, ValidationError, type ChargeStatus, type PageRequest } from '@kessai/domain';
import type { ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';
import {
  FIND_TRANSACTION_HISTORY_CURSOR,
  LIST_TRANSACTION_HISTORY,
  type TransactionHistoryParams,
  type TransactionHistoryRow,
} from './transaction-history.sql';
import type { AccessScope } from '../scope';

export type { TransactionHistoryRow };

export type TransactionType = 'charge' | 'refund';

export interface TransactionHistoryFilters {
  type: TransactionType | null;
  /** a ChargeStatus; refunds have four of them (pending, successful, failed, error) */
  status: ChargeStatus | null;
  mode: ProcessingMode | null;
  /** created_on ≥ from */
  from: Date | null;
  /** created_on < to */
  to: Date | null;
}

/** A point of the (created_on, id) order; ±Infinity for an open side. */
interface Bound {
  time: number;
  id: string;
}

/** the least uuid: (t, NIL) lies before every row of instant t, so bounds at an instant are exact */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const OPEN_BELOW: Bound = { time: -Infinity, id: NIL_UUID };
const OPEN_ABOVE: Bound = { time: Infinity, id: NIL_UUID };

/** lower-case uuid text sorts as Postgres sorts uuids (byte by byte) */
function compare(a: Bound, b: Bound): number {
  if (a.time !== b.time) return a.time < b.time ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

const instant = (time: number) =>
  time === Infinity ? 'infinity' : time === -Infinity ? '-infinity' : new Date(time).toISOString();

/**
 * Charges and refunds as one ledger (docs/transaction-history.md). The cursor is the resource id of
 * the last item seen, looked up in both tables within the same scope as the list.
 */
@Injectable()
export class TransactionHistoryRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** `limit + 1` rows after the cursor in the page's direction (toPage makes the page of them). */
  async list(
    scope: AccessScope,
    filters: TransactionHistoryFilters,
    page: PageRequest,
  ): Promise<TransactionHistoryRow[]> {
    const cursor = page.cursor === null ? null : await this.findCursor(scope, page.cursor);
    // created_on ≥ from  ⇔  (created_on, id) > (from, NIL);  created_on < to  ⇔  (created_on, id) < (to, NIL)
    let lower = filters.from ? { time: filters.from.getTime(), id: NIL_UUID } : OPEN_BELOW;
    let upper = filters.to ? { time: filters.to.getTime(), id: NIL_UUID } : OPEN_ABOVE;
    if (cursor && page.direction === 'desc' && compare(cursor, upper) < 0) upper = cursor;
    if (cursor && page.direction === 'asc' && compare(cursor, lower) > 0) lower = cursor;

    const params: TransactionHistoryParams = {
      merchantId: scope.merchantId,
      includeCharges: filters.type !== 'refund',
      includeRefunds: filters.type !== 'charge',
      status: filters.status,
      mode: filters.mode,
      lowerOn: instant(lower.time),
      lowerId: lower.id,
      upperOn: instant(upper.time),
      upperId: upper.id,
      take: page.limit + 1,
    };
    return scope.storeId === null
      ? this.prisma.run(LIST_TRANSACTION_HISTORY.merchant[page.direction], params)
      : this.prisma.run(LIST_TRANSACTION_HISTORY.store[page.direction], {
          ...params,
          storeId: scope.storeId,
        });
  }

  private async findCursor(scope: AccessScope, id: string): Promise<Bound> {
    const rows = await this.prisma.run(FIND_TRANSACTION_HISTORY_CURSOR, {
      merchantId: scope.merchantId,
      storeId: scope.storeId,
      id,
    });
    if (rows.length === 0) throw unknownCursor();
    // a charge and a refund of one id (two random v4 uuids alike): the cursor would not say which
    if (rows.length > 1) throw ValidationError.field('cursor', 'AMBIGUOUS');
    return { time: rows[0].created_on.getTime(), id };
  }
}
