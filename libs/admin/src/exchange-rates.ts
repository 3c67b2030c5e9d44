import type { ExchangeRate, ExchangeRatesRepository } from '@kessai/db';
import { isKnownCurrency, normalizeExchangeRate } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * The operator's exchange rates (docs/exchange-rates.md): one rate per ordered pair, units of `to`
 * per unit of `from` in major units, as a plain decimal (up to 12 places), stamped with who set it
 * and when. They are the operator's figures, not a market feed: exchangeRates.calculate answers with
 * them as they stand.
 */
export async function setExchangeRate(
  repositories: { exchangeRates: ExchangeRatesRepository },
  input: { from: string; to: string; rate: string; by: string },
) {
  const from = currencyOf(input.from, 'from');
  const to = currencyOf(input.to, 'to');
  if (from === to) throw new AdminError('--from and --to must be two currencies');
  const rate = normalizeExchangeRate(input.rate.trim());
  if (rate === null)
    throw new AdminError('--rate must be a positive decimal, e.g. 0.0067 (up to 18 digits, 12 decimals)');
  const by = input.by.trim();
  if (!by) throw new AdminError('--by is required');
  return describeExchangeRate(await repositories.exchangeRates.set(from, to, rate, by));
}

export async function listExchangeRates(repositories: { exchangeRates: ExchangeRatesRepository }) {
  return (await repositories.exchangeRates.list()).map(describeExchangeRate);
}

function currencyOf(code: string, flag: string): string {
  const upper = code.trim().toUpperCase();
  if (!isKnownCurrency(upper)) throw new AdminError(`--${flag} must be an ISO 4217 currency code`);
  return upper;
}

function describeExchangeRate(rate: ExchangeRate) {
  return {
    from: rate.fromCurrency,
    to: rate.toCurrency,
    rate: rate.rate,
    set_by: rate.setBy,
    set_on: rate.setOn.toISOString(),
  };
}
