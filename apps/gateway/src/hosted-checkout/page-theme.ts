import { createHash } from 'node:crypto';
import {
  CHECKOUT_COLOR_KEYS,
  errorTextColor,
  HEX_COLOR,
  readableCheckoutColors,
  type CheckoutColors,
} from '@kessai/store-configuration';

/**
 * A store's colours on its hosted pages (decision 0021): one <style> block setting the CSS custom
 * properties checkout.css reads. The CSP allows that block by its hash, so no 'unsafe-inline' is
 * needed; every value is a validated #rrggbb, checked again here since it is written into CSS.
 */
export interface PageTheme {
  /** the <style> element's text */
  css: string;
  /** its CSP source, 'sha256-…' */
  cspSource: string;
}

const property = (key: string) => `--k-${key.replace(/_/g, '-')}`;

export function pageTheme(configured: CheckoutColors): PageTheme {
  const colors = readableCheckoutColors(configured);
  const declarations = [
    ...CHECKOUT_COLOR_KEYS.map((key) => [property(key), colors[key]] as const),
    ['--k-error-text', errorTextColor(colors)] as const,
  ];
  for (const [, value] of declarations)
    if (!HEX_COLOR.test(value)) throw new Error('a checkout colour is not a hex colour');
  const css = `:root{${declarations.map(([name, value]) => `${name}:${value}`).join(';')}}`;
  return { css, cspSource: `'sha256-${createHash('sha256').update(css).digest('base64')}'` };
}
