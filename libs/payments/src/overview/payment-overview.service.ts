import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import {
  MerchantsRepository,
  PaymentOverviewRepository,
  type ChargeDay,
  type RefundDay,
  type StoreAccountBalance,
} from '@kessai/db';
import { NotFoundError, ValidationError } from '@kessai/domain';
import { effectiveConfiguration } from '@kessai/store-configuration';

/** The widest range one overview reads: a year and a day. */
export const MAX_OVERVIEW_DAYS = 366;
/** The range an overview reads when none is asked for: the last 30 days, today included. */
export const DEFAULT_OVERVIEW_DAYS = 30;

export interface OverviewRequest {
  merchantId: string;
  mode: 'test' | 'live';
  /** YYYY-MM-DD, the first day; DEFAULT_OVERVIEW_DAYS before `to` when absent */
  from?: string;
  /** YYYY-MM-DD, the last day (included); today in the merchant's time zone when absent */
  to?: string;
}

/** One day of a currency's successful charges or refunds (zero on a day without any). */
export interface DayTotal {
  day: string;
  count: bigint;
  amount: bigint;
}

/** Every day of the range for one currency, and the range's totals. */
export interface CurrencySeries {
  currency: string;
  days: DayTotal[];
  count: bigint;
  amount: bigint;
}

/** One day's finished charges: successful, and successful or not (the success rate's two sides). */
export interface DayOutcome {
  day: string;
  successful: bigint;
  finished: bigint;
}

/** What a store, or the merchant over all its stores, is owed in one currency (positive: owed). */
export interface OwedBalance {
  currency: string;
  /** not yet available to be paid out */
  pending: bigint;
  /** may be paid out (negative: carried forward) */
  available: bigint;
}

export interface StoreOwedBalances {
  storeId: string;
  storeName: string;
  balances: OwedBalance[];
}

export interface PaymentOverview {
  from: string;
  to: string;
  /** the merchant's time zone, the days' */
  timeZone: string;
  /** today in that time zone */
  today: string;
  /** every day of the range, in order */
  days: string[];
  /** successful charges per currency (never added across currencies) */
  charges: CurrencySeries[];
  /** successful refunds per currency */
  refunds: CurrencySeries[];
  /** finished charges per day, every currency (a rate has no currency) */
  outcomes: DayOutcome[];
  successful: bigint;
  finished: bigint;
  /** the merchant's stores' balances in the mode, summed per currency over the stores */
  balances: OwedBalance[];
  stores: StoreOwedBalances[];
}

/**
 * A merchant's overview (docs/console.md, "Overview"): its successful charges (count and volume),
 * success rate and refunds per day of a range of its own time zone, and what its stores are owed,
 * from the ledger's balance rows; one mode at a time. Shared by every front end that shows it.
 */
@Injectable()
export class PaymentOverviewService {
  constructor(
    private readonly merchants: MerchantsRepository,
    private readonly overview: PaymentOverviewRepository,
  ) {}

  async read(request: OverviewRequest): Promise<PaymentOverview> {
    const merchant = await this.merchants.findById(request.merchantId);
    if (!merchant) throw new NotFoundError('merchant');
    // the merchant's display time zone, the one its ledger's availability days are read in
    const timeZone = effectiveConfiguration(merchant.configuration).display_time_zone;
    const { from, to, today } = rangeOf(request, timeZone);
    const range = { merchantId: merchant.id, mode: request.mode, from, to, timeZone };
    const [chargeDays, refundDays, accounts] = await Promise.all([
      this.overview.chargeDays(range),
      this.overview.refundDays(range),
      this.overview.storeBalances(merchant.id, request.mode),
    ]);
    const days = daysOf(from, to);
    const outcomes = outcomesOf(days, chargeDays);
    return {
      from,
      to,
      timeZone,
      today,
      days,
      charges: seriesOf(
        days,
        chargeDays.map((row) => ({ ...row, count: row.successful })).filter((row) => row.count > 0n),
      ),
      refunds: seriesOf(days, refundDays),
      outcomes,
      successful: outcomes.reduce((sum, day) => sum + day.successful, 0n),
      finished: outcomes.reduce((sum, day) => sum + day.finished, 0n),
      ...balancesOf(accounts),
    };
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day as typed (YYYY-MM-DD), as a date of no time zone (UTC midnight). */
function dayOf(text: string | undefined, field: 'from' | 'to'): DateTime | undefined {
  if (text === undefined) return undefined;
  const day = DAY.test(text) ? DateTime.fromISO(text, { zone: 'UTC' }) : null;
  if (!day?.isValid) throw ValidationError.field(field, 'INVALID_FORMAT_DATE');
  return day;
}

/**
 * The range asked for; a missing end is today in `timeZone` (or DEFAULT_OVERVIEW_DAYS after the
 * start, when sooner), a missing start DEFAULT_OVERVIEW_DAYS before the end. Refused when it ends
 * before it starts or spans more than MAX_OVERVIEW_DAYS.
 */
function rangeOf(request: OverviewRequest, timeZone: string): { from: string; to: string; today: string } {
  const today = DateTime.fromISO(DateTime.now().setZone(timeZone).toISODate()!, { zone: 'UTC' });
  const askedFrom = dayOf(request.from, 'from');
  const askedTo = dayOf(request.to, 'to');
  const to =
    askedTo ?? (askedFrom ? DateTime.min(askedFrom.plus({ days: DEFAULT_OVERVIEW_DAYS - 1 }), today) : today);
  const from = askedFrom ?? to.minus({ days: DEFAULT_OVERVIEW_DAYS - 1 });
  if (from > to) throw ValidationError.field('to', 'NOT_WITHIN_BOUNDS');
  if (to.diff(from, 'days').days + 1 > MAX_OVERVIEW_DAYS)
    throw ValidationError.field('from', 'NOT_WITHIN_BOUNDS');
  return { from: from.toISODate()!, to: to.toISODate()!, today: today.toISODate()! };
}

function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const last = DateTime.fromISO(to, { zone: 'UTC' });
  for (let day = DateTime.fromISO(from, { zone: 'UTC' }); day <= last; day = day.plus({ days: 1 }))
    days.push(day.toISODate()!);
  return days;
}

/** Rows of (day, currency, count, amount) as one series per currency over every day of the range. */
function seriesOf(
  days: string[],
  rows: Pick<RefundDay, 'day' | 'currency' | 'count' | 'amount'>[],
): CurrencySeries[] {
  const byCurrency = new Map<string, Map<string, DayTotal>>();
  for (const row of rows) {
    const currency = byCurrency.get(row.currency) ?? new Map<string, DayTotal>();
    currency.set(row.day, { day: row.day, count: row.count, amount: row.amount });
    byCurrency.set(row.currency, currency);
  }
  return [...byCurrency.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, totals]) => {
      const series = days.map((day) => totals.get(day) ?? { day, count: 0n, amount: 0n });
      return {
        currency,
        days: series,
        count: series.reduce((sum, day) => sum + day.count, 0n),
        amount: series.reduce((sum, day) => sum + day.amount, 0n),
      };
    });
}

function outcomesOf(days: string[], rows: ChargeDay[]): DayOutcome[] {
  const byDay = new Map<string, DayOutcome>();
  for (const row of rows) {
    const day = byDay.get(row.day) ?? { day: row.day, successful: 0n, finished: 0n };
    day.successful += row.successful;
    day.finished += row.successful + row.unsuccessful;
    byDay.set(row.day, day);
  }
  return days.map((day) => byDay.get(day) ?? { day, successful: 0n, finished: 0n });
}

/**
 * The accounts' balances as what is owed (the ledger signs a store's side negative: owed), per
 * store and summed over the stores per currency; the rows are the materialized balances, no entry
 * is read.
 */
function balancesOf(accounts: StoreAccountBalance[]): Pick<PaymentOverview, 'balances' | 'stores'> {
  const totals = new Map<string, OwedBalance>();
  const stores = new Map<string, StoreOwedBalances>();
  const add = (into: Map<string, OwedBalance>, account: StoreAccountBalance) => {
    const balance = into.get(account.currency) ?? { currency: account.currency, pending: 0n, available: 0n };
    if (account.kind === 'store_pending') balance.pending -= account.balance;
    else balance.available -= account.balance;
    into.set(account.currency, balance);
  };
  const perStore = new Map<string, Map<string, OwedBalance>>();
  for (const account of accounts) {
    add(totals, account);
    const own = perStore.get(account.storeId) ?? new Map<string, OwedBalance>();
    add(own, account);
    perStore.set(account.storeId, own);
    stores.set(account.storeId, { storeId: account.storeId, storeName: account.storeName, balances: [] });
  }
  const sorted = (map: Map<string, OwedBalance>) =>
    [...map.values()].sort((a, b) => a.currency.localeCompare(b.currency));
  return {
    balances: sorted(totals),
    stores: [...stores.values()].map((store) => ({
      ...store,
      balances: sorted(perStore.get(store.storeId)!),
    })),
  };
}
