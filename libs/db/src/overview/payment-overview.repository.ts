import { Injectable } from '@nestjs/common';
import type { LedgerAccountKind, ProcessingMode } from '../generated/prisma/enums';
import { PrismaService } from '../prisma.service';
import { OVERVIEW_CHARGE_DAYS, OVERVIEW_REFUND_DAYS, OVERVIEW_STORE_BALANCES } from './payment-overview.sql';

/** A range of local calendar days (both included) in a time zone, of one merchant in one mode. */
export interface OverviewRange {
  merchantId: string;
  mode: ProcessingMode;
  /** YYYY-MM-DD, the first day */
  from: string;
  /** YYYY-MM-DD, the last day (included) */
  to: string;
  /** IANA time zone the days are read in */
  timeZone: string;
}

/** One local day's charges of one currency. */
export interface ChargeDay {
  day: string;
  currency: string;
  successful: bigint;
  /** the successful charges' charged amount, minor units */
  amount: bigint;
  /** failed, error and canceled charges */
  unsuccessful: bigint;
}

/** One local day's successful refunds of one currency. */
export interface RefundDay {
  day: string;
  currency: string;
  count: bigint;
  amount: bigint;
}

/** One account of a store as the ledger holds it (signed: negative is owed to the store). */
export interface StoreAccountBalance {
  storeId: string;
  storeName: string;
  currency: string;
  kind: Extract<LedgerAccountKind, 'store_pending' | 'store_available'>;
  balance: bigint;
}

/** The reads of a merchant's overview (payment-overview.sql.ts): one grouped statement each. */
@Injectable()
export class PaymentOverviewRepository {
  constructor(private readonly prisma: PrismaService) {}

  async chargeDays(range: OverviewRange): Promise<ChargeDay[]> {
    return this.prisma.run(OVERVIEW_CHARGE_DAYS, range);
  }

  async refundDays(range: OverviewRange): Promise<RefundDay[]> {
    return this.prisma.run(OVERVIEW_REFUND_DAYS, range);
  }

  async storeBalances(merchantId: string, mode: ProcessingMode): Promise<StoreAccountBalance[]> {
    const rows = await this.prisma.run(OVERVIEW_STORE_BALANCES, { merchantId, mode });
    return rows.map((row) => ({
      storeId: row.store_id,
      storeName: row.store_name,
      currency: row.currency,
      kind: row.kind === 'store_pending' ? 'store_pending' : 'store_available',
      balance: row.balance,
    }));
  }
}
