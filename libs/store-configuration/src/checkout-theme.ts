/**
 * The hosted checkout's colours (configuration key `checkout_colors`, presented by GET /checkout_info
 * as `theme.colors`, applied by the hosted pages): the keys, Kessai's defaults, and the contrast rule
 * a change must keep (docs/decisions/0021-checkout-theme-and-logo.md).
 */

export const CHECKOUT_COLOR_KEYS = [
  'main_background',
  'secondary_background',
  'main_color',
  'main_text',
  'primary_text',
  'secondary_text',
  'base_text',
  'body_background',
] as const;
export type CheckoutColorKey = (typeof CHECKOUT_COLOR_KEYS)[number];
/** Each colour as #rrggbb, lower case. */
export type CheckoutColors = Record<CheckoutColorKey, string>;

/** Kessai's own look (the pages' colours before stores had theirs): every pair below passes the contrast rule. */
export const DEFAULT_CHECKOUT_COLORS: CheckoutColors = {
  main_background: '#ffffff',
  secondary_background: '#ffffff',
  main_color: '#0b57d0',
  main_text: '#ffffff',
  primary_text: '#1a1a1a',
  secondary_text: '#4a4f55',
  base_text: '#1a1a1a',
  body_background: '#f1f3f4',
};

/** #rgb or #rrggbb: nothing else can reach a page's style block. */
export const HEX_COLOR = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** A valid colour as #rrggbb in lower case (#ABC → #aabbcc). */
export function normaliseHexColor(color: string): string {
  const hex = color.slice(1).toLowerCase();
  return hex.length === 3 ? `#${[...hex].map((c) => c + c).join('')}` : `#${hex}`;
}

/** WCAG AA for normal text. */
export const MIN_TEXT_CONTRAST = 4.5;

/**
 * Where the pages put text on a background, as [text, background]: the card's heading, amount and
 * labels (primary) and its hints (secondary) on main_background; what the consumer types on the
 * fields (secondary_background); the language link on the page around the card (body_background);
 * the pay button's label on main_color.
 */
export const TEXT_ON_BACKGROUND: readonly (readonly [CheckoutColorKey, CheckoutColorKey])[] = [
  ['primary_text', 'main_background'],
  ['secondary_text', 'main_background'],
  ['base_text', 'secondary_background'],
  ['base_text', 'body_background'],
  ['main_text', 'main_color'],
];

function relativeLuminance(color: string): number {
  const hex = normaliseHexColor(color).slice(1);
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The WCAG 2 contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [
    number,
    number,
  ];
  return (light + 0.05) / (dark + 0.05);
}

/** The first text colour (and its background) below MIN_TEXT_CONTRAST, or null when all are readable. */
export function unreadableColorPair(
  colors: CheckoutColors,
): { text: CheckoutColorKey; background: CheckoutColorKey; ratio: number } | null {
  for (const [text, background] of TEXT_ON_BACKGROUND) {
    const ratio = contrastRatio(colors[text], colors[background]);
    if (ratio < MIN_TEXT_CONTRAST) return { text, background, ratio };
  }
  return null;
}

/**
 * The colours a store's checkout shows: its effective `checkout_colors`, or Kessai's defaults when a
 * pair is unreadable. A change is refused when it makes a pair unreadable, but a merchant's change
 * can still make one with a store's own colours over it; the page then stays readable.
 */
export function readableCheckoutColors(colors: CheckoutColors): CheckoutColors {
  return unreadableColorPair(colors) === null ? colors : DEFAULT_CHECKOUT_COLORS;
}

/** The colour of error text on main_background: Kessai's red where it is readable, else the primary text. */
export function errorTextColor(colors: CheckoutColors): string {
  for (const red of ['#b3261e', '#ffb4ab'])
    if (contrastRatio(red, colors.main_background) >= MIN_TEXT_CONTRAST) return red;
  return colors.primary_text;
}
