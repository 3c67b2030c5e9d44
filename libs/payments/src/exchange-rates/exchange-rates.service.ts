import { Injectable } from '@nestjs/common';
import { ExchangeRatesRepository } from '@kessai/db';
import { BusinessRuleError, convertAmount } from '@kessai/domain';

/** An amount to convert: minor units of `currency` into `to` (both upper case ISO 4217). */
export interface ExchangeRateRequest {
  amount: bigint;
  currency: string;
  to: string;
}

/**
 * exchangeRates.calculate (docs/exchange-rates.md): an amount at the operator's rate for the pair
 * (`exchange-rate:set`), never a market feed. The same currency answers the amount itself; a pair the
 * operator set no rate for is 400 UNSUPPORTED_CURRENCY on `to`. Only the pair asked for is used (no
 * inverse, no path through a third currency): the operator says each rate it stands behind.
 */
@Injectable()
export class ExchangeRatesService {
  constructor(private readonly rates: ExchangeRatesRepository) {}

  async calculate(request: ExchangeRateRequest): Promise<{ amount: bigint; currency: string }> {
    if (request.currency === request.to) return { amount: request.amount, currency: request.to };
    const rate = await this.rates.find(request.currency, request.to);
    if (!rate)
      throw new BusinessRuleError('UNSUPPORTED_CURRENCY', [{ field: 'to', reason: 'UNSUPPORTED_CURRENCY' }]);
    return {
      amount: convertAmount(request.amount, request.currency, request.to, rate.rate),
      currency: request.to,
    };
  }
}
