/** Card types with UnivaPay's wire names (api-reference §5.12 CardType). */
export const CARD_TYPES = ['credit', 'debit', 'charge_card', 'unknown'] as const;

export type CardType = (typeof CARD_TYPES)[number];

/** What a token shows about the card's issuer (api-reference §5.1 `card_type`, `country`). */
export interface CardIssuer {
  cardType: CardType;
  /** ISO 3166-1 alpha-2 country of the issuer; null when it is not known */
  country: string | null;
}

interface BinRange extends CardIssuer {
  /** inclusive bounds of the number's leading digits; both have the same length */
  from: string;
  to: string;
}

const bins = (cardType: CardType, country: string | null, from: string, to = from): BinRange => ({
  cardType,
  country,
  from,
  to,
});

/**
 * A small table of public, brand-wide facts: only what the range itself tells, whatever the issuing
 * bank. A real deployment would ask its acquirer's BIN service; until then a number outside these
 * ranges shows `card_type: unknown` and `country: null` rather than a guess. When several ranges
 * match, the longest prefix wins (as in brands.ts).
 */
const BIN_RANGES: readonly BinRange[] = [
  // JCB is Japan's own network: credit cards, mostly issued in Japan (JP is the table's best guess).
  bins('credit', 'JP', '3528', '3589'),
  // Visa Electron prefixes: a debit-only product, issued in many countries.
  bins('debit', null, '4026'),
  bins('debit', null, '417500'),
  bins('debit', null, '4508'),
  bins('debit', null, '4844'),
  bins('debit', null, '4913'),
  bins('debit', null, '4917'),
  // Maestro (brands.ts's ranges): a debit-only product, issued in many countries.
  bins('debit', null, '50'),
  bins('debit', null, '56', '58'),
  bins('debit', null, '63'),
  bins('debit', null, '67'),
  // Discover's own ranges: credit cards issued in the United States (65 is shared with RuPay: left out).
  bins('credit', 'US', '6011'),
  bins('credit', 'US', '644', '649'),
  // UnionPay: issued in China, as debit or credit cards alike (co-branded 622126–622925 included).
  bins('unknown', 'CN', '62'),
];

/** The issuer facts the BIN table knows for a card number's leading digits; unknown/null otherwise. */
export function lookupBin(digits: string): CardIssuer {
  let best: BinRange | undefined;
  for (const candidate of BIN_RANGES) {
    const prefixLength = candidate.from.length;
    if (digits.length < prefixLength) continue;
    const prefix = digits.slice(0, prefixLength);
    if (prefix < candidate.from || prefix > candidate.to) continue;
    if (!best || prefixLength > best.from.length) best = candidate;
  }
  return best ? { cardType: best.cardType, country: best.country } : { cardType: 'unknown', country: null };
}
