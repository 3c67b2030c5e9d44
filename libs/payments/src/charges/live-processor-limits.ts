import { APP_CONFIG, type AppConfig } from '@kessai/config';
import { KOMOJU_CAPABILITIES, STRIPE_CAPABILITIES } from '@kessai/processor';

/**
 * What the live processor cannot take, for a live charge to be refused at creation with
 * NOT_SUPPORTED_BY_PROCESSOR rather than accepted to end `error` (docs/connectors.md,
 * "Unsupported"). null: the live processor speaks the simulator's protocol and takes everything.
 */
export interface LiveProcessorLimits {
  processor: string;
  /** the payment types it takes */
  paymentTypes: readonly string[];
  /** the three_ds modes it cannot honour */
  refusedThreeDsModes: readonly string[];
  /** whether it captures less than the authorization (false: a capture takes the whole of it) */
  partialCapture: boolean;
  /** the konbini chains it takes (the API's names); null: all of them */
  konbiniStores: readonly string[] | null;
  /** the online brands it takes (the API's OnlineBrand), each in the currencies listed; null: all of them */
  onlineBrands: Readonly<Record<string, readonly string[]>> | null;
  /** whether it takes a card token's own 3-D Secure (a 1-yen hold the cardholder authenticates; decision 0079) */
  tokenThreeDs: boolean;
  /** whether it takes a hold of 1 (minor unit) and its void: a card token's CVV authorization (decisions 0064, 0079) */
  smallestHold: boolean;
}

export const LIVE_PROCESSOR_LIMITS = Symbol('LIVE_PROCESSOR_LIMITS');

export function liveProcessorLimitsOf(config: Pick<AppConfig, 'PROCESSOR_LIVE'>): LiveProcessorLimits | null {
  return processorLimitsOf(config.PROCESSOR_LIVE);
}

/**
 * What a provider cannot take: `komoju` and `stripe` (PROCESSOR_LIVE's values, and a processor
 * account's provider); null for the simulator's protocol (`http`, `simulator`), which takes everything.
 */
export function processorLimitsOf(provider: string): LiveProcessorLimits | null {
  if (provider === 'stripe') {
    return {
      processor: 'stripe',
      paymentTypes: STRIPE_CAPABILITIES.bankTransfer
        ? ['card', 'konbini', 'bank_transfer']
        : ['card', 'konbini'],
      refusedThreeDsModes: STRIPE_CAPABILITIES.threeDsRequests ? [] : ['require', 'force'],
      partialCapture: STRIPE_CAPABILITIES.partialCapture,
      konbiniStores: STRIPE_CAPABILITIES.konbiniStores,
      onlineBrands: currenciesByBrand(STRIPE_CAPABILITIES.onlineBrands),
      tokenThreeDs: STRIPE_CAPABILITIES.tokenThreeDs,
      smallestHold: STRIPE_CAPABILITIES.smallestHold,
    };
  }
  if (provider !== 'komoju') return null;
  const komojuTypes = KOMOJU_CAPABILITIES.bankTransfer
    ? ['card', 'konbini', 'bank_transfer']
    : ['card', 'konbini'];
  return {
    processor: 'komoju',
    // online: the brands of onlineBrands only (PayPay); QR codes, scanned or shown, are not taken
    paymentTypes: KOMOJU_CAPABILITIES.operatorPayments ? [...komojuTypes, 'online'] : komojuTypes,
    refusedThreeDsModes: KOMOJU_CAPABILITIES.threeDsRequests ? [] : ['require', 'force'],
    partialCapture: KOMOJU_CAPABILITIES.partialCapture,
    konbiniStores: KOMOJU_CAPABILITIES.konbiniStores,
    onlineBrands: currenciesByBrand(KOMOJU_CAPABILITIES.onlineBrands),
    tokenThreeDs: KOMOJU_CAPABILITIES.tokenThreeDs,
    smallestHold: KOMOJU_CAPABILITIES.smallestHold,
  };
}

function currenciesByBrand(
  brands: Readonly<Record<string, { currencies: readonly string[] }>>,
): Readonly<Record<string, readonly string[]>> {
  return Object.fromEntries(Object.entries(brands).map(([brand, { currencies }]) => [brand, currencies]));
}

/**
 * The limits of the processor a new charge will go to: the provider of its store's route for its
 * currency (else for `*`), as the charges_processor_route trigger will choose it (decision 0055),
 * else its mode's default (`live`: PROCESSOR_LIVE's, test: the simulator, which takes everything).
 */
export function routedProcessorLimits(
  token: {
    mode: string;
    processorRoutes: readonly { currency: string; provider: string; fallbackProvider?: string | null }[];
  },
  currency: string,
  liveDefault: LiveProcessorLimits | null,
): LiveProcessorLimits | null {
  const code = currency.toUpperCase();
  const route =
    token.processorRoutes.find((r) => r.currency === code) ??
    token.processorRoutes.find((r) => r.currency === '*');
  if (!route) return token.mode === 'live' ? liveDefault : null;
  const limits = processorLimitsOf(route.provider);
  // the charge may fail over to the route's fallback (decision 0056): refused at creation for what
  // either cannot take, never accepted to end `error` at the fallback (decision 0072)
  return route.fallbackProvider ? bothLimits(limits, processorLimitsOf(route.fallbackProvider)) : limits;
}

/**
 * What a charge that may go to either of two processors can be given: the payment types, konbini
 * chains and 3-D Secure modes both take (null: a processor that takes everything). Partial capture
 * is the first's: a capture is judged by the account that took the charge, at the capture request.
 */
export function bothLimits(
  first: LiveProcessorLimits | null,
  second: LiveProcessorLimits | null,
): LiveProcessorLimits | null {
  if (!first || !second) return first ?? second;
  return {
    processor: first.processor,
    paymentTypes: first.paymentTypes.filter((type) => second.paymentTypes.includes(type)),
    refusedThreeDsModes: [...new Set([...first.refusedThreeDsModes, ...second.refusedThreeDsModes])],
    partialCapture: first.partialCapture,
    konbiniStores:
      first.konbiniStores === null || second.konbiniStores === null
        ? (first.konbiniStores ?? second.konbiniStores)
        : first.konbiniStores.filter((store) => second.konbiniStores!.includes(store)),
    onlineBrands: bothOnlineBrands(first.onlineBrands, second.onlineBrands),
    tokenThreeDs: first.tokenThreeDs && second.tokenThreeDs,
    smallestHold: first.smallestHold && second.smallestHold,
  };
}

/** The online brands both take, each in the currencies both take it in (null: every brand, any currency). */
function bothOnlineBrands(
  first: LiveProcessorLimits['onlineBrands'],
  second: LiveProcessorLimits['onlineBrands'],
): LiveProcessorLimits['onlineBrands'] {
  if (first === null || second === null) return first ?? second;
  const both: Record<string, readonly string[]> = {};
  for (const [brand, currencies] of Object.entries(first)) {
    const theirs = second[brand];
    if (theirs) both[brand] = currencies.filter((currency) => theirs.includes(currency));
  }
  return both;
}

/**
 * The field a charge is refused for by the processor it will go to (its payment type, its konbini
 * chain or online brand, the currency it takes that brand in, its 3-D Secure mode), or null when
 * that processor takes it.
 */
export function liveProcessorRefusal(
  limits: LiveProcessorLimits | null,
  paymentType: string,
  threeDsMode: string | undefined,
  konbiniStore: string | null = null,
  online: { brand: string | null; currency: string } | null = null,
): 'transaction_token_id' | 'three_ds' | 'currency' | null {
  if (!limits) return null;
  if (!limits.paymentTypes.includes(paymentType)) return 'transaction_token_id';
  if (paymentType === 'online' && limits.onlineBrands !== null) {
    const brand = online?.brand;
    const currencies =
      brand && Object.hasOwn(limits.onlineBrands, brand) ? limits.onlineBrands[brand] : undefined;
    if (!currencies) return 'transaction_token_id';
    if (online && !currencies.includes(online.currency.toUpperCase())) return 'currency';
  }
  if (
    paymentType === 'konbini' &&
    konbiniStore !== null &&
    limits.konbiniStores !== null &&
    !limits.konbiniStores.includes(konbiniStore)
  )
    return 'transaction_token_id';
  if (threeDsMode !== undefined && limits.refusedThreeDsModes.includes(threeDsMode)) return 'three_ds';
  return null;
}

/** A card token's own check at the processor: its 3-D Secure, or its CVV authorization. */
export type TokenCheck = 'three_ds' | 'cvv_authorize';

/**
 * Whether the processor of `limits` takes a card token's `check` (decision 0079): both are holds
 * of the smallest amount, voided; null limits (the simulator's protocol) take both.
 */
export function takesTokenCheck(limits: LiveProcessorLimits | null, check: TokenCheck): boolean {
  if (!limits) return true;
  return check === 'three_ds' ? limits.tokenThreeDs : limits.smallestHold;
}

/** Whether the live processor refuses to capture `amount` of `authorized` (a partial capture it cannot do). */
export function refusesPartialCapture(
  limits: LiveProcessorLimits | null,
  amount: bigint,
  authorized: bigint,
): boolean {
  return limits !== null && !limits.partialCapture && amount < authorized;
}

export const liveProcessorLimitsProvider = {
  provide: LIVE_PROCESSOR_LIMITS,
  useFactory: (config: AppConfig) => liveProcessorLimitsOf(config),
  inject: [APP_CONFIG],
};
