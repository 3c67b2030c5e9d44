/**
 * Amounts travel as integers in the currency's minor units (JPY 1200 is ¥1,200, USD 1250 is $12.50);
 * `*_formatted` fields show them in major units. The exponent is ISO 4217's "minor unit".
 */

/** ISO 4217 currencies without minor units. */
const ZERO_DECIMAL = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
/** ISO 4217 currencies with three decimals. */
const THREE_DECIMAL = 'BHD IQD JOD KWD LYD OMR TND';
/** The other active ISO 4217 currencies (two decimals). */
const TWO_DECIMAL =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD ' +
  'CDF CHF CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD ' +
  'HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD ' +
  'MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON ' +
  'RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD ' +
  'TZS UAH USD UYU UZS VES WST XCD YER ZAR ZMW ZWL';

const EXPONENTS: ReadonlyMap<string, number> = new Map([
  ...ZERO_DECIMAL.split(' ').map((code) => [code, 0] as const),
  ...TWO_DECIMAL.split(' ').map((code) => [code, 2] as const),
  ...THREE_DECIMAL.split(' ').map((code) => [code, 3] as const),
]);

/** Every active ISO 4217 currency Kessai takes charges in, alphabetically. */
export const KNOWN_CURRENCIES: readonly string[] = [...EXPONENTS.keys()].sort();

/** Whether `code` is an active ISO 4217 currency (upper case). */
export function isKnownCurrency(code: string): boolean {
  return EXPONENTS.has(code);
}

/** Digits after the decimal point in the currency's major unit; 2 for a code we do not know. */
export function currencyExponent(code: string): number {
  return EXPONENTS.get(code.toUpperCase()) ?? 2;
}

/** A minor-unit amount in major units, as the API's `*_formatted` fields show it (USD 1250 → 12.5). */
export function formatAmount(amount: bigint | number, currency: string): number {
  return Number(amount) / 10 ** currencyExponent(currency);
}

/**
 * The largest amount accepted, in minor units (well inside a JSON number's exact range): a charge's,
 * a refund's; every front end's bound.
 */
export const MAX_CHARGE_AMOUNT = 9_999_999_999;
