import { Injectable } from '@nestjs/common';
import type { ExchangeRate } from '../generated/prisma/client';
import { PrismaService } from '../prisma.service';

export type { ExchangeRate } from '../generated/prisma/client';

/** The operator's exchange rates (docs/exchange-rates.md): one per ordered pair, with who set it and when. */
@Injectable()
export class ExchangeRatesRepository {
  constructor(private readonly prisma: PrismaService) {}

  find(fromCurrency: string, toCurrency: string): Promise<ExchangeRate | null> {
    return this.prisma.exchangeRate.findUnique({
      where: { fromCurrency_toCurrency: { fromCurrency, toCurrency } },
    });
  }

  /** Sets (or replaces) a pair's rate, stamped with the operator's name and the time. */
  set(fromCurrency: string, toCurrency: string, rate: string, setBy: string): Promise<ExchangeRate> {
    const values = { rate, setBy, setOn: new Date() };
    return this.prisma.exchangeRate.upsert({
      where: { fromCurrency_toCurrency: { fromCurrency, toCurrency } },
      create: { fromCurrency, toCurrency, ...values },
      update: values,
    });
  }

  list(): Promise<ExchangeRate[]> {
    return this.prisma.exchangeRate.findMany({ orderBy: [{ fromCurrency: 'asc' }, { toCurrency: 'asc' }] });
  }
}
