import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ExchangeRatesService } from '@kessai/payments';
import { parseInput } from '../http/validation';
import { presentExchangeRate } from './exchange-rate.presenter';
import { calculateExchangeRateSchema } from './exchange-rate.schemas';

/**
 * exchangeRates.calculate (api-reference §5.11): an amount at the operator's rate for the pair
 * (docs/exchange-rates.md). Any app token with its secret, either mode: the rates are the operator's,
 * the same for every merchant.
 */
@Controller('exchange_rates')
export class ExchangeRatesController {
  constructor(private readonly rates: ExchangeRatesService) {}

  @Post('calculate')
  @HttpCode(200)
  async calculate(@Body() body: unknown) {
    const converted = await this.rates.calculate(parseInput(calculateExchangeRateSchema, body));
    return presentExchangeRate(converted);
  }
}
