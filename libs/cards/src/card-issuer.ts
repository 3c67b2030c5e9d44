import { type CardIssuer, lookupBin } from './bin-table';
import { normalizeCardNumber } from './card-number';
import { findTestCard } from './test-cards';

/**
 * A card's `card_type` and `country` as tokens show them: a catalogue test card's own values,
 * otherwise what the BIN table knows of its range (unknown / null when nothing is known).
 */
export function cardIssuerOf(cardNumber: string): CardIssuer {
  const listed = findTestCard(cardNumber);
  if (listed) return { cardType: listed.cardType, country: listed.country };
  return lookupBin(normalizeCardNumber(cardNumber) ?? '');
}
