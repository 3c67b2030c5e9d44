import { formatAmount } from '@kessai/domain';

/** The SDK's ExchangeRateItem (amount, currency), with Kessai's `amount_formatted` beside it. */
export function presentExchangeRate(converted: { amount: bigint; currency: string }) {
  return {
    amount: Number(converted.amount),
    currency: converted.currency,
    amount_formatted: formatAmount(converted.amount, converted.currency),
  };
}
