/** Card brands with UnivaPay's wire names (api-reference §5.12 CardBrand). */
export const CARD_BRANDS = [
  'visa',
  'mastercard',
  'maestro',
  'american_express',
  'diners_club',
  'discover',
  'jcb',
  'unionpay',
  'private_label',
  'unknown',
] as const;

export type CardBrand = (typeof CARD_BRANDS)[number];

/** Brands recognisable from the number alone; private_label and unknown never are. */
export type DetectableCardBrand = Exclude<CardBrand, 'private_label' | 'unknown'>;

export const DETECTABLE_CARD_BRANDS: readonly DetectableCardBrand[] = CARD_BRANDS.filter(
  (brand): brand is DetectableCardBrand => brand !== 'private_label' && brand !== 'unknown',
);

interface IssuerRange {
  brand: DetectableCardBrand;
  /** inclusive bounds of the number's leading digits; both have the same length */
  from: string;
  to: string;
}

const range = (brand: DetectableCardBrand, from: string, to = from): IssuerRange => ({ brand, from, to });

/**
 * Issuer identification ranges. When several match, the longest prefix wins, so a specific range
 * (e.g. 6011 Discover) beats a broad one without the table having to be ordered.
 * Co-branded ranges are given to one brand: 622126–622925 (UnionPay/Discover) reads as UnionPay,
 * 65 (Discover/RuPay) as Discover.
 */
const ISSUER_RANGES: readonly IssuerRange[] = [
  range('visa', '4'),
  range('mastercard', '51', '55'),
  range('mastercard', '2221', '2720'),
  range('american_express', '34'),
  range('american_express', '37'),
  range('diners_club', '300', '305'),
  range('diners_club', '3095'),
  range('diners_club', '36'),
  range('diners_club', '38', '39'),
  range('jcb', '3528', '3589'),
  range('discover', '6011'),
  range('discover', '644', '649'),
  range('discover', '65'),
  range('unionpay', '62'),
  range('unionpay', '81'),
  range('maestro', '50'),
  range('maestro', '56', '58'),
  range('maestro', '63'),
  range('maestro', '67'),
];

const lengths = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);

/** Valid number lengths per brand, as the networks publish them. */
export const CARD_NUMBER_LENGTHS: Readonly<Record<DetectableCardBrand, readonly number[]>> = {
  visa: [13, 16, 19],
  mastercard: [16],
  american_express: [15],
  diners_club: lengths(14, 19),
  jcb: lengths(16, 19),
  discover: lengths(16, 19),
  unionpay: lengths(16, 19),
  maestro: lengths(12, 19),
};

/** Shortest and longest number any brand issues (ISO/IEC 7812). */
export const CARD_NUMBER_MIN_LENGTH = 12;
export const CARD_NUMBER_MAX_LENGTH = 19;

/** The brand a card number belongs to, from its leading digits; 'unknown' when no range matches. */
export function detectCardBrand(digits: string): DetectableCardBrand | 'unknown' {
  let best: IssuerRange | undefined;
  for (const candidate of ISSUER_RANGES) {
    const prefixLength = candidate.from.length;
    if (digits.length < prefixLength) continue;
    const prefix = digits.slice(0, prefixLength);
    if (prefix < candidate.from || prefix > candidate.to) continue;
    if (!best || prefixLength > best.from.length) best = candidate;
  }
  return best?.brand ?? 'unknown';
}

export function isDetectableCardBrand(brand: CardBrand): brand is DetectableCardBrand {
  return (DETECTABLE_CARD_BRANDS as readonly CardBrand[]).includes(brand);
}

/** Security code lengths: American Express prints 4 digits on the front, everyone else 3 on the back. */
export function cvvLengths(brand: CardBrand): readonly number[] {
  if (brand === 'american_express') return [4];
  if (isDetectableCardBrand(brand)) return [3];
  return [3, 4];
}
