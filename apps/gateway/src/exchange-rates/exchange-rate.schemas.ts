import { z } from 'zod';
import { chargeAmountSchema, currencySchema } from '../http/request.schemas';

/** POST /exchange_rates/calculate (the SDK's ExchangeRateParams): minor units of `currency` into `to`. */
export const calculateExchangeRateSchema = z
  .object({ amount: chargeAmountSchema, currency: currencySchema, to: currencySchema })
  .strict()
  .transform((body) => ({ amount: BigInt(body.amount), currency: body.currency, to: body.to }));
